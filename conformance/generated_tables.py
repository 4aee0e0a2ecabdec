"""Generated cases of a language that answers tables (``match_recognize``): drawn clauses
over drawn tables, each backend answer compared with the reference's output, shrunk.

``kleene conform --generated N`` draws, with the language's registry hook ``generate``
(:func:`kleene.conformance.recognize_strategies.recognition_for`), up to ``N`` clauses
and input tables whose features the backend claims, sends each as a
:class:`~kleene.conformance.wire.TableRequest` (``SELECT * FROM t MATCH_RECOGNIZE (…)``,
``t`` the drawn table) and compares the answer with
:func:`kleene.reference.match_recognize.semantics.recognize` on the same table: the
columns by name (case-insensitive) in order, the rows as a multiset, numbers by value
(:func:`~kleene.conformance.sql_tables.table_difference`). Where the reference raises an
error (a division by zero, a failed cast, an output of no column), any error answer
passes. On a disagreement Hypothesis shrinks the clause and the table, and the result
carries the minimal counterexample's reproduction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import pyarrow as pa

from kleene.conformance.outcome import Backend, Outcome, table_backend
from kleene.conformance.runner import FAIL, SKIP, Result, generated_result, generated_title
from kleene.conformance.sql_tables import table_difference
from kleene.conformance.sqllogictest.backend import needs, request_for
from kleene.conformance.wire import TableRequest
from kleene.data.sql import table_of
from kleene.engines.protocol import Feature
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, KleeneError
from kleene.reference.languages import hook, language_named
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table

#: Reference steps per generated example (larger examples are rejected, not run).
STEPS = 20_000

#: What the reference's output of no column is as a table request's answer (an SQL table
#: has a column or more: :func:`kleene.data.sql.run_statement` refuses it too).
NO_COLUMN = "ONE ROW PER MATCH with neither PARTITION BY nor MEASURES: an output of no column"

#: The generator hook of a language answering tables: Hypothesis' ``draw`` and the
#: backend's claimed features to a clause and its input table.
TableGenerator = Callable[[Any, frozenset[Feature]], tuple[MatchRecognize, pa.Table]]


@dataclass
class _Failure(AssertionError):
    request: TableRequest
    reason: str
    expected: Table | str

    def __str__(self) -> str:
        return self.reason


def verdict(outcome: Outcome, expected: Table | str) -> str | None:
    """Why ``outcome`` is not ``expected`` (a table, or an error's message: any error
    answer passes); ``None``: it is."""
    if outcome.declined is not None:
        return f"declined: {outcome.declined}"
    if outcome.broken is not None:
        return f"{outcome.verdict}: {outcome.broken}"
    if isinstance(expected, str):
        return None if outcome.error is not None else \
            f"answered a table where the reference raises: {expected}"
    if outcome.error is not None:
        return f"the backend reported error {outcome.error[0]!r}: {outcome.error[1]}"
    if outcome.table is None:
        return "the answer holds no table"
    return table_difference(outcome.table, expected.names, expected.rows)


def reproduction(title: str, failure: _Failure, rerun: str = "") -> str:
    """A copy-paste reproduction of one generated table request."""
    request = failure.request
    lines = [title, f"  {failure.reason}", "  sql:",
             *(f"    {line}" for line in request.sql.splitlines())]
    for name, table in request.tables.items():
        lines.append(f"  table {name} ({', '.join(f'{n} {t}' for n, t in table.columns)}):")
        lines += [f"    {json.dumps(row)}" for row in table.to_json()["rows"]]
    expected = failure.expected
    if isinstance(expected, str):
        lines.append(f"  expected: an error ({expected})")
    else:
        lines.append(f"  expected ({', '.join(expected.names)}), rows in any order:")
        lines += [f"    {row!r}" for row in expected.rows] or ["    (no rows)"]
    if rerun:
        lines.append(f"  rerun: {rerun}")
    lines.append("  the run message (one line on the backend's stdin):")
    lines.append(f"    {request.line()}")
    return "\n".join(lines)


def check_tables(backend: Backend, language: str, examples: int, *,
                 timeout: float | None = None, seed: int = 0,
                 rerun: Callable[[str], str] | None = None) -> Result:
    """Up to ``examples`` recognitions of ``language`` drawn from ``seed`` against
    ``backend`` (``rerun(id)``: the command line the reproduction gives)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded
    from hypothesis import strategies as st
    from hypothesis.errors import Unsatisfiable

    result = generated_result(language, seed, rerun)
    if Feature(language) not in backend.capabilities:
        result.status, result.reason = SKIP, f"needs {language}"
        return result
    generator = cast("TableGenerator | None", hook(language_named(language), "generate"))
    if generator is None:
        result.status, result.reason = SKIP, f"no generator for {language} yet"
        return result
    server = table_backend(backend)
    ran = [0]
    last: list[_Failure] = []

    @seeded(seed)
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=False,
              phases=[Phase.generate, Phase.shrink])
    @given(st.data())
    def check(data: Any) -> None:
        from hypothesis import assume, reject

        clause, table = generator(data.draw, backend.capabilities)
        assume(needs(clause) <= backend.capabilities)
        expected: Table | str
        try:
            expected = recognize(clause, table_of(table), budget=Budget(limit=STEPS))
        except BudgetExceeded:
            reject()
        except KleeneError as err:
            expected = " ".join(str(err).split())
        if isinstance(expected, Table) and not expected.names:
            expected = NO_COLUMN
        request = request_for(clause, table)
        outcome = server.run(request, timeout=timeout)
        ran[0] += 1
        wrong = verdict(outcome, expected)
        if wrong is not None:
            last.append(_Failure(request, wrong, expected))
            raise last[-1]

    start = time.perf_counter()
    try:
        check()
    except _Failure:
        minimal = last[-1]  # Hypothesis replays the shrunk example last
        result.status, result.reason = FAIL, f"minimal counterexample: {minimal.reason}"
        result.reproduction = reproduction(generated_title(result), minimal, result.rerun)
    except Unsatisfiable:
        result.status, result.reason = SKIP, "no drawn query fits the backend's capabilities"
    except Exception as err:  # e.g. Hypothesis found the failure flaky
        result.status = FAIL
        if last:
            result.reason = f"{type(err).__name__} while shrinking; last counterexample: " \
                            f"{last[-1].reason}"
            result.reproduction = reproduction(generated_title(result, shrunk=False), last[-1],
                                               result.rerun)
        else:
            result.reason = f"the generator failed: {type(err).__name__}: {err}"
    result.seconds = time.perf_counter() - start
    result.notes.append(f"{ran[0]} generated queries run")
    return result
