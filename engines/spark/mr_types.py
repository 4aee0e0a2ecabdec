"""The Spark schema of a ``MATCH_RECOGNIZE`` output, known from the query before any job.

``mapInArrow`` needs its output schema up front; the single process types an output column
from its values (:func:`kleene.data.sql.arrow_of`: an input column keeps its type, a
measure's type is inferred, a decimal's precision and scale from the digits it holds). On
Spark each output column is typed from the clause and the input's schema
(:func:`output_schema`), as the reference computes its values
(:mod:`kleene.reference.match_recognize.evaluation` and ``scalars``):

- the ``PARTITION BY``, ``ORDER BY`` and other input columns: their input types;
- ``CLASSIFIER()`` a string, ``MATCH_NUMBER()`` and ``COUNT`` a long;
- a column, ``FIRST``/``LAST``/``PREV``/``NEXT``, ``MIN``/``MAX``: the column's type;
- ``SUM`` of integers a long, of floats a double, of ``decimal(p, s)`` ``decimal(38, s)``;
  ``AVG`` of integers or floats a double;
- ``+ - * %`` of integers a long, with a float a double, of exact decimals
  ``decimal(38, s)`` with the scale the exact arithmetic gives (the larger of the two,
  their sum for ``*``); comparisons, ``AND OR NOT``, ``IS NULL``, ``BETWEEN``, ``IN``,
  ``LIKE`` a boolean; ``||`` a string; ``CASE``/``COALESCE``/``NULLIF`` the type their
  branches share (integers among decimals a decimal, among floats a double);
- ``CAST(x AS T)`` the type ``T`` names (``DECIMAL(p, s)`` with its scale).

Where the reference's type depends on the values (``/`` or ``AVG`` of exact numbers: a
decimal whose scale is the quotient's), or names no Spark type (``NULL`` on every row, a
type Spark has not), the query is refused in one line, before any job, naming the measure
and the ``CAST`` that fixes it. The values are the reference's: each task casts its output
to this schema (a decimal gains trailing zeros, never loses a digit).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import Decimal

import pyarrow as pa
from pyspark.sql import types as T

from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.match_recognize.ast import (
    Aggregate,
    Between,
    Binary,
    Call,
    Case,
    Cast,
    Classifier,
    Column,
    Expr,
    InList,
    IsNull,
    Like,
    Literal,
    MatchNumber,
    MatchRecognize,
    Navigation,
    Unary,
)
from kleene.reference.match_recognize.printer import format_expr
from kleene.reference.match_recognize.scalars import APPROXIMATE, DECIMALS, INTEGERS, STRINGS

LONG, DOUBLE, STRING, BOOLEAN = T.LongType(), T.DoubleType(), T.StringType(), T.BooleanType()
_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
_FRACTIONAL = (T.FloatType, T.DoubleType)
_COMPARISONS = {"=", "<>", "!=", "<", "<=", ">", ">=", "AND", "OR"}
_TEXT_FUNCTIONS = {"UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "SUBSTRING", "SUBSTR",
                   "REPLACE", "REPEAT"}
#: How an expression's type is found, and how a measure is refused.
Of = Callable[[Expr], T.DataType]
Refuse = Callable[[str], Exception]
_TYPE = re.compile(r"\s*([A-Z][A-Z0-9 ]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*")


class Untyped(Unsupported):
    """A measure whose Spark type the query does not fix (the module docstring)."""


def output_schema(clause: MatchRecognize, schema: T.StructType) -> T.StructType:
    """The output's columns and their Spark types (the reference's ``Recognizer.names``:
    ``ONE ROW PER MATCH`` the partition columns then the measures; ``ALL ROWS PER MATCH``
    the partition and order columns, the measures, then the other input columns)."""
    columns = {f.name.upper(): f for f in schema.fields}
    by = [_input(e, columns, "PARTITION BY") for e in clause.partition_by]
    measures = [T.StructField(m.name, measure_type(m.name, m.expr, columns))
                for m in clause.measures]
    if clause.rows_per_match == "ONE":
        return T.StructType(by + measures)
    order = [_input(k.expr, columns, "ORDER BY") for k in clause.order_by
             if isinstance(k.expr, Column)]
    head = list({f.name: f for f in by + order}.values())
    rest = [f for f in schema.fields if f.name not in {h.name for h in head}]
    return T.StructType(head + measures + rest)


def _input(e: Expr, columns: Mapping[str, T.StructField], clause: str) -> T.StructField:
    if not isinstance(e, Column) or e.name.upper() not in columns:
        written = e.name if isinstance(e, Column) else format_expr(e)
        raise Unsupported(f"{clause} {written}: the DataFrame has no such column "
                          f"(it has {', '.join(f.name for f in columns.values())})")
    return columns[e.name.upper()]


def measure_type(name: str, e: Expr, columns: Mapping[str, T.StructField]) -> T.DataType:
    """The Spark type of measure ``name`` (module docstring), or :class:`Untyped`."""
    kind = type_of(e, columns, name)
    if isinstance(kind, T.NullType):
        raise Untyped(f"MEASURES {name} is NULL on every row, and a Spark column needs a "
                      f"type: CAST({format_expr(e)} AS <type>)")
    return kind


def type_of(e: Expr, columns: Mapping[str, T.StructField], name: str) -> T.DataType:
    """The Spark type of ``e``'s values (``NullType``: NULL whatever the rows)."""
    def of(x: Expr) -> T.DataType:
        return type_of(x, columns, name)

    def refuse(why: str) -> Untyped:
        return Untyped(f"MEASURES {name}: {why}; Spark needs each column's type before the "
                       f"job: CAST it (CAST({format_expr(e)} AS DOUBLE), say)")

    if isinstance(e, Literal):
        return _literal(e.value)
    if isinstance(e, Column):
        field = columns.get(e.name.upper())
        if field is None:
            raise refuse(f"{e.name} is no column of the DataFrame")
        return field.dataType
    if isinstance(e, Navigation):
        return of(e.operand)
    if isinstance(e, Classifier):
        return STRING
    if isinstance(e, MatchNumber):
        return LONG
    if isinstance(e, Aggregate):
        return _aggregate(e, of, refuse)
    if isinstance(e, Unary):
        return BOOLEAN if e.op == "NOT" else of(e.operand)
    if isinstance(e, IsNull | Between | InList | Like):
        return BOOLEAN
    if isinstance(e, Binary):
        return _binary(e.op.upper(), of(e.left), of(e.right), refuse)
    if isinstance(e, Case):
        return _common([of(v) for _, v in e.whens]
                       + [of(e.otherwise) if e.otherwise is not None else T.NullType()],
                       refuse)
    if isinstance(e, Cast):
        return _cast(e.type, refuse)
    if isinstance(e, Call):
        return _call(e.name.upper(), [of(a) for a in e.args], refuse)
    raise refuse(f"{format_expr(e)} has no type known before the job")


def _literal(value: object) -> T.DataType:
    if value is None:
        return T.NullType()
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return LONG
    if isinstance(value, float):
        return DOUBLE
    if isinstance(value, str):
        return STRING
    assert isinstance(value, Decimal)
    return T.DecimalType(38, max(0, -int(value.as_tuple().exponent)))


def _aggregate(e: Aggregate, of: Of, refuse: Refuse) -> T.DataType:
    if e.name == "COUNT":
        return LONG
    assert e.operand is not None
    kind: T.DataType = of(e.operand)
    if e.name in ("MIN", "MAX"):
        return kind
    if e.name == "ARRAY_AGG":
        return T.ArrayType(kind)
    if isinstance(kind, T.NullType):
        return kind
    if isinstance(kind, _INTEGRAL):
        return LONG if e.name == "SUM" else DOUBLE
    if isinstance(kind, _FRACTIONAL):
        return DOUBLE
    if isinstance(kind, T.DecimalType) and e.name == "SUM":
        return T.DecimalType(38, kind.scale)
    raise refuse(f"the {e.name} of {kind.simpleString()} values is typed by its values "
                 "(an exact quotient's scale)" if isinstance(kind, T.DecimalType) else
                 f"{e.name} of {kind.simpleString()} values")


def _binary(op: str, left: T.DataType, right: T.DataType, refuse: Refuse) -> T.DataType:
    if op in _COMPARISONS:
        return BOOLEAN
    if op == "||":
        return STRING
    if isinstance(left, T.NullType) or isinstance(right, T.NullType):
        return right if isinstance(left, T.NullType) else left
    if isinstance(left, _FRACTIONAL) or isinstance(right, _FRACTIONAL):
        return DOUBLE
    exact = [k for k in (left, right) if isinstance(k, (*_INTEGRAL, T.DecimalType))]
    if len(exact) < 2:
        raise refuse(f"{left.simpleString()} {op} {right.simpleString()}")
    if op == "/":
        raise refuse("the quotient of exact numbers is typed by its values (its scale)")
    scales = [k.scale if isinstance(k, T.DecimalType) else 0 for k in (left, right)]
    if not any(isinstance(k, T.DecimalType) for k in (left, right)):
        return LONG
    scale = sum(scales) if op == "*" else max(scales)
    if scale > 38:
        raise refuse(f"{op} gives {scale} digits after the point")
    return T.DecimalType(38, scale)


def _common(kinds: list[T.DataType], refuse: Refuse) -> T.DataType:
    present = [k for k in kinds if not isinstance(k, T.NullType)]
    if not present:
        return T.NullType()
    if all(k == present[0] for k in present):
        return present[0]
    if all(isinstance(k, _INTEGRAL) for k in present):
        return LONG
    if all(isinstance(k, (*_INTEGRAL, *_FRACTIONAL, T.DecimalType)) for k in present):
        if any(isinstance(k, _FRACTIONAL) for k in present):
            return DOUBLE
        return T.DecimalType(38, max(k.scale for k in present if isinstance(k, T.DecimalType)))
    raise refuse("its branches have different types ("
                 f"{', '.join(sorted({k.simpleString() for k in present}))})")


def _cast(type_: str, refuse: Refuse) -> T.DataType:
    m = _TYPE.fullmatch(type_.upper())
    base = m.group(1) if m else type_.upper()
    if base in INTEGERS:
        return LONG
    if base in APPROXIMATE:
        return DOUBLE
    if base in STRINGS:
        return STRING
    if base in ("BOOLEAN", "BOOL"):
        return BOOLEAN
    if base == "DATE":
        return T.DateType()
    if base == "TIMESTAMP":
        return T.TimestampNTZType()
    if base in DECIMALS and m is not None and m.group(2) is not None:
        return T.DecimalType(int(m.group(2)), int(m.group(3) or 0))
    raise refuse(f"CAST to {type_} names no Spark type"
                 if base not in DECIMALS else f"CAST to {type_} keeps the values' own scale")


def _call(name: str, args: list[T.DataType], refuse: Refuse) -> T.DataType:
    if name in _TEXT_FUNCTIONS:
        return STRING
    if name in ("LENGTH", "CHAR_LENGTH", "LEN", "SIGN"):
        return LONG
    if name in ("POWER", "SQRT"):
        return DOUBLE
    if name in ("COALESCE", "NULLIF"):
        return _common(args if name == "COALESCE" else args[:1], refuse)
    if name in ("ABS", "MOD") and args and not isinstance(args[0], T.DecimalType):
        return _binary("%", args[0], args[-1], refuse) if name == "MOD" else args[0]
    if name in ("FLOOR", "CEIL", "CEILING") and args and isinstance(args[0], _INTEGRAL):
        return LONG
    raise refuse(f"{name}() has no type known before the job here")


def typed(out: pa.Table, schema: pa.Schema) -> pa.Table:
    """The matcher's output ``out`` cast to ``schema``, the one known before the job."""
    arrays = []
    for column, target in zip(out.columns, schema, strict=True):
        try:
            arrays.append(column.cast(target.type))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
            raise KleeneError(f"output column {target.name}: its values do not fit "
                              f"{target.type} ({' '.join(str(err).split())})") from None
    return pa.Table.from_arrays(arrays, schema=schema)
