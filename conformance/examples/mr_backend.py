#!/usr/bin/env python3
"""A MATCH_RECOGNIZE backend speaking the JSON-lines protocol (docs/backends.md, "Tables").

It claims ``match_recognize`` and every construct, and answers each table request
``{"cmd": "run", "seq", "language": "match_recognize", "sql", "tables"}`` with
``{"seq", "table"}``: the input tables decoded by their declared column types
(:mod:`kleene.conformance.sql_tables`), the statement run by Kleene's own
``kleene.match_recognize`` (:func:`kleene.engines.tables.match_recognize`, the
reference semantics), the output table encoded again; a
Kleene error is ``{"seq", "error": {"code", "message"}}``. An example of the protocol,
not an engine: it passes what the reference passes.

``--defect`` breaks it on purpose, to show that the runner catches a wrong engine:
``no-rows`` answers every recognition with its columns and no row; ``reluctant`` makes
every greedy quantifier reluctant (``A+`` read as ``A+?``) before running the statement.

    kleene conform --sqllogictest --backend "cmd:python3 conformance/examples/mr_backend.py"
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

import kleene
from kleene.conformance.sql_tables import SqlTable, TableProblem, decode
from kleene.engines.protocol import Feature
from kleene.engines.tables import match_recognize
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize import ast
from kleene.reference.match_recognize.features import CONSTRUCTS
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.printer import format_statement
from kleene.reference.match_recognize.registration import POLICY

CAPABILITIES = sorted(str(f) for f in Feature.of("match_recognize", POLICY, *CONSTRUCTS))


def reluctant(p: ast.RowPattern) -> ast.RowPattern:
    """``p`` with every quantifier reluctant (the ``reluctant`` defect)."""
    if isinstance(p, ast.Quantified):
        return dataclasses.replace(p, body=reluctant(p.body), reluctant=True)
    if isinstance(p, ast.Concat | ast.Alt | ast.Permute):
        return dataclasses.replace(p, items=tuple(reluctant(i) for i in p.items))
    if isinstance(p, ast.Exclude):
        return dataclasses.replace(p, body=reluctant(p.body))
    return p


def broken_sql(sql: str) -> str:
    """``sql`` with its recognitions' quantifiers made reluctant."""
    statement = parse_statement(sql)
    recognitions = tuple(dataclasses.replace(
        r, clause=dataclasses.replace(r.clause, pattern=reluctant(r.clause.pattern)))
        for r in statement.recognitions)
    return format_statement(dataclasses.replace(statement, recognitions=recognitions))


def run(message: dict[str, Any], defect: str | None) -> dict[str, Any]:
    """The answer to one table request."""
    tables = {name: decode(t) for name, t in message["tables"].items()}
    (name, table), = tables.items()   # this example reads one table
    sql = broken_sql(message["sql"]) if defect == "reluctant" else message["sql"]
    out = SqlTable.of_arrow(match_recognize(table.arrow(), sql, name=name, engine="reference"))
    if defect == "no-rows":
        out = SqlTable(out.columns, ())
    return {"seq": message["seq"], "table": out.to_json()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--defect", choices=("no-rows", "reluctant"))
    defect = parser.parse_args(argv).defect
    name = "kleene-mr-example" + (f"-{defect}" if defect else "")
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "hello":
            answer = {"protocol": 1, "name": name, "version": kleene.__version__,
                      "capabilities": CAPABILITIES}
        elif message["cmd"] == "run":
            try:
                answer = run(message, defect)
            except TableProblem as err:
                answer = {"seq": message["seq"], "error": {"code": "tables", "message": str(err)}}
            except KleeneError as err:
                answer = {"seq": message["seq"],
                          "error": {"code": err.code, "message": " ".join(str(err).split())}}
        else:   # bye
            return 0
        print(json.dumps(answer, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
