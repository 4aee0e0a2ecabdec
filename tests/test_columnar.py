"""The columnar event plane (kleene.data.columnar): a stream held as Arrow
columns gives the reference exactly the events of the rows, and every engine
reports on it exactly the reference's matches (the oracle reads the events
built from the same columns; the engines read the columns).

Expected values come from the reference (``holds``, the policies) and from
the events written in each test.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_matches, reported_matches
from kleene.conformance.strategies import ses_patterns, streams
from kleene.data.columnar import columns_of
from kleene.engines.columns import ArrowColumns
from kleene.engines.protocol import Engine, claims_policy
from kleene.engines.registry import engine, engine_names
from kleene.reference.budget import Budget
from kleene.reference.conditions import And, Attr, Cmp, Const, Not, Or, holds
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Event, Stream
from kleene.reference.ses.filtering import EVENT
from kleene.reference.ses.pattern import SESPattern
from tests.helpers import columnar

SES_ENGINES = [n for n in engine_names() if n.startswith(("ses-", "windows"))]


@given(stream=streams(min_size=0, max_size=12))
def test_rows_of_the_columns_are_the_events(stream):
    c = columnar(stream)
    assert len(c) == len(stream)
    assert c.events == stream.events
    assert [c[i] for i in range(len(c))] == list(stream)
    if len(stream):
        assert c[-1] == stream[-1]


def test_mixed_kinds_sparse_columns_and_types():
    s = Stream((Event(0, 0, "A", {"x": 1, "y": "a"}), Event(1, 1.5, None, {"x": 2.5, "z": True}),
                Event(2, 2, "B", {"x": "b", "y": "c"})))
    c = columns_of(s.events)
    assert c.kinds == {"x": "text", "y": "str", "z": "bool"}
    assert Stream.from_columns(c).events == s.events
    assert list(Stream.from_columns(c)[1].attrs) == ["x", "z"]     # y and absent: absent


def test_rows_taken_are_those_events_renumbered():
    # the rows a filter keeps (a Spark slice, srt's parts): each the event of its row,
    # positions 0.., a sparse attribute still absent where the row lacks it
    s = Stream((Event(0, 0, "A", {"x": 1, "y": "a"}), Event(1, 1.5, None, {"x": 2.5, "z": True}),
                Event(2, 2, "B", {"x": "b", "y": "c"}), Event(3, 4, "A", {"x": 7, "y": "d"})))
    taken = columns_of(s.events).take(np.array([1, 3]))
    assert Stream.from_columns(taken).events == (Event(0, 1.5, None, {"x": 2.5, "z": True}),
                                                 Event(1, 4, "A", {"x": 7, "y": "d"}))
    assert len(columns_of(s.events).take([])) == 0


_TERMS = st.one_of(
    st.sampled_from([Attr(EVENT, a) for a in ("L", "ID", "V", "ts", "type", "nope", "M")]),
    st.sampled_from([Const(v) for v in ("A", "B", 0, 1, 2.5, True, "1")]))


@st.composite
def conditions(draw: st.DrawFn, depth: int = 2):
    if depth == 0 or draw(st.booleans()):
        return Cmp(draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">="])), draw(_TERMS),
                   draw(_TERMS))
    kind = draw(st.sampled_from(["and", "or", "not"]))
    if kind == "not":
        return Not(draw(conditions(depth - 1)))
    parts = tuple(draw(st.lists(conditions(depth - 1), min_size=2, max_size=3)))
    return And(parts) if kind == "and" else Or(parts)


_MIXED = st.fixed_dictionaries({"L": st.sampled_from(["A", "B", "C"]),
                                "ID": st.integers(0, 2),
                                "V": st.sampled_from([0, 1, 2.5, "A", "x", None]),
                                "M": st.sampled_from([1, 2.5, None])})


@given(stream=streams(min_size=1, max_size=10, attributes=_MIXED), c=conditions())
def test_conditions_over_arrow_columns_are_three_valued_as_holds(stream, c):
    got = ArrowColumns(columns_of(stream.events)).holds(c)
    expected = np.array([holds(c, {EVENT: (e,)}) for e in stream])
    assert got.tolist() == expected.tolist()


def equals_the_reference_on_columns(eng: Engine, pattern: SESPattern, stream: Stream,
                                    policy: str) -> None:
    """``eng`` over ``stream``'s columns reports the reference's matches."""
    try:
        expected = reference_matches(pattern, stream, policy, budget=Budget(limit=60_000))
    except BudgetExceeded:
        reject()
    s = columnar(stream)
    assert_same_matches(eng, pattern=pattern, stream=s,
                        got=reported_matches(eng, policy, pattern, s), expected=expected,
                        policy=policy)


@pytest.mark.parametrize("name", SES_ENGINES)
@given(pattern=ses_patterns(max_sets=3, max_vars=4), stream=streams(min_size=1, max_size=9),
       policy=st.sampled_from(["any", "next"]))
def test_engines_on_columns_report_the_references_matches(name, pattern, stream, policy):
    eng = engine(name)
    if not claims_policy(eng, "ses", policy):
        return
    equals_the_reference_on_columns(eng, pattern, stream, policy)


_CELLS = st.one_of(
    st.sampled_from(["0", "-12", "+3", " 12 ", "0012", "1.5", "27.8500", ".5", "5.", "1e3",
                     "1E-2", "-1.5e+3", "nan", "inf", "-inf", "Infinity", "1e999", "1_000",
                     "0x10", "1.5e", "١٢", "12a", "INTC", "", " ", "9223372036854775808",
                     "\t7\n"]),
    st.text(alphabet="0123456789.eE+- x", max_size=6))


@given(cells=st.lists(st.one_of(st.none(), _CELLS), min_size=1, max_size=6))
def test_a_text_column_is_typed_as_text_value_types_each_cell(cells):
    import pyarrow as pa

    from kleene.data.textvalues import TEXT_KIND, text_value, typed_column

    arr, kind = typed_column(pa.array(cells, pa.string()))
    got = [v if v is None or kind != TEXT_KIND else text_value(v) for v in arr.to_pylist()]
    expected = [None if c is None else text_value(c) for c in cells]
    assert got == expected
    assert [type(v) for v in got] == [type(v) for v in expected]


@pytest.mark.parametrize("rows", [1, 2, 3])
@given(pattern=ses_patterns(max_sets=3, max_vars=3), stream=streams(min_size=1, max_size=9),
       policy=st.sampled_from(["any", "next"]))
def test_windows_over_small_batches_of_columns(rows, pattern, stream, policy):
    # Batches of 1-3 rows: the pruning (engines/windows/pruning.py) decides events
    # across batch boundaries.
    from kleene.engines.windows.engine import WindowsEngine

    eng = WindowsEngine(name="windows+ses-small", rows=rows)
    if not claims_policy(eng, "ses", policy):
        return
    equals_the_reference_on_columns(eng, pattern, stream, policy)
