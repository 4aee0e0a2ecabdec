"""Metamorphic tests of ``MATCH_RECOGNIZE``'s reference (issue 26): transformations of
the input whose effect on the output the definition says exactly, checked on drawn
clauses (every construct, :mod:`kleene.conformance.recognize_strategies`) and drawn
tables (ties in the order key and the partition key, NULLs everywhere).

- Shifting every ``ORDER BY`` value by a large constant keeps every row's order and every
  difference (``WITHIN`` reads differences only), so for a clause whose expressions do not
  read the order key the output is the same, the key's own column shifted by as much
  (ISO/IEC 9075-2 §7.6: the rows are ordered by the key; nothing else reads it).
- Each partition is matched on its own (TR 19075-5 §4.4: matching never crosses a
  partition; ``MATCH_NUMBER()`` counts per partition): moving whole partitions around, or
  interleaving them, each keeping its own rows' order (ties in the key keep the input's
  order), gives the same rows; and splitting the table by the partition key, recognizing
  each part and concatenating the answers gives the same rows as the whole table.

Rows are compared as multisets where the definition leaves the order of partitions to the
implementation; an error (a data exception, the skip to a match's first row) must be the
same error. These check the reference, the oracle, against the definition; the engine's
own shift test is in tests/test_match_recognize_engine.py (and every drawn clause holds
the engine to the reference there).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kleene.conformance.recognize_strategies import (
    ORDER,
    PARTITION,
    input_tables,
    match_recognize_clauses,
    plain_clauses,
)
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, KleeneError
from kleene.reference.match_recognize.ast import Column, MatchRecognize
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.features import expressions_of
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table

#: The shift of the order key: far beyond the drawn keys (0 to 4).
SHIFT = 1_000_000

CLAUSES = st.one_of(match_recognize_clauses(), plain_clauses())
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _table(arrow: object) -> Table:
    columns = arrow.columns  # type: ignore[attr-defined]
    return Table(tuple(arrow.column_names),  # type: ignore[attr-defined]
                 tuple(zip(*[c.to_pylist() for c in columns], strict=True)))


def _answer(clause: MatchRecognize, table: Table) -> Table | tuple[str, str | None]:
    """The output table, or the error as (class, code); a spent budget is no answer."""
    try:
        return recognize(clause, table, budget=Budget(limit=100_000))
    except BudgetExceeded:
        assume(False)
        raise
    except KleeneError as err:
        return type(err).__name__, getattr(err, "code", None)


def _reads_order_key(clause: MatchRecognize) -> bool:
    """Whether an expression of ``clause`` other than its ORDER BY reads the order key."""
    keys = {id(k.expr) for k in clause.order_by}
    return any(isinstance(x, Column) and x.name.upper() == ORDER
               for e in expressions_of(clause) if id(e) not in keys for x in walk(e))


def _plus(value: object, n: int) -> object:
    """An order key moved by ``n`` (NULL stays NULL)."""
    assert value is None or isinstance(value, int), value
    return None if value is None else value + n


def _partitioned(clause: MatchRecognize) -> MatchRecognize:
    return dataclasses.replace(clause, partition_by=(Column(PARTITION),))


def _multiset(table: Table) -> Counter[str]:
    return Counter(repr(row) for row in table.rows)


def _parts(table: Table) -> dict[object, list[tuple[object, ...]]]:
    """The rows of each partition key value (NULL one of them), each in input order."""
    p = table.index(PARTITION)
    out: dict[object, list[tuple[object, ...]]] = {}
    for row in table.rows:
        out.setdefault(row[p], []).append(row)
    return out


@pytest.mark.slow
@SETTINGS
@given(clause=CLAUSES, arrow=input_tables())
def test_shifting_the_order_key_shifts_only_its_column(clause, arrow) -> None:
    assume(not _reads_order_key(clause))
    table = _table(arrow)
    t = table.index(ORDER)
    shifted = Table(table.names, tuple(
        tuple(_plus(v, SHIFT) if i == t else v for i, v in enumerate(row))
        for row in table.rows))
    expected, got = _answer(clause, table), _answer(clause, shifted)
    if not isinstance(expected, Table) or not isinstance(got, Table):
        assert got == expected
        return
    assert got.names == expected.names
    back = [i for i, n in enumerate(got.names) if n.upper() == ORDER]
    assert len(back) <= 1     # the key's own column, under ALL ROWS PER MATCH
    unshifted = tuple(tuple(_plus(v, -SHIFT) if i in back else v
                            for i, v in enumerate(row)) for row in got.rows)
    assert unshifted == expected.rows


@pytest.mark.slow
@SETTINGS
@given(clause=CLAUSES, arrow=input_tables(), data=st.data())
def test_moving_or_interleaving_whole_partitions_keeps_the_rows(clause, arrow, data) -> None:
    clause = _partitioned(clause)
    table = _table(arrow)
    parts = list(_parts(table).values())
    order = data.draw(st.permutations(range(len(parts))), label="partition order")
    if data.draw(st.booleans(), label="interleave"):
        # a random merge of the partitions, each keeping its own rows' order
        queues = [list(parts[i]) for i in order]
        rows: list[tuple[object, ...]] = []
        while any(queues):
            k = data.draw(st.sampled_from([i for i, q in enumerate(queues) if q]), label="next")
            rows.append(queues[k].pop(0))
    else:
        rows = [row for i in order for row in parts[i]]
    moved = Table(table.names, tuple(rows))
    expected, got = _answer(clause, table), _answer(clause, moved)
    if not isinstance(expected, Table) or not isinstance(got, Table):
        assert type(got) is type(expected)    # an error in one partition, whichever first
        return
    assert got.names == expected.names
    assert _multiset(got) == _multiset(expected)


@pytest.mark.slow
@SETTINGS
@given(clause=CLAUSES, arrow=input_tables())
def test_the_whole_answer_is_the_answers_of_its_partitions(clause, arrow) -> None:
    clause = _partitioned(clause)
    table = _table(arrow)
    whole = _answer(clause, table)
    answers = [_answer(clause, Table(table.names, tuple(rows)))
               for rows in _parts(table).values()]
    errors = [a for a in answers if not isinstance(a, Table)]
    if not isinstance(whole, Table):
        assert whole in errors
        return
    assert errors == []
    together: Counter[str] = Counter()
    for a in answers:
        assert isinstance(a, Table) and a.names == whole.names
        together += _multiset(a)
    assert together == _multiset(whole)
