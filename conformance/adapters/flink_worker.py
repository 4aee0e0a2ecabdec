"""Worker of the Flink adapter: runs MATCH_RECOGNIZE queries in Apache Flink SQL (PyFlink).

Run by the Python of ``.peers/flink`` (``apache-flink``, Java 17), not by
Kleene's: standard library and ``pyflink`` only. One JSON object per line on
stdin, one answer per line on stdout:

- ``{"cmd": "version"}`` → ``{"version"}``;
- ``{"cmd": "run", "sql", "columns", "rows"}`` (a translated operator pattern, streaming
  mode, below) → ``{"rows": [{measure: value}]}``;
- ``{"cmd": "table", "sql", "name", "columns", "rows" | "path", "time"}`` (a
  ``MATCH_RECOGNIZE`` statement over the table ``name``, batch mode: :func:`table`) →
  ``{"columns": [[name, type]], "rows": [[value]], "seconds": {"ddl", "job"}}`` (the job
  reads the file, matches and hands the rows over in one pipeline);

or ``{"error": "..."}``.

For ``run``, the rows become a bounded streaming source (a JSON file read by the
``filesystem`` connector, parallelism 1) with the event time
``rt = kts`` read as seconds and a watermark one second behind, so rows that
tie in ``ts`` are never late; ``ORDER BY kts, kpos`` in the query becomes
``ORDER BY rt, kpos`` (Flink orders by its time attribute first).
"""

from __future__ import annotations

import datetime
import decimal
import json
import os
import sys
import tempfile
import time
from typing import Any

TYPES = {"BIGINT": "BIGINT", "DOUBLE": "DOUBLE", "VARCHAR": "STRING", "BOOLEAN": "BOOLEAN"}


def main() -> None:
    """Serve requests until stdin closes."""
    out = sys.stdout
    sys.stdout = sys.stderr  # keep Flink's own prints off the answer channel
    env = batch = None
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "version":
                from importlib.metadata import version

                answer: dict[str, object] = {"version": "apache-flink " + version("apache-flink")}
            elif msg["cmd"] == "table":
                if batch is None:
                    from pyflink.table import EnvironmentSettings, TableEnvironment

                    batch = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
                    batch.get_config().set("parallelism.default", "1")
                answer = table(batch, msg)
            else:
                if env is None:
                    from pyflink.table import EnvironmentSettings, TableEnvironment

                    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
                    env.get_config().set("parallelism.default", "1")
                answer = {"rows": run(env, msg["sql"], msg["columns"], msg["rows"])}
        except Exception as err:  # the engine's failure is the answer
            answer = {"error": f"{type(err).__name__}: {str(err)[:2000]}"}
        out.write(json.dumps(answer, default=str) + "\n")
        out.flush()


def run(env: Any, sql: str, columns: list[list[str]], rows: list[dict[str, object]]
        ) -> list[dict[str, object]]:
    """The measures of every match of ``sql`` over ``rows``."""
    fd, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    cols = ", ".join(f"`{name}` {TYPES[t]}" for name, t in columns)
    env.execute_sql("DROP TEMPORARY TABLE IF EXISTS events")
    env.execute_sql(
        f"CREATE TEMPORARY TABLE events ({cols}, "
        "rt AS TO_TIMESTAMP_LTZ(CAST(kts * 1000 AS BIGINT), 3), "
        "WATERMARK FOR rt AS rt - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = 'file://{path}', 'format' = 'json')")
    try:
        result = env.execute_sql(sql.replace("ORDER BY kts, kpos", "ORDER BY rt, kpos"))
        names = result.get_table_schema().get_field_names()
        with result.collect() as it:
            return [dict(zip(names, list(row), strict=True)) for row in it]
    finally:
        os.unlink(path)


#: Flink's names of the SQL types a ``table`` request's columns have.
FLINK_TYPES = {"VARCHAR": "STRING", "INTEGER": "INT", "HUGEINT": "DECIMAL(38, 0)"}


def _plain(v: object) -> object:
    if isinstance(v, datetime.datetime):
        return v.replace(tzinfo=None).isoformat(sep=" ")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v


def table(env: Any, msg: dict[str, Any]) -> dict[str, object]:
    """A statement over one table in batch mode, timed from the file to the rows out.

    The table is read by the ``filesystem`` connector: ``path``, JSON Lines or, when
    ``format`` is ``csv``, CSV without a header line (Flink's CSV format has no option to
    skip one: a header would be a row of NULLs), or the rows written to a temporary JSON
    Lines file;
    ``time``, when given, is ``[name, expression]``: a computed column Flink orders by (its
    ``MATCH_RECOGNIZE`` orders by a time attribute first), with a watermark equal to it
    (batch mode has no late rows)."""
    began = time.perf_counter()
    path = msg.get("path")
    temporary = None
    if path is None:
        names = [name for name, _ in msg["columns"]]
        fd, temporary = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            for r in msg["rows"]:
                f.write(json.dumps(dict(zip(names, r, strict=True))) + "\n")
        path = temporary
    cols = [f"`{name}` {FLINK_TYPES.get(t.upper(), t)}" for name, t in msg["columns"]]
    if msg.get("time"):
        name, expression = msg["time"]
        cols += [f"`{name}` AS {expression}", f"WATERMARK FOR `{name}` AS `{name}`"]
    form = "csv" if temporary is None and msg.get("format") == "csv" else "json"
    env.execute_sql(f"DROP TEMPORARY TABLE IF EXISTS `{msg['name']}`")
    env.execute_sql(
        f"CREATE TEMPORARY TABLE `{msg['name']}` ({', '.join(cols)}) WITH ("
        f"'connector' = 'filesystem', 'path' = 'file://{path}', 'format' = '{form}')")
    try:
        loaded = time.perf_counter()
        result = env.execute_sql(msg["sql"])
        schema = result.get_table_schema()
        names = schema.get_field_names()
        types = [str(t) for t in schema.get_field_data_types()]
        with result.collect() as it:
            rows = [[_plain(v) for v in row] for row in it]
        done = time.perf_counter()
    finally:
        if temporary is not None:
            os.unlink(temporary)
    return {"columns": [list(c) for c in zip(names, types, strict=True)], "rows": rows,
            "seconds": {"ddl": loaded - began, "job": done - loaded}}


if __name__ == "__main__":
    main()
