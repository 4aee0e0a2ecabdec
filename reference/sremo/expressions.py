"""SREMO expressions: seed 004, report Def. 15 (= paper Def. 3.4), extended by
windows (Def. 39), intersection (Thm 34), windowed negation (Cor. 43) and the
selection strategies as operators (Defs. 44, 45).

Conventions, fixed once for all of :mod:`kleene.reference.sremo`:

- ``e: Expr`` is an expression, ``phi: Condition`` a condition, ``v`` a
  valuation, ``s`` the stream (the string), ``M`` a match (a frozenset of
  0-based positions; the paper's indices are 1-based).
- A condition (report Def. 10) is a condition of the shared language
  (:mod:`kleene.reference.conditions`) whose terms are constants and
  attribute references ``x.A`` with ``x`` the head ``~`` (``Attr("~", A)``:
  attribute A of the element just read) or a register name ``r``
  (``Attr("r", A)``: attribute A of the element stored in register r).
  ``prev(...)`` and aggregates are not part of SREMO.
- :class:`Atom` is ``phi ↑ o`` (``write is None``) or ``phi ↑ o ↓ r``;
  ``marked`` is the output: ``True`` for •, ``False`` for ⊗.

Well-formedness (:func:`check`) rejects, with the offending node attached:
a register read where no path from the start can have written it; a
negation that is neither of a windowed expression nor inside a window
(report Sec. 5.1.2, Cor. 43); a skip-till-next over non-condition parts
that are not windowed (Def. 45); an intersection in which one operand uses a
register another writes (the product construction of Thm 34 assumes
R1 ∩ R2 = ∅; reading the same register is harmless); a :class:`Partition`
anywhere but at the top.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeAlias

from kleene.reference.conditions import TRUE, Agg, Attr, Condition, Prev, subterms
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError
from kleene.reference.pattern import Pattern

#: The head variable of report Def. 10.
HEAD = "~"

#: Words that cannot name a register (keywords of the text syntax).
KEYWORDS = frozenset({"EPS", "EMPTY", "ANY", "NEXT", "INTERSECT", "MARK", "AND", "OR", "WITHIN",
                      "NOT", "TRUE", "FALSE", "PREV", "SUM", "AVG", "MIN", "MAX", "COUNT"})


class IllFormed(PatternError):
    """An expression that is not well formed; ``node`` is the offending sub-expression."""

    def __init__(self, message: str, node: object) -> None:
        super().__init__(message)
        self.node = node


@dataclass(frozen=True, slots=True, eq=True)
class Epsilon(Pattern):
    """``ϵ``: accepts only the empty string (Def. 15 case 1)."""


@dataclass(frozen=True, slots=True, eq=True)
class Empty(Pattern):
    """``∅``: accepts nothing (Def. 15 case 1; Def. 17 gives it no rule)."""


@dataclass(frozen=True, slots=True)
class Atom(Pattern):
    """``phi ↑ o`` or ``phi ↑ o ↓ write`` (Def. 15 cases 2 and 3)."""

    condition: Condition
    marked: bool = False
    write: str | None = None

    def __post_init__(self) -> None:
        for t in subterms(self.condition):
            if isinstance(t, (Prev, Agg)):
                raise IllFormed("SREMO conditions read the head ~ and registers only "
                                "(report Def. 10): prev() and aggregates are not allowed", self)
        if self.write is not None and (self.write == HEAD or self.write.upper() in KEYWORDS):
            raise IllFormed(f"{self.write!r} cannot name a register", self)


@dataclass(frozen=True, slots=True)
class Choice(Pattern):
    """``e1 + e2 + ...`` (Def. 15 case 4, n-ary: + is associative)."""

    parts: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _at_least_two(self, self.parts)


@dataclass(frozen=True, slots=True)
class Concat(Pattern):
    """``e1 · e2 · ...`` (Def. 15 case 5, n-ary: · is associative)."""

    parts: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _at_least_two(self, self.parts)


@dataclass(frozen=True, slots=True)
class Star(Pattern):
    """``e*`` (Def. 15 case 6)."""

    body: Expr


@dataclass(frozen=True, slots=True)
class Window(Pattern):
    """``e[1..w]`` (report Def. 39): matches whose span max(M) − min(M) + 1 ≤ w; or, when
    ``width`` is a :class:`~kleene.reference.durations.Duration`, ``e[WITHIN τ]``, Kleene's
    time window (docs/semantics.md, "SREMO time windows"): the timestamps of the marked
    elements span at most τ (inclusive reading) or less than τ (strict reading)."""

    body: Expr
    width: int | Duration

    @property
    def is_time(self) -> bool:
        """Whether this window bounds timestamps (not positions)."""
        return isinstance(self.width, Duration)

    def __post_init__(self) -> None:
        if isinstance(self.width, Duration):
            return
        if isinstance(self.width, bool) or not isinstance(self.width, int) or self.width < 1:
            raise IllFormed(f"a window [1..w] needs a positive integer w (report Def. 39: "
                            f"w ∈ N1), got {self.width!r}", self)


@dataclass(frozen=True, slots=True)
class Intersect(Pattern):
    """``e1 ∩ e2 ∩ ...``: M is a match iff it is a match of every part (report Def. 33, Thm 34)."""

    parts: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _at_least_two(self, self.parts)


@dataclass(frozen=True, slots=True)
class Not(Pattern):
    """``!e``: the strings e does not accept, marking nothing (report Sec. 5.1.2, Cor. 43)."""

    body: Expr


STRATEGIES = ("any", "next")


@dataclass(frozen=True, slots=True)
class Strategy(Pattern):
    """A selection strategy as an operator (report Sec. 5.2): ``kind`` is ``any`` (Def. 44,
    ⟲) or ``next`` (Def. 45, @); it rewrites the top-level sequence or iteration of ``body``
    (see :mod:`kleene.reference.sremo.strategies`)."""

    kind: str
    body: Expr

    def __post_init__(self) -> None:
        if self.kind not in STRATEGIES:
            raise IllFormed(f"unknown selection strategy {self.kind!r}; choose any or next", self)


@dataclass(frozen=True, slots=True)
class Partition(Pattern):
    """``e PARTITION BY a, ...``: Kleene's extension for Wayeb's ``{partitionBy:a}``
    (docs/semantics.md, "SREMO partitions"): the matches of ``e`` on each sub-stream of
    the elements that share their values of ``by`` (a part as
    :func:`kleene.reference.policies.part_of` draws it: an element missing a value is
    a part of its own), positions mapped back to the stream. Only at the top of an
    expression."""

    body: Expr
    by: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.by:
            raise IllFormed("PARTITION BY needs an attribute", self)


Expr: TypeAlias = (Epsilon | Empty | Atom | Choice | Concat | Star | Window | Intersect | Not
                   | Strategy | Partition)

#: ``⊤ ↑ ⊗``: skip one element (the gap of Def. 44).
SKIP = Atom(TRUE, marked=False)


def _at_least_two(node: object, parts: tuple[object, ...]) -> None:
    if len(parts) < 2:
        raise IllFormed(f"{type(node).__name__} needs at least two parts", node)


# ---------------------------------------------------------------- structure


def children(e: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of ``e``."""
    if isinstance(e, (Choice, Concat, Intersect)):
        return e.parts
    if isinstance(e, (Star, Window, Not, Strategy, Partition)):
        return (e.body,)
    return ()


def walk(e: Expr) -> Iterator[Expr]:
    """``e`` and all its sub-expressions, pre-order."""
    yield e
    for c in children(e):
        yield from walk(c)


def reads(phi: Condition) -> frozenset[str]:
    """The registers a condition reads (every variable but the head)."""
    return frozenset(t.var for t in subterms(phi) if isinstance(t, Attr) and t.var != HEAD)


def written(e: Expr) -> frozenset[str]:
    """The registers some atom of ``e`` writes."""
    return frozenset(a.write for a in walk(e) if isinstance(a, Atom) and a.write is not None)


def may_write(e: Expr) -> frozenset[str]:
    """The registers a path through ``e`` may write (writes under a negation never
    reach the valuation: ``!e`` leaves it unchanged)."""
    if isinstance(e, Atom):
        return frozenset({e.write} if e.write else ())
    if isinstance(e, Not):
        return frozenset()
    return frozenset().union(*(may_write(c) for c in children(e)))


def registers(e: Expr) -> frozenset[str]:
    """The registers ``e`` reads or writes."""
    out = set(written(e))
    for a in walk(e):
        if isinstance(a, Atom):
            out |= reads(a.condition)
    return frozenset(out)


# ---------------------------------------------------------------- well-formedness


def check(e: Expr, *, windowed: bool = False) -> Expr:
    """Raise :class:`IllFormed` for the mistakes listed in the module docstring; return ``e``.
    ``windowed`` says that ``e`` will be placed inside a window."""
    _check(e.body if isinstance(e, Partition) else e, frozenset(), windowed=windowed)
    return e


def _check(e: Expr, before: frozenset[str], *, windowed: bool) -> frozenset[str]:
    """Check ``e`` given the registers some path may have written ``before`` it;
    return those that may be written after it."""
    if isinstance(e, Atom):
        missing = reads(e.condition) - before
        if missing:
            raise IllFormed(f"register {', '.join(sorted(missing))} is read before any path "
                            "can have written it (write it first: ... -> r)", e)
        return before | ({e.write} if e.write else set())
    if isinstance(e, Concat):
        for part in e.parts:
            before = _check(part, before, windowed=windowed)
        return before
    if isinstance(e, (Choice, Intersect)):
        if isinstance(e, Intersect):
            _check_disjoint(e)
        return before.union(*(_check(p, before, windowed=windowed) for p in e.parts))
    if isinstance(e, Star):
        # A later iteration may read what an earlier one wrote.
        return _check(e.body, before | may_write(e.body), windowed=windowed)
    if isinstance(e, Window):
        return _check(e.body, before, windowed=True)
    if isinstance(e, Not):
        if not (windowed or isinstance(e.body, Window)):
            raise IllFormed("negation needs a window: write !(e)[1..w] or put it inside a "
                            "windowed expression (report Cor. 43)", e)
        _check(e.body, before, windowed=True)
        return before
    if isinstance(e, Strategy):
        return _check_strategy(e, before, windowed=windowed)
    if isinstance(e, Partition):
        raise IllFormed("PARTITION BY applies to a whole expression, not to a part of one", e)
    return before


def _check_strategy(e: Strategy, before: frozenset[str], *, windowed: bool) -> frozenset[str]:
    body = e.body
    if e.kind == "next" and not windowed:
        later = body.parts[1:] if isinstance(body, Concat) else (
            (body.body,) if isinstance(body, Star) else ())
        for part in later:
            if not isinstance(part, (Atom, Window)):
                raise IllFormed("skip-till-next over a part that is not a condition needs a "
                                "window (report Def. 45): window the part or the whole", e)
    return _check(body, before, windowed=windowed)


def _check_disjoint(e: Intersect) -> None:
    for i, part in enumerate(e.parts):
        others = frozenset().union(*(registers(p) for j, p in enumerate(e.parts) if j != i))
        clash = written(part) & others
        if clash:
            raise IllFormed(f"a register written by one part of an intersection cannot be "
                            f"used by another (report Thm 34 assumes R1 ∩ R2 = ∅): "
                            f"{', '.join(sorted(clash))}", e)
