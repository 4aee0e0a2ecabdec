"""A continuous ``MATCH_RECOGNIZE``'s driver equals the batch answer on the same rows
(``engines/spark/stream/recognizing.py``; issue 30, item 2), without Spark.

Each recognition's input arrives in order of its first ``ORDER BY`` key (a stable sort:
rows that tie keep their input order, as the batch keeps it), cut into micro-batches at
drawn points; each micro-batch settles the rows below the watermark (the largest key
so far), :meth:`Recognitions.advance` returns the rows that became final, the state goes
through its Arrow tables (a restart at every micro-batch), and the end of the stream
flushes the rest. The oracle is the reference's recognition of the whole table: each
``PARTITION BY`` key's output rows, in order, are the ones the stream wrote for it.
Sources: every recognition of Kleene's hand-computed file and of Oracle's whose first
``ORDER BY`` key is an ascending column (the stream door's condition), and Hypothesis's
drawn clauses and tables.
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kleene.conformance.recognize_strategies import input_tables, match_recognize_clauses
from kleene.conformance.sqllogictest.runner import run_file
from kleene.data.sql import arrow_of, table_of
from kleene.engines.spark.stream.recognizing import Recognitions
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, KleeneError
from kleene.reference.match_recognize.ast import Column, MatchRecognize
from kleene.reference.match_recognize.semantics import Row, recognize

ROOT = Path(__file__).resolve().parents[1] / "conformance" / "sqllogictest"
FILES = (ROOT / "kleene" / "match_recognize.test",
         ROOT / "duckdb" / "test_match_recognize_oracle.test")
STEPS = 50_000


class _Sources:
    """The recognitions a sqllogictest file makes, each with its source table (answered
    by the reference, so the file runs as it does under ``kleene conform``)."""

    def __init__(self) -> None:
        self.seen: list[tuple[MatchRecognize, pa.Table]] = []

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table:
        self.seen.append((clause, table))
        return arrow_of(recognize(clause, table_of(table), budget=Budget(limit=STEPS)),
                        like=table.schema)


def event_time(clause: MatchRecognize, table: pa.Table) -> str | None:
    """The column a stream orders ``clause``'s rows by, if the stream door takes it."""
    if not clause.order_by or clause.order_by[0].descending:
        return None
    first = clause.order_by[0].expr
    if not isinstance(first, Column) or first.var is not None:
        return None
    names = [n for n in table.column_names if n.upper() == first.name.upper()]
    return names[0] if len(names) == 1 else None


def arrival(table: pa.Table, ts: str) -> pa.Table:
    """The rows with a key, in the order a stream delivers them (stable by key)."""
    kept = table.filter(pc.is_valid(table.column(ts)))
    return kept.take(pc.sort_indices(kept, sort_keys=[(ts, "ascending")]))


def streamed(clause: MatchRecognize, table: pa.Table, ts: str, cuts: list[int]) -> list[Row]:
    """The rows a continuous run writes, micro-batch by micro-batch (module docstring);
    :data:`EARLY` counts those written before the end of the stream."""
    state = Recognitions(clause, table.schema)
    pending = table.slice(0, 0)
    watermark: Any = None
    out: list[Row] = []
    bounds = [0, *cuts, table.num_rows]
    for a, b in zip(bounds, bounds[1:], strict=False):
        part = table.slice(a, b - a)
        if part.num_rows:
            top = pc.max(part.column(ts))
            watermark = top if watermark is None or pc.greater(top, watermark).as_py() \
                else watermark
        pending = pa.concat_tables([pending, part])
        if watermark is None:
            continue
        below = pc.less(pending.column(ts), watermark)
        settled, pending = pending.filter(below), pending.filter(pc.invert(below))
        out.extend(state.advance(settled, floor=watermark.as_py(),
                                 budget=Budget(limit=STEPS)).rows)
        state = Recognitions.from_tables(clause, table.schema, state.tables())
    EARLY[0] += len(out)
    out.extend(state.advance(pending, ended=True, budget=Budget(limit=STEPS)).rows)
    return out


#: Rows written before the end of the stream, over the tests run.
EARLY = [0]


def by_key(clause: MatchRecognize, rows: list[Row] | tuple[Row, ...]) -> dict[Any, list[Row]]:
    """Output rows by their ``PARTITION BY`` values (the first columns), each in order."""
    width = len(clause.partition_by)
    keyed: dict[Any, list[Row]] = defaultdict(list)
    for row in rows:
        keyed[repr(row[:width])].append(row)
    return dict(keyed)


def check(clause: MatchRecognize, table: pa.Table, cuts: list[int]) -> None:
    ts = event_time(clause, table)
    assert ts is not None
    rows = arrival(table, ts)
    cuts = [c for c in cuts if c <= rows.num_rows]
    try:
        expected = recognize(clause, table_of(rows), budget=Budget(limit=STEPS)).rows
    except BudgetExceeded:
        raise
    except KleeneError as err:   # a data error: the stream meets it too
        with pytest.raises(KleeneError) as raised:
            streamed(clause, rows, ts, cuts)
        assert str(raised.value) == str(err)
        return
    got = streamed(clause, rows, ts, cuts)
    assert by_key(clause, got) == by_key(clause, expected)


def _recorded() -> list[tuple[str, MatchRecognize, pa.Table]]:
    cases = []
    for path in FILES:
        sources = _Sources()
        run_file(path, sources)
        cases += [(f"{path.stem}-{i}", c, t) for i, (c, t) in enumerate(sources.seen)
                  if event_time(c, t) is not None]
    return cases


RECORDED = _recorded()


def test_the_files_give_many_recognitions_a_stream_takes() -> None:
    assert len(RECORDED) >= 100     # of 188 (the others order by no column or descending)


@pytest.mark.parametrize("name,clause,table", RECORDED, ids=[c[0] for c in RECORDED])
def test_stream_equals_batch_on_the_files(name: str, clause: MatchRecognize,
                                          table: pa.Table) -> None:
    rng = random.Random(name)
    n = table.num_rows
    for _ in range(3):
        cuts = sorted(rng.sample(range(n + 1), min(n + 1, rng.randint(1, 4))))
        check(clause, table, cuts)


def test_most_rows_of_the_files_are_final_before_the_stream_ends() -> None:
    EARLY[0] = 0
    total = 0
    for _, clause, table in RECORDED:
        ts = event_time(clause, table)
        assert ts is not None
        rows = arrival(table, ts)
        try:
            total += len(streamed(clause, rows, ts, list(range(1, rows.num_rows))))
        except KleeneError:
            continue
    assert EARLY[0] >= total // 2, (EARLY[0], total)   # a micro-batch per row


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(clause=match_recognize_clauses(), table=input_tables(), data=st.data())
def test_stream_equals_batch_on_drawn_recognitions(clause: MatchRecognize, table: pa.Table,
                                                   data: Any) -> None:
    assume(event_time(clause, table) is not None)
    cuts = sorted(data.draw(st.lists(st.integers(0, table.num_rows), max_size=5),
                            label="cuts"))
    try:
        check(clause, table, cuts)
    except BudgetExceeded:
        assume(False)
