"""Filter pushdown (seed 001 Thm 1 as a Spark Column) agrees with the reference's
three-valued evaluation on generated conditions and rows, NULLs and mixed kinds included."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.engines.spark.pushdown import to_column
from kleene.reference.conditions import And, Attr, Cmp, Condition, Const, Not, Or, Truth, holds
from kleene.reference.errors import PatternError
from kleene.reference.events import Event

pytestmark = pytest.mark.spark

SCHEMA = {"ts": "bigint", "x": "bigint", "y": "double", "s": "string", "b": "boolean"}
DDL = "ts BIGINT, x BIGINT, y DOUBLE, s STRING, b BOOLEAN"

rows = st.fixed_dictionaries({
    "ts": st.integers(0, 10),
    "x": st.none() | st.integers(-3, 3),
    "y": st.none() | st.sampled_from([-1.5, 0.0, 2.0, 3.0]),
    "s": st.none() | st.sampled_from(["", "a", "b", "ab", "é"]),
    "b": st.none() | st.booleans(),
})
consts = st.one_of(st.integers(-3, 3), st.sampled_from([-1.5, 2.0]),
                   st.sampled_from(["a", "b", ""]),
                   st.booleans())
terms = st.one_of(st.builds(Attr, st.just("e"), st.sampled_from(list(SCHEMA))),
                  st.builds(Const, consts))
comparisons = st.builds(Cmp, st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), terms, terms)
conditions = st.recursive(
    st.one_of(comparisons, st.builds(Truth, st.booleans())),
    lambda kids: st.one_of(
        st.builds(And, st.lists(kids, min_size=2, max_size=3).map(tuple)),
        st.builds(Or, st.lists(kids, min_size=2, max_size=3).map(tuple)),
        st.builds(Not, kids)),
    max_leaves=5)


@settings(max_examples=4, deadline=None)
@given(st.lists(conditions, min_size=80, max_size=80), st.lists(rows, min_size=25, max_size=25))
def test_pushdown_equals_reference(spark, batch: list[Condition], data: list[dict[str, Any]]):
    df = spark.createDataFrame([tuple(r[k] for k in SCHEMA) for r in data], DDL)
    cols = [to_column(c, SCHEMA).alias(f"c{i}") for i, c in enumerate(batch)]
    got = df.select(*cols).collect()
    for r, (row, out) in enumerate(zip(data, got, strict=True)):
        e = Event(r, row["ts"], None, {k: v for k, v in row.items() if k != "ts"})
        for i, c in enumerate(batch):
            expected = holds(c, {"e": (e,)})
            assert (out[i] is True) == expected, (c, row, out[i])


def test_missing_column_is_a_clear_error():
    with pytest.raises(PatternError, match="no such column"):
        to_column(Cmp("=", Attr("e", "nope"), Const(1)), SCHEMA)
