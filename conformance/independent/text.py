"""The independent evaluator's own tokenizer and condition language (issue 28, item 3).

Written without :mod:`kleene.reference` (``lint-imports`` forbids the import),
for the fragment that ``conformance/corpus.py`` writes:

- tokens: names, numbers, ``'text'`` (``''`` is a quote), and the symbols
  ``( ) { } [ ] < > , . + * ; ~ ! = != <> <= >= -> ..``;
- conditions (seed 000 Sec. 3.2, seed 001 Sec. 3: properties ``v.A φ C``,
  relationships ``vi.A φ vj.B`` and ``prev(v.A) φ v.A``; seed 004 report
  Def. 10: conditions over the head ``~`` and the registers):
  ``cond := conj ("OR" conj)*``, ``conj := unary ("AND" unary)*``,
  ``unary := "NOT" unary | "(" cond ")" | "TRUE" | "FALSE" | term φ term``,
  ``term := "prev" "(" v "." A ")" | v "." A | number | 'text'``;
- values read in SQL's three-valued logic (docs/semantics.md, section 2,
  "Missing values"): a missing attribute, or values of different kinds
  (number, text, boolean), make a comparison *unknown* (``None``); ``AND``,
  ``OR`` and ``NOT`` are Kleene's strong connectives.

Anything else is :class:`Uncovered`: the caller reports the case as not
covered, never as agreeing.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

Value = int | float | str | bool


class Uncovered(Exception):
    """A construct this evaluator does not define: the case is *not covered*."""


_TOKEN = re.compile(r"""\s*(?:
    (?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<str>'(?:[^']|'')*')
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<sym>->|\.\.|!=|<>|<=|>=|[(){}\[\]<>,.+*;~!=-])
)""", re.VERBOSE)


@dataclass(frozen=True)
class Token:
    """A token: its kind (``num``, ``str``, ``name``, ``sym``, ``end``) and text."""

    kind: str
    text: str


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an ``end`` token."""
    out, i = [], 0
    while True:
        m = _TOKEN.match(text, i)
        if m is None or m.end() == i:
            if text[i:].strip():
                raise Uncovered(f"cannot read {text[i:i + 20]!r}")
            out.append(Token("end", ""))
            return out
        kind = m.lastgroup or "end"
        out.append(Token(kind, m.group(kind)))
        i = m.end()


class Tokens:
    """A cursor over tokens; keywords compare case-insensitively; ``time_unit`` is the
    unit of the stream's timestamps (a window with a unit converts into it)."""

    def __init__(self, text: str, time_unit: str | None = None) -> None:
        self.items = tokenize(text)
        self.i = 0
        self.time_unit = time_unit

    def peek(self, ahead: int = 0) -> Token:
        return self.items[min(self.i + ahead, len(self.items) - 1)]

    def at(self, *words: str) -> bool:
        """Whether the next token is one of ``words`` (symbols or keywords)."""
        t = self.peek()
        return t.kind in ("sym", "name") and t.text.upper() in words

    def take(self, *words: str) -> Token:
        """The next token, which must be one of ``words`` when given."""
        t = self.peek()
        if words and not self.at(*words):
            raise Uncovered(f"expected {' or '.join(words)}, found {t.text!r}")
        self.i += 1
        return t

    def name(self) -> str:
        t = self.take()
        if t.kind != "name":
            raise Uncovered(f"expected a name, found {t.text!r}")
        return t.text

    def number(self) -> int | float:
        t = self.take()
        if t.kind != "num":
            raise Uncovered(f"expected a number, found {t.text!r}")
        return float(t.text) if any(c in t.text for c in ".eE") else int(t.text)

    def done(self) -> bool:
        return self.peek().kind == "end"


@dataclass(frozen=True)
class Ref:
    """``v.A`` (``prev`` false) or ``prev(v.A)``: the attribute ``A`` of ``v``'s event."""

    var: str
    attr: str
    prev: bool = False


@dataclass(frozen=True)
class Const:
    """A constant."""

    value: Value


@dataclass(frozen=True)
class Cmp:
    """``left φ right``."""

    op: str
    left: Ref | Const
    right: Ref | Const


@dataclass(frozen=True)
class Junction:
    """``p1 AND p2 …`` (``op`` ``and``) or ``p1 OR p2 …`` (``or``)."""

    op: str
    parts: tuple[Cond, ...]


@dataclass(frozen=True)
class Not:
    """``NOT p``."""

    part: Cond


@dataclass(frozen=True)
class Truth:
    """``TRUE`` or ``FALSE``."""

    value: bool


Cond = Cmp | Junction | Not | Truth

COMPARISONS = ("=", "!=", "<>", "<", "<=", ">", ">=")


def condition(t: Tokens) -> Cond:
    """``cond`` of the module docstring."""
    parts = [_conjunction(t)]
    while t.at("OR"):
        t.take()
        parts.append(_conjunction(t))
    return parts[0] if len(parts) == 1 else Junction("or", tuple(parts))


def _conjunction(t: Tokens) -> Cond:
    parts = [_unary(t)]
    while t.at("AND"):
        t.take()
        parts.append(_unary(t))
    return parts[0] if len(parts) == 1 else Junction("and", tuple(parts))


def _unary(t: Tokens) -> Cond:
    if t.at("NOT"):
        t.take()
        return Not(_unary(t))
    if t.at("("):
        t.take()
        c = condition(t)
        t.take(")")
        return c
    if t.at("TRUE", "FALSE") and t.peek(1).text != ".":
        return Truth(t.take().text.upper() == "TRUE")
    left = _term(t)
    op = t.take(*COMPARISONS).text
    return Cmp("!=" if op == "<>" else op, left, _term(t))


def _term(t: Tokens) -> Ref | Const:
    tok = t.peek()
    if tok.kind == "num":
        return Const(t.number())
    if tok.kind == "str":
        t.take()
        return Const(tok.text[1:-1].replace("''", "'"))
    if t.at("-") and t.peek(1).kind == "num":
        t.take()
        return Const(-t.number())
    if t.at("PREV") and t.peek(1).text == "(":
        t.take()
        t.take("(")
        var = t.name()
        t.take(".")
        attr = t.name()
        t.take(")")
        return Ref(var, attr, prev=True)
    var = t.take("~").text if t.at("~") else t.name()
    t.take(".")
    return Ref(var, t.name())


def conditions(t: Tokens) -> list[Cond]:
    """A ``WHERE`` clause: its top-level ``AND``-separated conditions (Θ)."""
    c = condition(t)
    return list(c.parts) if isinstance(c, Junction) and c.op == "and" else [c]


def refs(c: Cond) -> Iterator[Ref]:
    """The attribute references of ``c``."""
    if isinstance(c, Cmp):
        yield from (x for x in (c.left, c.right) if isinstance(x, Ref))
    elif isinstance(c, Junction):
        for p in c.parts:
            yield from refs(p)
    elif isinstance(c, Not):
        yield from refs(c.part)


def variables(c: Cond) -> frozenset[str]:
    """The variables ``c`` reads (also under ``prev``)."""
    return frozenset(r.var for r in refs(c))


def prev_variables(c: Cond) -> frozenset[str]:
    """The variables ``c`` reads under ``prev``."""
    return frozenset(r.var for r in refs(c) if r.prev)


#: What a reference reads: a value, ``None`` (missing: unknown) or :data:`EMPTY`
#: (an empty register: the comparison is false, seed 004 report Def. 13).
EMPTY = object()
Lookup = Callable[[Ref], object]


def _kind(v: object) -> str:
    return "bool" if isinstance(v, bool) else "num" if isinstance(v, (int, float)) else \
        "str" if isinstance(v, str) else "other"


def _compare(op: str, a: object, b: object) -> bool | None:
    if _kind(a) != _kind(b) or _kind(a) == "other":
        return None
    if op == "=":
        return a == b
    if op == "!=":
        return a != b
    ordered = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y,
               ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}
    return bool(ordered[op](a, b))


def evaluate(c: Cond, read: Lookup) -> bool | None:
    """``c`` in three-valued logic (``None``: unknown)."""
    if isinstance(c, Truth):
        return c.value
    if isinstance(c, Not):
        inner = evaluate(c.part, read)
        return None if inner is None else not inner
    if isinstance(c, Junction):
        values = [evaluate(p, read) for p in c.parts]
        decisive = c.op == "or"  # OR: one TRUE decides it; AND: one FALSE does
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    sides = [read(x) if isinstance(x, Ref) else x.value for x in (c.left, c.right)]
    if any(v is EMPTY for v in sides):
        return False
    if any(v is None for v in sides):
        return None
    return _compare(c.op, sides[0], sides[1])


Row = Mapping[str, object]


def holds(c: Cond, binding: Mapping[str, Sequence[Row]]) -> bool:
    """Whether *every instance* of ``c`` is true on ``binding`` (each variable to its
    events, in stream order): seed 000 Example 3 decomposes a substitution into
    every choice of one event per variable; seed 001's interpretation reads
    ``prev(v.A) φ v.A`` on every pair of *consecutive* events of ``v`` (so a
    variable read under ``prev`` ranges over its second to last events, and its
    ``prev`` is the one before). No instance: the condition holds (vacuously)."""
    names = sorted(variables(c))
    under_prev = prev_variables(c)
    ranges = [range(1 if v in under_prev else 0, len(binding[v])) for v in names]
    for choice in itertools.product(*ranges):
        at = dict(zip(names, choice, strict=True))

        def read(r: Ref, at: dict[str, int] = at) -> object:
            return binding[r.var][at[r.var] - (1 if r.prev else 0)].get(r.attr)

        if evaluate(c, read) is not True:
            return False
    return True


def partition_by(t: Tokens, names: Sequence[str]) -> list[Cond]:
    """``PARTITION BY A, …`` (docs/semantics.md, section 10): ``vi.A = vj.A`` for every
    pair ``i < j`` of ``names`` (declaration order), or nothing if the clause is absent."""
    if not t.at("PARTITION"):
        return []
    t.take()
    t.take("BY")
    attrs = [t.name()]
    while t.at(","):
        t.take()
        attrs.append(t.name())
    return [Cmp("=", Ref(vi, a), Ref(vj, a))
            for a in attrs for i, vi in enumerate(names) for vj in names[i + 1:]]


#: Milliseconds per time unit, and the words a window may use for it.
MILLISECONDS = {"ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}
UNIT_WORDS = {"ms": "ms", "s": "s", "second": "s", "seconds": "s", "min": "min",
              "minute": "min", "minutes": "min", "h": "h", "hour": "h", "hours": "h",
              "d": "d", "day": "d", "days": "d"}


def window(t: Tokens) -> int | float:
    """``WITHIN τ [unit]``'s τ in timestamp units: a window with a unit converts into
    the stream's ``time_unit`` (exactly, then to a float unless whole)."""
    value = t.number()
    if t.peek().kind != "name":
        return value
    word = t.name().lower()
    if word not in UNIT_WORDS or t.time_unit not in MILLISECONDS:
        raise Uncovered(f"a window in {word!r} on timestamps in {t.time_unit!r}")
    exact = Fraction(value) * MILLISECONDS[UNIT_WORDS[word]] / MILLISECONDS[t.time_unit]
    return int(exact) if exact.denominator == 1 else float(exact)


def ts(rows: Sequence[Row], q: int) -> float:
    """The timestamp of event ``q`` (a number: the case files' schema says so)."""
    value = rows[q]["ts"]
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise Uncovered(f"a timestamp {value!r}")
    return value
