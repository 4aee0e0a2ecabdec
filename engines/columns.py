"""Properties evaluated over attribute columns: the filter of seed 001 Thm 1 and
the event bit vectors ē of Sec. 5, for a batch of events at once.

Sec. 5: "We use a bit vector, ē_i, of length m to mask each incoming event
e_i. Each position in the bit vector corresponds to a variable in P. If a bit
is 1, the event satisfies all properties of the corresponding variable". We
keep ē as an integer whose bit ``j`` (``1 << j``) stands for the j-th variable
v_{j+1} of the pattern (:func:`paper_bits` writes it in the paper's order, as
:func:`kleene.reference.ses.statistics.event_bits` does). Thm 1's filter
``Θp_v1(e) ∨ ... ∨ Θp_vm(e)`` is then ``ē ≠ 0``
(:func:`kleene.reference.ses.filtering.filter_condition` is the same
disjunction as a condition).

The properties are condition ASTs over one event (``v.A φ C``, and any
condition whose only references are attributes of ``v``); :class:`Columns`
evaluates them with numpy over the columns of a batch, with the reference's
three-valued semantics (:func:`kleene.reference.conditions.compare`): a
missing value or values of different kinds (string, number, boolean) make a
comparison *unknown*, ``AND``/``OR``/``NOT`` follow Kleene's strong logic
(encoded F = 0, U = 1, T = 2: ``AND`` is the minimum, ``OR`` the maximum,
``NOT`` is ``2 − x``), and a property holds only where it is true. Values are
compared as Python objects (object arrays), so numbers and strings compare
exactly as the reference compares them. A property that reads something else
(``prev``, aggregates: never a property of one event) is evaluated event by
event with :func:`~kleene.reference.conditions.holds`.

The same evaluation runs over the Arrow columns of a loaded stream
(:class:`ArrowColumns`, :class:`kleene.data.columnar.Columns`) without
building events: a column's kinds come from its type (``int``/``float`` are
numbers, strings, booleans; a *text* column's cells are numbers or strings
one by one, :func:`kleene.data.textvalues.text_kinds`), nulls are
missing, and each comparison runs with Arrow's kernels on the rows where both
sides have the same kind. Numbers are compared as floats there, so two
integers beyond 2**53 apart by less than their spacing may compare as the
reference would not (documented; no stream of ours has such integers).
``v.A LIKE 'regex'`` is known on text rows only; over events it is ``re.search`` of
:func:`kleene.reference.regex.python_pattern`, over Arrow ``match_substring_regex``,
which is RE2's ``PartialMatch`` (CORE's own test): on the regex subset the two agree
(:mod:`kleene.reference.regex`; tests/test_like.py draws patterns and strings).

Conventions: ``e`` an event, ``batch`` a sequence of events, ``n`` its length.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.data.columnar import Columns as EventColumns
from kleene.data.textvalues import BOOL_KIND, STR_KIND, TEXT_KIND, text_kinds
from kleene.data.timestamps import numeric_array
from kleene.engines.like_columns import found_in_arrow, found_in_objects
from kleene.reference.conditions import (
    LIKE,
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Or,
    Term,
    Truth,
    holds,
    like_pattern,
    rename,
)
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.ses.filtering import EVENT
from kleene.reference.ses.pattern import SESPattern

#: Kleene's strong logic on int8: false, unknown, true.
F, U, T = 0, 1, 2
#: The kinds of :func:`kleene.reference.conditions.compare`, as codes (``MISSING``: ``None``).
STR, NUM, BOOL, MISSING = 0, 1, 2, 3

#: The most variables an ē fits (an int64 bit vector).
MAX_VARIABLES = 62

_KIND_OF_TYPE = {str: STR, int: NUM, float: NUM, bool: BOOL, type(None): MISSING}
_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge}


def kind_code(value: object) -> int:
    """The kind of ``value`` as :func:`~kleene.reference.conditions.compare` reads it."""
    code = _KIND_OF_TYPE.get(type(value))
    if code is None:   # a subclass: the reference asks isinstance
        code = BOOL if isinstance(value, bool) else NUM if isinstance(value, (int, float)) \
            else STR
    return code


class _Column:
    """One attribute of a batch: its values (an object array) and their kinds."""

    def __init__(self, values: list[object]) -> None:
        self.values = np.empty(len(values), dtype=object)
        self.values[:] = values
        types = set(map(type, values))
        if len(types) == 1:
            self.kinds = np.full(len(values), kind_code(values[0]), dtype=np.int8)
        else:
            self.kinds = np.fromiter((kind_code(v) for v in values), dtype=np.int8,
                                     count=len(values))


def column_values(batch: Sequence[Event], name: str) -> list[object]:
    """``e.value(name)`` for every event of ``batch`` (``ts`` and ``type`` address the event)."""
    if name == "ts":
        return [e.ts for e in batch]
    if name == "type":
        return [e.type for e in batch]
    return [e.attrs.get(name) for e in batch]


class Columns:
    """Conditions over the single event variable ``var``, evaluated over a batch."""

    def __init__(self, batch: Sequence[Event], var: str = EVENT) -> None:
        self.batch, self.var, self.n = batch, var, len(batch)
        self._columns: dict[str, _Column] = {}

    def column(self, name: str) -> _Column:
        if name not in self._columns:
            self._columns[name] = _Column(column_values(self.batch, name))
        return self._columns[name]

    def holds(self, c: Condition) -> np.ndarray:
        """Where ``c`` is true (a boolean array), as :func:`~kleene.reference.conditions.holds`
        says for each event bound to ``var``."""
        try:
            return self.truth(c) == T
        except Unsupported:
            return np.fromiter((holds(c, {self.var: (e,)}) for e in self.batch), dtype=bool,
                               count=self.n)

    def truth(self, c: Condition) -> np.ndarray:
        """The three-valued truth of ``c`` per event (int8: F, U or T)."""
        if isinstance(c, Cmp):
            return self._compare(c)
        if isinstance(c, And):
            return np.minimum.reduce([self.truth(p) for p in c.parts])
        if isinstance(c, Or):
            return np.maximum.reduce([self.truth(p) for p in c.parts])
        if isinstance(c, Not):
            return T - self.truth(c.part)
        if isinstance(c, Truth):
            return np.full(self.n, T if c.value else F, dtype=np.int8)
        raise Unsupported(f"cannot evaluate {type(c).__name__} over columns")

    def _operand(self, t: Term) -> tuple[object, object]:
        """Values and kinds of a term: arrays for a column, scalars for a constant."""
        if isinstance(t, Const):
            return t.value, kind_code(t.value)
        if isinstance(t, Attr) and t.var == self.var:
            col = self.column(t.attr)
            return col.values, col.kinds
        raise Unsupported(f"{t} is not an attribute of the single event {self.var!r}")

    def _compare(self, c: Cmp) -> np.ndarray:
        if c.op == LIKE:
            values, kinds = self._operand(c.left)
            text = np.broadcast_to(np.asarray(kinds) == STR, (self.n,))
            return _known_where(text, found_in_objects(values, text, like_pattern(c)))
        left, lk = self._operand(c.left)
        right, rk = self._operand(c.right)
        known = np.broadcast_to((np.asarray(lk) == rk) & (np.asarray(lk) != MISSING), (self.n,))
        out = np.full(self.n, U, dtype=np.int8)
        if known.all():
            out[:] = np.where(np.asarray(_OPS[c.op](left, right), dtype=bool), T, F)
        elif known.any():
            verdict = np.asarray(_OPS[c.op](_pick(left, known), _pick(right, known)), dtype=bool)
            out[known] = np.where(verdict, T, F)
        return out


_I64_MAX, _I64_MIN = 2**63 - 1, -(2**63)

#: Arrow's comparison kernels by operator.
_ARROW_OPS = {"=": pc.equal, "!=": pc.not_equal, "<": pc.less, "<=": pc.less_equal,
              ">": pc.greater, ">=": pc.greater_equal}


class ArrowColumns(Columns):
    """:class:`Columns` over the Arrow columns of a stream (no events are built).

    An operand is ``(kinds, values)``: the kind code of each row (or one code
    for a constant) and, per kind present, the values to compare (an Arrow
    array or scalar).
    """

    def __init__(self, columns: EventColumns, var: str = EVENT) -> None:
        self.columns, self.var, self.n = columns, var, len(columns)
        self._operands: dict[str, tuple[np.ndarray, dict[int, object]]] = {}

    @property
    def batch(self) -> list[Event]:   # type: ignore[override]
        """The events (built only when a condition cannot be evaluated over columns)."""
        return self.columns.events()

    def _attribute(self, name: str) -> tuple[np.ndarray, dict[int, object]]:
        if name not in self._operands:
            self._operands[name] = _arrow_operand(self.columns.column(name), self.n)
        return self._operands[name]

    def _compare(self, c: Cmp) -> np.ndarray:
        if c.op == LIKE:
            kinds, values = self._arrow_term(c.left)
            text = np.broadcast_to(kinds, (self.n,)) == STR
            return _known_where(text, found_in_arrow(values.get(STR), text, like_pattern(c)))
        lk, lv = self._arrow_term(c.left)
        rk, rv = self._arrow_term(c.right)
        lk_n = np.broadcast_to(lk, (self.n,))
        known = (lk_n == rk) & (lk_n != MISSING)
        out = np.full(self.n, U, dtype=np.int8)
        for kind in lv.keys() & rv.keys():
            sel = known & (lk_n == kind)
            if not sel.any():
                continue
            verdict = _exactly(c.op, lv[kind], rv[kind])
            if isinstance(verdict, pa.Scalar):
                out[sel] = T if verdict.as_py() else F
                continue
            got = np.asarray(pc.fill_null(verdict, False).to_numpy(zero_copy_only=False),
                             dtype=bool)
            out[sel] = np.where(got[sel], T, F)
        return out

    def _arrow_term(self, t: Term) -> tuple[np.ndarray | int, dict[int, object]]:
        if isinstance(t, Const):
            code = kind_code(t.value)
            # a number stays the Python number (exact at any size; _exactly compares it)
            return code, {code: t.value if code == NUM else pa.scalar(t.value)}
        if isinstance(t, Attr) and t.var == self.var:
            return self._attribute(t.attr)
        raise Unsupported(f"{t} is not an attribute of the single event {self.var!r}")


#: ``c op x`` is ``x flip[op] c``.
_FLIPPED = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _exactly(op: str, left: Any, right: Any) -> Any:
    """``left op right`` by Arrow's kernels, a Python number (a constant) compared
    exactly as the reference compares it (Python's ``int``/``float`` comparisons):
    Arrow casts an int64 column to float64 beside a float, and cannot hold an int
    past int64; the constant is rewritten to one of the column's own type that gives
    every row the same verdict (:func:`_as_column_type`)."""
    if isinstance(left, (int, float)):
        if isinstance(right, (int, float)):   # two constants
            return pa.scalar(bool(_OPS[op](left, right)))
        return _exactly(_FLIPPED[op], right, left)
    if not isinstance(right, (int, float)):
        kinds = (pa.types.is_integer(left.type), pa.types.is_integer(right.type))
        if kinds in ((True, False), (False, True)) and not any(
                pa.types.is_boolean(x.type) or pa.types.is_string(x.type) for x in (left, right)):
            return _int_against_float(op, left, right) if kinds[0] else \
                _int_against_float(_FLIPPED[op], right, left)
        return _ARROW_OPS[op](left, right)
    rewritten = _as_column_type(op, right, pa.types.is_integer(left.type))
    if isinstance(rewritten, bool):
        return pa.scalar(rewritten)
    new_op, value, arrow = rewritten
    return _ARROW_OPS[new_op](left, pa.scalar(value, arrow))


def _int_against_float(op: str, ints: Any, floats: Any) -> pa.Array:
    """``ints op floats`` element by element, exactly (Arrow casts the ints to float64).
    Rounding is monotone, so ``fl(x) < y ⇒ x < y`` and ``fl(x) > y ⇒ x > y``; where
    ``fl(x) = y``, ``y`` is an integer at most 2**63 and is compared as one."""
    x = np.asarray(pc.fill_null(ints, 0).to_numpy(zero_copy_only=False), dtype=np.int64)
    y = np.asarray(pc.fill_null(pc.cast(floats, pa.float64()), 0.0)
                   .to_numpy(zero_copy_only=False), dtype=np.float64)
    with np.errstate(invalid="ignore"):
        fx = x.astype(np.float64)
        sign = np.sign(fx - y)
        tie = fx == y
        top = tie & (y >= 2.0**63)
        yi = np.where(tie & ~top, y, 0.0).astype(np.int64)
    sign = np.where(tie, np.where(top, -1, np.sign(x - yi)), sign)
    return pa.array(_OPS[op](sign, 0))


def _as_column_type(op: str, c: int | float, integer: bool
                    ) -> tuple[str, int | float, pa.DataType] | bool:
    """``(op', c')`` with ``x op c ⇔ x op' c'`` for every ``x`` of an int64 column
    (``integer``) or a float64 one, ``c'`` of that type; or the verdict of every row.

    For an integer ``x``: ``x < c ⇔ x < ⌈c⌉``, ``x ≤ c ⇔ x ≤ ⌊c⌋`` (so ``>``, ``≥``
    by complement), ``x = c`` only for an integral ``c``; an integer past int64
    is above (below) every row. For a float ``x`` and ``f = fl(c)``: when ``f = c``
    nothing changes; when ``f < c`` (c lies between f and the next float) ``x < c ⇔
    x ≤ f`` and ``x > c ⇔ x > f``; when ``f > c`` ``x < c ⇔ x < f``, ``x > c ⇔ x ≥ f``;
    ``x = c`` is then false for every float."""
    if isinstance(c, float) and math.isnan(c):
        return op == "!="
    if integer:
        if isinstance(c, float):
            if math.isinf(c):
                return op in ("!=", "<", "<=") if c > 0 else op in ("!=", ">", ">=")
            if not c.is_integer():
                if op in ("=", "!="):
                    return op == "!="
                c = math.ceil(c) if op in ("<", ">=") else math.floor(c)
            c = int(c)
        if c > _I64_MAX:
            return op in ("!=", "<", "<=")
        if c < _I64_MIN:
            return op in ("!=", ">", ">=")
        return op, c, pa.int64()
    try:
        f = float(c)
    except OverflowError:
        f = math.inf if c > 0 else -math.inf
    if f == c:
        return op, f, pa.float64()
    if op in ("=", "!="):
        return op == "!="
    below = f < c
    closed = {"<": "<=", ">=": ">"} if below else {"<=": "<", ">": ">="}
    return closed.get(op, op), f, pa.float64()


def _arrow_operand(found: tuple[object, str] | None, n: int) -> tuple[np.ndarray,
                                                                       dict[int, object]]:
    """Kinds and values of one column (``None``: no row has it, every value is missing)."""
    if found is None:
        return np.full(n, MISSING, dtype=np.int8), {}
    raw, kind = found
    arr: Any = raw.combine_chunks() if isinstance(raw, pa.ChunkedArray) else raw
    if kind == TEXT_KIND:
        nums, numbers, strs = text_kinds(arr)
        if (np.abs(numbers[nums]) >= 2.0**53).any():
            # its numbers are read as float64 here, and a cell such as 2**64 + 1 (an
            # exact int in each row, text_value) would round: the rows decide it
            raise Unsupported("a text column with numbers past 2**53 is compared row by row")
        kinds = np.full(n, MISSING, dtype=np.int8)
        kinds[nums] = NUM
        kinds[strs] = STR
        return kinds, {NUM: numeric_array(numbers), STR: arr}
    code = STR if kind == STR_KIND else BOOL if kind == BOOL_KIND else NUM
    if arr.null_count == 0:
        kinds = np.full(n, code, dtype=np.int8)
    else:
        valid = np.asarray(pc.is_valid(arr).to_numpy(zero_copy_only=False), dtype=bool)
        kinds = np.where(valid, code, MISSING).astype(np.int8)
    return kinds, {code: arr}


def _known_where(known: np.ndarray, verdict: np.ndarray) -> np.ndarray:
    """T or F by ``verdict`` where ``known``, U elsewhere (int8)."""
    return np.where(known, np.where(verdict, T, F), U).astype(np.int8)


def _pick(x: object, where: np.ndarray) -> object:
    return x[where] if isinstance(x, np.ndarray) else x


class PropertyBits:
    """ē for each event of a batch (Sec. 5), from the properties Θp_v of each variable.

    Variables with the same properties share one evaluation; a variable without
    properties has its bit set on every event (its property is ``TRUE``).
    """

    def __init__(self, pattern: SESPattern) -> None:
        if len(pattern.names) > MAX_VARIABLES:
            raise Unsupported(f"the match-window engines keep ē in 64 bits: at most "
                              f"{MAX_VARIABLES} variables, not {len(pattern.names)}")
        self.names = pattern.names
        by_condition: dict[Condition, int] = {}
        for j, v in enumerate(self.names):
            c = rename(pattern.property_of(v), {v: EVENT})
            by_condition[c] = by_condition.get(c, 0) | (1 << j)
        #: Each distinct property (over :data:`EVENT`) with the bits of its variables.
        self.masks: tuple[tuple[Condition, int], ...] = tuple(by_condition.items())

    def of(self, batch: Sequence[Event] | EventColumns) -> np.ndarray:
        """ē of every event of ``batch`` (int64): events, or the columns of a loaded stream."""
        cols = ArrowColumns(batch) if isinstance(batch, EventColumns) else Columns(batch)
        bits = np.zeros(len(batch), dtype=np.int64)
        for c, mask in self.masks:
            bits[cols.holds(c)] |= mask
        return bits

    def of_event(self, e: Event) -> int:
        """ē of one event, evaluated with the reference's ``holds``."""
        return sum(mask for c, mask in self.masks if holds(c, {EVENT: (e,)}))


def paper_bits(bits: int, m: int) -> str:
    """ē as the paper writes it: one character per variable, v1 first (Example 13)."""
    return "".join("1" if bits >> j & 1 else "0" for j in range(m))
