"""Hypothesis-drawn recognitions through a peer natively (issue 30, item 3): the
generated part of the ``MATCH_RECOGNIZE`` corpus of ``make peers``.

:func:`drawn` draws clauses and input tables with the language's generator
(:func:`kleene.conformance.recognize_strategies.recognition_for`, every construct, ties and
NULLs), each with the reference's answer
(:func:`~kleene.reference.match_recognize.semantics.recognize`, the oracle; an error's
message where it raises). :func:`run` sends them all to a peer at
once (:meth:`Native.prefetch <kleene.conformance.adapters.native.Native.prefetch>`: Flink
runs many in one job) and judges each answer as ``kleene conform --generated`` does
(:func:`~kleene.conformance.generated_tables.verdict`); :mod:`.mr_shrink` then drops rows
of each disagreement while it persists.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from kleene.conformance.adapters.native import Native
from kleene.conformance.generated_tables import NO_COLUMN, STEPS, verdict
from kleene.conformance.outcome import Outcome
from kleene.conformance.recognize_strategies import recognition_for
from kleene.conformance.sql_tables import SqlTable
from kleene.conformance.sqllogictest.backend import request_for
from kleene.data.sql import ArrowRecognizer, table_of
from kleene.engines.protocol import Feature
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, KleeneError, Unsupported
from kleene.reference.match_recognize.ast import Column, MatchRecognize
from kleene.reference.match_recognize.features import clause_constructs
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table

#: Every construct the generator draws (Flink's ``WITHIN`` included).
EVERYTHING = frozenset({Feature("match_recognize"), Feature("match_recognize", "within")})


@dataclass(frozen=True)
class Drawn:
    """One drawn recognition: the clause, its input table, the reference's answer (a
    table, or the message of its error), the constructs it uses and whether it was drawn
    in Flink's dialect."""

    clause: MatchRecognize
    table: pa.Table
    expected: Table | str
    features: tuple[str, ...]
    #: drawn in Flink's dialect (:mod:`kleene.conformance.recognize_flink`)
    flink: bool = False

    def sql(self) -> str:
        """The statement, as ``kleene conform --generated`` sends it."""
        return request_for(self.clause, self.table).sql


def expected_of(clause: MatchRecognize, table: pa.Table) -> Table | str | None:
    """The reference's answer (``None``: over the step budget, not drawn)."""
    try:
        out = recognize(clause, table_of(table), budget=Budget(limit=STEPS))
    except BudgetExceeded:
        return None
    except KleeneError as err:
        return " ".join(str(err).split())
    return NO_COLUMN if not out.names else out


def order_ties(clause: MatchRecognize, names: Sequence[str],
               rows: Sequence[Sequence[object]]) -> bool:
    """Whether two of ``rows`` (columns ``names``) are in one partition and equal on every
    ``ORDER BY`` key of ``clause`` (keys that are not plain columns count as ties): the
    standard leaves their order implementation-dependent, so engines may differ rightly."""
    upper = [n.upper() for n in names]
    keys = [*clause.partition_by, *(k.expr for k in clause.order_by)]
    at = []
    for k in keys:
        if not isinstance(k, Column) or k.var is not None or k.name.upper() not in upper:
            return True
        at.append(upper.index(k.name.upper()))
    seen = [tuple(json.dumps(r[i], default=str) for i in at) for r in rows]
    return len(set(seen)) < len(seen)


def drawn(n: int, seed: int = 0, flink_share: float = 0.0) -> list[Drawn]:
    """``n`` distinct recognitions drawn from ``seed`` (the same ones on every run), each
    with one answer: none whose rows tie on the order (:func:`order_ties`) or whose output
    has no column. ``flink_share`` of them (rounded) are drawn in the dialect Flink SQL
    takes (:mod:`kleene.conformance.recognize_flink`), after the others, and marked
    :attr:`Drawn.flink`; of those, one in two whose answer is an error or no row is drawn
    again (the rows are what compares the engines)."""
    from kleene.conformance import recognize_flink  # lazy: Hypothesis

    flink = round(n * flink_share)
    return (_drawn(n - flink, seed, lambda draw: recognition_for(draw, EVERYTHING), False)
            + _drawn(flink, seed, recognize_flink.flink_recognition, True))


def _drawn(n: int, seed: int,
           recognition: Callable[[Any], tuple[MatchRecognize, pa.Table]],
           flink: bool) -> list[Drawn]:
    """``n`` recognitions of ``recognition`` (:func:`drawn`)."""
    from hypothesis import HealthCheck, Phase, given, settings  # lazy: Hypothesis
    from hypothesis import seed as seeded
    from hypothesis import strategies as st

    out: dict[str, Drawn] = {}
    if n <= 0:
        return []

    @seeded(seed)
    @settings(max_examples=n * 8, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=False)
    @given(st.data())
    def draw(data: Any) -> None:
        clause, table = recognition(data.draw)
        rowless = flink and data.draw(st.booleans(), label="draw again if no rows")
        expected = expected_of(clause, table) if len(out) < n else None
        rows = [list(r.values()) for r in table.to_pylist()]
        if rowless and (isinstance(expected, str) or expected is not None and not expected.rows):
            return   # Flink's share: mostly recognitions that answer rows
        if expected is not None and expected != NO_COLUMN \
                and not order_ties(clause, table.column_names, rows):   # one answer
            one = Drawn(clause, table, expected, tuple(sorted(clause_constructs(clause))),
                        flink)
            out.setdefault(one.sql() + repr(table.to_pylist()), one)

    draw()
    return list(out.values())[:n]


@dataclass(frozen=True)
class Judged:
    """A drawn recognition's outcome on one engine: ``passed``, ``failed`` or
    ``declined``, and why."""

    drawn: Drawn
    status: str
    reason: str = ""


def judge(recognizer: ArrowRecognizer, one: Drawn) -> Judged:
    """The outcome of ``one`` through ``recognizer``."""
    try:
        got = recognizer.recognize_arrow(one.clause, one.table)
        outcome = Outcome(table=SqlTable.of_arrow(got))
    except Unsupported as err:
        return Judged(one, "declined", " ".join(str(err).split()))
    except BudgetExceeded as err:
        return Judged(one, "failed", f"no answer in time: {' '.join(str(err).split())}")
    except KleeneError as err:
        outcome = Outcome(error=(err.code, " ".join(str(err).split())))
    wrong = verdict(outcome, one.expected)
    return Judged(one, "passed") if wrong is None else Judged(one, "failed", wrong)


def run(recognizer: ArrowRecognizer, items: Sequence[Drawn]) -> list[Judged]:
    """Each of ``items`` judged, all sent at once to a peer's worker first."""
    if isinstance(recognizer, Native):
        recognizer.recording()
        for one in items:
            try:
                recognizer.recognize_arrow(one.clause, one.table)
            except KleeneError:
                pass
        recognizer.prefetch(recognizer.recorded or [])
    return [judge(recognizer, one) for one in items]
