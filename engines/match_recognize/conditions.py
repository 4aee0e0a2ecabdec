"""``DEFINE`` conditions over whole Arrow columns, where a condition is row-local
(:func:`kleene.reference.match_recognize.evaluation.row_local`, re-exported here).
``PREV(e, k)``/``NEXT(e, k)`` of a row-local ``e`` read the row ``k`` before/after inside
the partition (TR §4.11): a column shifted within partitions, NULL across a partition's
edge.

:func:`column_truth` evaluates a row-local condition on the whole sorted input at once
with pyarrow's kernels, where they compute exactly what the reference's scalars
(:mod:`kleene.reference.match_recognize.scalars`) compute and can raise no data
exception: columns and literals of integers (``int64``, overflow checked), floats,
strings and booleans; ``+ - *`` and unary signs on numbers, ``ABS``; comparisons of two
numbers, two strings or two booleans; ``AND OR NOT`` (three-valued, Kleene's
``and_kleene``/``or_kleene`` are §6.39's tables), ``IS [NOT] NULL``, ``[NOT] BETWEEN``,
``[NOT] IN``. NULL is not true (``holds``: TRUE only). Anything else (a decimal, a
division, which may divide by zero, ``CASE``, ``CAST``, ``LIKE``, a function, two kinds
compared, which is the reference's ``type-mismatch``) gives ``None``: the caller asks
the reference's evaluator row by row, when the run reaches the row, so a data exception
comes exactly where the reference's does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.reference.match_recognize.ast import (
    Between,
    Binary,
    Call,
    Column,
    Expr,
    InList,
    IsNull,
    Literal,
    Navigation,
    Unary,
)
from kleene.reference.match_recognize.evaluation import row_local as row_local

#: A value over every row: its array (or scalar) and its kind (``int float str bool
#: null``).
Vector = tuple[pa.Array | pa.Scalar, str]

_COMPARE = {"=": pc.equal, "<>": pc.not_equal, "!=": pc.not_equal, "<": pc.less,
            "<=": pc.less_equal, ">": pc.greater, ">=": pc.greater_equal}
_ARITHMETIC = {"+": pc.add_checked, "-": pc.subtract_checked, "*": pc.multiply_checked}


@dataclass(frozen=True)
class Frame:
    """The sorted input: its columns by upper-case name and each row's partition; ``read``
    each column and navigation over it computed once, for every condition that reads it
    (the V shape's ``PREV(price)`` is read by ``DOWN`` and by ``UP``)."""

    columns: Mapping[str, pa.Array]
    partition: np.ndarray
    read: dict[Expr, Vector | None] = field(default_factory=dict, compare=False)

    @property
    def rows(self) -> int:
        return len(self.partition)


def column_truth(e: Expr, frame: Frame) -> np.ndarray | None:
    """Whether each row satisfies the row-local condition ``e`` (TRUE; NULL and FALSE are
    not), or ``None`` where the kernels would not compute the reference's values."""
    try:
        vector = _vector(e, frame)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OverflowError):
        return None  # an integer overflow: the reference's integers do not overflow
    if vector is None or vector[1] not in ("bool", "null"):
        return None
    value, kind = vector
    if kind == "null":
        return np.zeros(frame.rows, dtype=bool)
    if isinstance(value, pa.Scalar):
        return np.full(frame.rows, value.as_py() is True)
    return np.asarray(pc.fill_null(value, False).to_numpy(zero_copy_only=False), dtype=bool)


def conjuncts(e: Expr) -> list[Expr]:
    """The operands of ``e``'s ``AND``s, in the order the reference evaluates them (left
    before right, at every level): ``[e]`` if ``e`` is no ``AND``."""
    if isinstance(e, Binary) and e.op.upper() == "AND":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def refuted(e: Expr, frame: Frame, local: Callable[[Expr], bool]) -> np.ndarray | None:
    """The rows where ``e`` is FALSE by its leading conjuncts alone (``None``: no leading
    conjunct is computed): those before the first that is not ``local`` (reads the match
    so far) or that the kernels do not compute, each FALSE at the row.

    The rule, exact for any condition: the reference evaluates ``a AND b`` by ``a`` first
    and answers FALSE without evaluating ``b`` when ``a`` is FALSE
    (:func:`kleene.reference.match_recognize.evaluation.holds`; a FALSE operand makes each
    ``AND`` around it FALSE, as its left operand by that rule, as its right by §6.39's
    table); the conjuncts before it were evaluated without a data exception (the kernels
    compute a conjunct only where the reference's evaluation of it raises none). So at such
    a row the condition is FALSE, nothing after that conjunct is evaluated, and the row
    cannot be mapped to the variable. A NULL conjunct refutes nothing: ``NULL AND x`` is
    FALSE or NULL by ``x``, which may raise, so the reference is asked there."""
    out: np.ndarray | None = None
    for c in conjuncts(e):
        if not local(c):
            break
        try:
            vector = _vector(c, frame)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OverflowError):
            break
        if vector is None or vector[1] not in ("bool", "null"):
            break
        value, kind = vector
        if kind == "null":
            continue
        if isinstance(value, pa.Scalar):
            false = np.full(frame.rows, value.as_py() is False)
        else:
            false = np.asarray(pc.fill_null(pc.invert(value), False).to_numpy(
                zero_copy_only=False), dtype=bool)
        out = false if out is None else out | false
    return out


def _kind(t: pa.DataType) -> str | None:
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "str"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_null(t):
        return "null"
    return None


_WIDE = {"int": pa.int64(), "float": pa.float64(), "str": pa.string(), "bool": pa.bool_()}


def _vector(e: Expr, f: Frame) -> Vector | None:
    if isinstance(e, Literal):
        return _literal(e.value)
    if isinstance(e, Column | Navigation):
        if e not in f.read:
            f.read[e] = _read(e, f)
        return f.read[e]
    return _computed(e, f)


def _read(e: Column | Navigation, f: Frame) -> Vector | None:
    """A column, or a navigation over a row-local expression, over every row."""
    if isinstance(e, Column):
        array = f.columns.get(e.name.upper())
        kind = _kind(array.type) if array is not None else None
        if array is None or kind is None:
            return None
        if kind == "null" or array.type == _WIDE[kind]:
            return array, kind
        return array.cast(_WIDE[kind]), kind
    else:
        inner = _vector(e.operand, f)
        if inner is None:
            return None
        value = inner[0]
        if isinstance(value, pa.Scalar):  # a constant is NULL off the partition too
            value = pa.repeat(value, f.rows)
        return _shift(value, e.offset if e.kind == "PREV" else -e.offset, f), inner[1]


def _computed(e: Expr, f: Frame) -> Vector | None:
    if isinstance(e, Unary):
        return _unary(e, f)
    if isinstance(e, Binary):
        return _binary(e.op.upper(), e.left, e.right, f)
    if isinstance(e, IsNull):
        inner = _vector(e.operand, f)
        if inner is None:
            return None
        test = pc.is_valid if e.negated else pc.is_null
        if isinstance(inner[0], pa.Scalar):
            return pa.scalar(inner[0].is_valid == e.negated), "bool"
        return test(inner[0]), "bool"
    if isinstance(e, Between):
        inside = _logic("AND", _binary("<=", e.low, e.operand, f),
                        _binary("<=", e.operand, e.high, f))
        return _not(inside) if e.negated else inside
    if isinstance(e, InList):
        equals = [_binary("=", e.operand, item, f) for item in e.items]
        found = equals[0]
        for equal in equals[1:]:
            found = _logic("OR", found, equal)  # None (not computed) if either is
        return _not(found) if e.negated else found
    if isinstance(e, Call) and e.name.upper() == "ABS" and len(e.args) == 1:
        inner = _vector(e.args[0], f)
        if inner is None or inner[1] not in ("int", "float", "null"):
            return None
        return (pc.abs_checked(inner[0]) if inner[1] != "null" else inner[0]), inner[1]
    return None


def _literal(value: object) -> Vector | None:
    if value is None:
        return pa.scalar(None), "null"
    if isinstance(value, bool):
        return pa.scalar(value), "bool"
    if isinstance(value, int):
        return (pa.scalar(value, pa.int64()), "int") if -2**63 <= value < 2**63 else None
    if isinstance(value, float):
        return pa.scalar(value, pa.float64()), "float"
    if isinstance(value, str):
        return pa.scalar(value, pa.string()), "str"
    assert isinstance(value, Decimal)
    return None


def _shift(array: pa.Array, by: int, f: Frame) -> pa.Array:
    """``array`` moved ``by`` rows later (PREV) or earlier (NEXT, ``by`` < 0) inside each
    partition: NULL where the row read lies outside the row's partition."""
    n = f.rows
    k = min(abs(by), n)
    if k == 0:
        return array
    nulls = pa.nulls(k, array.type)
    moved = pa.concat_arrays([nulls, array.slice(0, n - k)] if by > 0
                             else [array.slice(k), nulls])
    inside = np.zeros(n, dtype=bool)   # the row read is in the row's partition
    if by > 0:
        inside[k:] = f.partition[k:] == f.partition[:n - k]
    else:
        inside[:n - k] = f.partition[:n - k] == f.partition[k:]
    if inside.all():
        return moved
    return pc.if_else(pa.array(inside), moved, pa.scalar(None, array.type))


def _unary(e: Unary, f: Frame) -> Vector | None:
    inner = _vector(e.operand, f)
    if inner is None:
        return None
    value, kind = inner
    if e.op == "NOT":
        return _not(inner)
    if kind not in ("int", "float", "null"):
        return None
    if e.op == "-" and kind != "null":
        return pc.negate_checked(value), kind
    return inner


def _not(v: Vector | None) -> Vector | None:
    if v is None or v[1] not in ("bool", "null"):
        return None
    return (pc.invert(v[0]) if v[1] == "bool" else v[0]), v[1]


def _logic(op: str, a: Vector | None, b: Vector | None) -> Vector | None:
    if a is None or b is None or a[1] not in ("bool", "null") or b[1] not in ("bool", "null"):
        return None
    left = a[0] if a[1] == "bool" else pa.scalar(None, pa.bool_())
    right = b[0] if b[1] == "bool" else pa.scalar(None, pa.bool_())
    kernel = pc.and_kleene if op == "AND" else pc.or_kleene
    return kernel(left, right), "bool"


def _binary(op: str, left: Expr, right: Expr, f: Frame) -> Vector | None:
    if op in ("AND", "OR"):
        return _logic(op, _vector(left, f), _vector(right, f))
    a, b = _vector(left, f), _vector(right, f)
    if a is None or b is None:
        return None
    numbers = {"int", "float"}
    if op in _COMPARE:
        if a[1] == "null" or b[1] == "null":
            return pa.scalar(None, pa.bool_()), "null"
        if not ({a[1], b[1]} <= numbers or a[1] == b[1]):
            return None  # the reference's type-mismatch, where both are present
        x, y = _numeric_pair(a, b) if a[1] in numbers else (a[0], b[0])
        return _COMPARE[op](x, y), "bool"
    if op in _ARITHMETIC:
        if a[1] == "null" or b[1] == "null":
            return (pa.scalar(None), "null") if {a[1], b[1]} <= numbers | {"null"} else None
        if not {a[1], b[1]} <= numbers:
            return None
        x, y = _numeric_pair(a, b)
        kind = "int" if a[1] == b[1] == "int" else "float"
        return _ARITHMETIC[op](x, y), kind
    return None


def _numeric_pair(a: Vector, b: Vector) -> tuple[pa.Array | pa.Scalar, pa.Array | pa.Scalar]:
    """Two numbers of one Arrow type: floats if either is (the reference's rule)."""
    if a[1] == b[1]:
        return a[0], b[0]
    return a[0].cast(pa.float64()), b[0].cast(pa.float64())
