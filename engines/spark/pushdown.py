"""Conditions compiled to Spark Column expressions: the filter pushdown of
seed 001 Thm 1.

A condition over one event variable (the filter of
:mod:`kleene.reference.ses.filtering`, a property of one variable) becomes a
``pyspark.sql.Column`` so that irrelevant events never leave the JVM. The
translation keeps the reference's three-valued semantics exactly: Spark SQL's
``AND``/``OR``/``NOT`` over NULL are Kleene's strong logic, a missing value is
NULL, and a comparison between values of different kinds (string against
number, boolean against either) is *unknown* in the reference, so it compiles
to a NULL literal instead of Spark's implicit cast.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kleene.reference.conditions import (
    LIKE,
    Agg,
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Or,
    Prev,
    Term,
)
from kleene.reference.errors import PatternError, Unsupported

_NUMERIC = ("byte", "short", "int", "integer", "long", "bigint", "float", "double", "decimal")


def kind_of_spark_type(type_name: str) -> str:
    """The reference's value kind (``num``, ``str``, ``bool``) of a Spark SQL type name."""
    name = type_name.lower()
    if name.startswith(_NUMERIC):
        return "num"
    if name.startswith("boolean"):
        return "bool"
    return "str"


def _const_kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    return "num" if isinstance(value, (int, float)) else "str"


class Pushdown:
    """Compiles conditions over the columns ``schema`` (column name → Spark type name)."""

    def __init__(self, schema: Mapping[str, str], *, ts: str = "ts", type_: str = "type") -> None:
        self.schema = dict(schema)
        self.aliases = {"ts": ts, "type": type_}

    def column_of(self, t: Attr) -> str:
        name = self.aliases.get(t.attr, t.attr)
        if name not in self.schema:
            raise PatternError(f"the pattern reads attribute {t.attr!r} ({t.var}.{t.attr}) but the "
                               f"events have no such column; columns: "
                               f"{', '.join(sorted(self.schema))}")
        return name

    def _kind(self, t: Term) -> str:
        if isinstance(t, Const):
            return _const_kind(t.value)
        assert isinstance(t, Attr)
        return kind_of_spark_type(self.schema[self.column_of(t)])

    def term(self, t: Term) -> Any:
        from pyspark.sql import functions as F

        if isinstance(t, (Prev, Agg)):
            raise Unsupported(f"{type(t).__name__} cannot be evaluated on a single event")
        if isinstance(t, Const):
            return F.lit(t.value)
        return F.col(self.column_of(t))

    def compile(self, c: Condition) -> Any:
        """The Column whose SQL truth value equals the reference's ``evaluate`` on each row."""
        from pyspark.sql import functions as F

        if isinstance(c, Cmp) and c.op == LIKE:
            raise Unsupported("LIKE is not pushed to Spark: its rlike reads Java's regex "
                              "dialect, not RE2's (engines/spark/plan.py drops such a filter)")
        if isinstance(c, Cmp):
            left, right = self.term(c.left), self.term(c.right)
            if self._kind(c.left) != self._kind(c.right):
                return F.lit(None).cast("boolean")
            return {"=": left == right, "!=": left != right, "<": left < right,
                    "<=": left <= right, ">": left > right, ">=": left >= right}[c.op]
        if isinstance(c, And):
            out = self.compile(c.parts[0])
            for part in c.parts[1:]:
                out = out & self.compile(part)
            return out
        if isinstance(c, Or):
            out = self.compile(c.parts[0])
            for part in c.parts[1:]:
                out = out | self.compile(part)
            return out
        if isinstance(c, Not):
            return ~self.compile(c.part)
        return F.lit(c.value)


def to_column(c: Condition, schema: Mapping[str, str], **names: str) -> Any:
    """``c`` as a Column over a DataFrame with ``schema`` (see :class:`Pushdown`)."""
    return Pushdown(schema, **names).compile(c)
