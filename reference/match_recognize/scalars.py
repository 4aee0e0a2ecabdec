"""SQL's scalar operations over Python values, as ``DEFINE`` and ``MEASURES`` use them.

Values are a :class:`~kleene.reference.match_recognize.table.Table`'s (``None`` is
NULL). The rules are ISO/IEC 9075-2:2016's:

- three-valued logic (§6.39 <boolean value expression>, Table 11–13): ``AND``,
  ``OR`` and ``NOT`` over TRUE, FALSE and UNKNOWN (``None``);
- a comparison, an arithmetic operation, ``||``, ``LIKE`` or a function (but
  ``COALESCE`` and ``NULLIF``) with a NULL operand is NULL (§8.2, §6.29, §8.5);
- numbers compare and combine across kinds: an approximate operand (``float``)
  makes the result approximate, an exact decimal makes it ``Decimal``, two
  integers stay integers (§6.29: exact with exact is exact); the quotient of two
  exact numbers is exact (§6.29 leaves its scale to the implementation: Kleene
  keeps 38 significant digits, Oracle's ``NUMBER``; DuckDB answers a ``DOUBLE``,
  Trino and Flink truncate to an integer: a vendor difference);
- ``MOD``/``%`` takes the sign of the dividend (§6.30 <numeric value function>);
- ``CAST`` to an integer or a decimal of smaller scale rounds half away from
  zero (§6.13 leaves rounding or truncation to the implementation; Oracle,
  DuckDB and Trino round);
- division by zero, a cast that fails and a comparison of values of different
  kinds are *data exceptions* (§6.29, §6.13, SQLSTATE class 22):
  :class:`DataError`, whose ``code`` is stable.

A function Kleene does not define raises :class:`~kleene.reference.errors.Unsupported`
naming it (:data:`FUNCTIONS` lists those it does).
"""

from __future__ import annotations

import datetime
import math
import operator
import re
from collections.abc import Callable, Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import Any

from kleene.reference.errors import PatternError, Unsupported

Number = int | float | Decimal

#: 38 significant digits for an exact quotient (Oracle's ``NUMBER``).
EXACT = Context(prec=38)


class DataError(PatternError):
    """A data exception of ISO/IEC 9075-2 (SQLSTATE class 22) met while recognizing:
    ``code`` names it (``division-by-zero``, ``invalid-cast``, ``type-mismatch``,
    ``skip-to-first-row``, ``skip-to-unmapped-variable``, ``unknown-column``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def is_number(x: object) -> bool:
    """An SQL number (``bool`` is not one)."""
    return isinstance(x, int | float | Decimal) and not isinstance(x, bool)


def kind(x: object) -> str:
    """The SQL kind of a value, for messages."""
    if isinstance(x, bool):
        return "boolean"
    if is_number(x):
        return "number"
    if isinstance(x, str):
        return "string"
    if isinstance(x, datetime.date):
        return "date/time"
    return type(x).__name__


# --- three-valued logic --------------------------------------------------------------------


def logical_not(a: object) -> bool | None:
    """``NOT a``: UNKNOWN stays UNKNOWN."""
    return None if a is None else not truth(a)


def truth(a: object) -> bool | None:
    """A boolean operand: TRUE, FALSE or UNKNOWN (``None``); anything else is a
    :class:`DataError`."""
    if a is None or isinstance(a, bool):
        return a
    raise DataError("type-mismatch", f"a {kind(a)} ({a!r}) where a boolean is expected")


# --- comparison and arithmetic --------------------------------------------------------------


def _common(a: object, b: object) -> tuple[object, object]:
    """Two values of one comparable kind, or a ``type-mismatch`` :class:`DataError`."""
    if is_number(a) and is_number(b):
        return a, b
    if isinstance(a, datetime.date) and isinstance(b, datetime.date):
        def widen(x: datetime.date) -> datetime.datetime:
            if isinstance(x, datetime.datetime):
                return x
            return datetime.datetime(x.year, x.month, x.day)
        return (widen(a), widen(b)) if type(a) is not type(b) else (a, b)
    if type(a) is type(b) and isinstance(a, str | bool):
        return a, b
    raise DataError("type-mismatch", f"cannot compare a {kind(a)} with a {kind(b)}")


#: The comparison operators (on two values of one kind: :func:`_common`).
COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}

#: The arithmetic operators but division (on two numbers of one kind: :func:`_numbers`).
OPERATORS: dict[str, Callable[[Any, Any], Number]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
}


def compare(op: str, a: object, b: object) -> bool | None:
    """``a op b`` for ``op`` in :data:`COMPARISONS` (``!=`` is ``<>``); NULL if either is."""
    if a is None or b is None:
        return None
    a, b = _common(a, b)
    return COMPARISONS["<>" if op == "!=" else op](a, b)


def cast_number(a: object) -> Number:
    """``a``, known to be a number (:func:`is_number`), typed as one."""
    assert isinstance(a, int | float | Decimal)
    return a


def _numbers(op: str, a: object, b: object) -> tuple[Number, Number]:
    if not (is_number(a) and is_number(b)):
        raise DataError("type-mismatch", f"{kind(a)} {op} {kind(b)}: both must be numbers")
    x, y = cast_number(a), cast_number(b)
    if isinstance(x, float) or isinstance(y, float):
        return float(x), float(y)
    if isinstance(x, Decimal) or isinstance(y, Decimal):
        return Decimal(x), Decimal(y)
    return x, y


def arithmetic(op: str, a: object, b: object) -> Number | None:
    """``a op b`` for ``op`` in ``+ - * / %``; NULL if either operand is."""
    if a is None or b is None:
        return None
    x, y = _numbers(op, a, b)
    if op in OPERATORS:
        return OPERATORS[op](x, y)
    if op not in ("/", "%"):
        raise Unsupported(f"operator {op} is not supported")
    if y == 0:
        raise DataError("division-by-zero", f"{a} {op} {b}: division by zero")
    if isinstance(x, float) or isinstance(y, float):
        return float(x) / float(y) if op == "/" else math.fmod(x, y)
    if op == "/":
        return EXACT.divide(Decimal(x), Decimal(y))
    if isinstance(x, int) and isinstance(y, int):
        r = abs(x) % abs(y)
        return r if x >= 0 else -r
    return EXACT.remainder(Decimal(x), Decimal(y))  # the dividend's sign, as MOD's


def negate(a: object) -> Number | None:
    """``-a``."""
    if a is None:
        return None
    return arithmetic("-", 0, a)


# --- strings -------------------------------------------------------------------------------


def text(a: object) -> str:
    """A value as ``CAST(a AS VARCHAR)`` spells it."""
    if isinstance(a, bool):
        return "true" if a else "false"
    if isinstance(a, Decimal):
        return format(a, "f")
    if isinstance(a, datetime.datetime):
        return a.isoformat(sep=" ")
    if isinstance(a, datetime.date):
        return a.isoformat()
    return str(a)


def concat(a: object, b: object) -> str | None:
    """``a || b``; NULL if either is."""
    return None if a is None or b is None else text(a) + text(b)


def like(a: object, pattern: object) -> bool | None:
    """``a LIKE pattern``: ``%`` any run of characters, ``_`` one (§8.5, no escape)."""
    if a is None or pattern is None:
        return None
    regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in text(pattern))
    return re.fullmatch(regex, text(a), re.DOTALL) is not None


# --- CAST ----------------------------------------------------------------------------------

INTEGERS = {"INTEGER", "INT", "INT4", "BIGINT", "INT8", "SMALLINT", "INT2", "TINYINT", "HUGEINT"}
APPROXIMATE = {"DOUBLE", "FLOAT", "REAL", "FLOAT4", "FLOAT8", "DOUBLE PRECISION"}
DECIMALS = {"DECIMAL", "NUMERIC", "DEC", "NUMBER"}
STRINGS = {"VARCHAR", "CHAR", "TEXT", "STRING", "CHARACTER VARYING", "CHARACTER"}
_TYPE = re.compile(r"\s*([A-Z][A-Z0-9 ]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*")


def _exact(a: object) -> Decimal:
    if isinstance(a, str):
        return Decimal(a.strip())
    if isinstance(a, bool) or not is_number(a):
        raise InvalidOperation
    x = cast_number(a)
    return Decimal(repr(x)) if isinstance(x, float) else Decimal(x)


def cast(a: object, type_: str) -> object:
    """``CAST(a AS type_)``; NULL stays NULL; a value that does not convert is an
    ``invalid-cast`` :class:`DataError`."""
    m = _TYPE.fullmatch(type_.upper())
    base = m.group(1) if m else type_.upper()
    if a is None:
        return None
    try:
        if base in INTEGERS:
            return int(a) if isinstance(a, bool) else int(
                _exact(a).to_integral_value(rounding=ROUND_HALF_UP))
        if base in APPROXIMATE:
            return float(a.strip()) if isinstance(a, str) else float(cast_number(a))
        if base in DECIMALS:
            d = Decimal(int(a)) if isinstance(a, bool) else _exact(a)
            scale = m.group(3) if m else None
            return d.quantize(Decimal(1).scaleb(-int(scale)), rounding=ROUND_HALF_UP) \
                if scale is not None else d
        if base in STRINGS:
            return text(a)
        if base in ("BOOLEAN", "BOOL"):
            if isinstance(a, str):
                return {"true": True, "t": True, "false": False, "f": False}[a.strip().lower()]
            return a != 0
        if base == "DATE":
            if isinstance(a, datetime.datetime):
                return a.date()
            return a if isinstance(a, datetime.date) else datetime.date.fromisoformat(text(a))
        if base == "TIMESTAMP":
            if isinstance(a, datetime.datetime):
                return a
            if isinstance(a, datetime.date):
                return datetime.datetime(a.year, a.month, a.day)
            return datetime.datetime.fromisoformat(text(a))
    except (ValueError, TypeError, KeyError, ArithmeticError) as e:
        raise DataError("invalid-cast", f"cannot cast {a!r} to {type_}") from e
    raise Unsupported(f"CAST to {type_} is not supported")


# --- functions -----------------------------------------------------------------------------


def _round(x: object, digits: object = 0) -> Number:
    """``ROUND(x, digits)``, half away from zero (as Oracle, DuckDB and Trino round)."""
    number = cast_number(x)
    assert isinstance(digits, int)
    exact = Decimal(repr(number)) if isinstance(number, float) else Decimal(number)
    rounded = exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    if isinstance(number, float):
        return float(rounded)
    return int(rounded) if isinstance(number, int) else rounded


def _integral(x: object, rounding: str) -> object:
    if isinstance(x, float):
        return float(math.floor(x) if rounding == ROUND_FLOOR else math.ceil(x))
    assert isinstance(x, int | Decimal)
    return x if isinstance(x, int) else x.to_integral_value(rounding=rounding)


def _substring(s: object, start: object, length: object = None) -> str:
    """``SUBSTRING(s FROM start [FOR length])``, 1-based (§6.30)."""
    assert isinstance(start, int) and isinstance(length, int | None)
    chars = text(s)
    first = max(start, 1)
    last = len(chars) + 1 if length is None else start + length
    return chars[first - 1:max(last - 1, first - 1)]


def _length(s: object) -> int:
    """The characters of a string; the elements of a list (DuckDB's LIST type, which
    reaches a :class:`~kleene.reference.match_recognize.table.Table` as a Python list)."""
    return len(s) if isinstance(s, list | tuple) else len(text(s))


#: The scalar functions with NULL in, NULL out (any NULL argument makes the result NULL).
STRICT: dict[str, Callable[..., object]] = {
    "ABS": lambda x: abs(_numbers("ABS", x, 0)[0]),
    "SIGN": lambda x: (x > 0) - (x < 0),
    "MOD": lambda a, b: arithmetic("%", a, b),
    "ROUND": _round,
    "FLOOR": lambda x: _integral(x, ROUND_FLOOR),
    "CEIL": lambda x: _integral(x, ROUND_CEILING),
    "CEILING": lambda x: _integral(x, ROUND_CEILING),
    "POWER": lambda a, b: float(a) ** float(b),
    "SQRT": lambda x: math.sqrt(x),
    "LENGTH": lambda s: _length(s),
    "CHAR_LENGTH": lambda s: _length(s),
    "LEN": lambda s: _length(s),
    "UPPER": lambda s: text(s).upper(),
    "LOWER": lambda s: text(s).lower(),
    "TRIM": lambda s: text(s).strip(" "),
    "LTRIM": lambda s: text(s).lstrip(" "),
    "RTRIM": lambda s: text(s).rstrip(" "),
    "SUBSTRING": _substring,
    "SUBSTR": _substring,
    "REPLACE": lambda s, old, new: text(s).replace(text(old), text(new)),
    "REPEAT": lambda s, k: text(s) * k,
}


def call(name: str, args: Sequence[object]) -> object:
    """The scalar function ``name`` (upper case) applied to ``args`` (already evaluated)."""
    if name == "COALESCE":
        return next((a for a in args if a is not None), None)
    if name == "NULLIF":
        if len(args) != 2:
            raise Unsupported(f"NULLIF takes 2 arguments, not {len(args)}")
        return None if compare("=", args[0], args[1]) else args[0]
    if name not in STRICT:
        raise Unsupported(f"function {name} is not supported in MATCH_RECOGNIZE "
                          f"(supported: COALESCE, NULLIF, {', '.join(sorted(STRICT))})")
    if any(a is None for a in args):
        return None
    try:
        return STRICT[name](*args)
    except TypeError as e:
        raise Unsupported(f"{name} of {', '.join(kind(a) for a in args)}: {e}") from e
