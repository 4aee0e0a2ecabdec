"""Symbolic register transducers as immutable values: seed 004, report Def. 4 (SRT),
Def. 13 (conditions over the head and registers) and Def. 21 (runs).

An :class:`SRT` is ε-free (report Alg. 2 has been applied, see
:mod:`kleene.engines.srt.compile`), has one start state and states
``0..size-1``. An :class:`Edge` ``q --φ ↑ o ↓ W--> q'`` reads one element:
it fires when ``(u, v) ⊨ φ`` (Def. 13, a comparison over an empty register is
false), when none of the conditions in ``unless`` is satisfied (the
*minterms* of the determinization, report Alg. 7, need "φ is not satisfied",
which in the three-valued condition language is not ``NOT φ``: an unknown
comparison satisfies neither) and when its :class:`Clock` tests hold; it
outputs ``o`` (``mark``) and writes the element to every register of
``writes``.

A :class:`Clock` is a time-window test ``~.ts − r.ts ≤ bound`` (``inside``)
or ``> bound`` over a *hidden* register ``r`` (named ``@w…``, never visible in
SREMO), which holds the window's first marked element (our extension for time
windows; the report's remark after Def. 39: "the index of an event ... as an
event attribute and then add binary conditions").

:func:`compile_guard` turns a condition into a closure ``(u, regs) -> bool``
over a register tuple (one slot per register, ``None`` for ♯, else a :class:`Held`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kleene.reference.conditions import (
    LIKE,
    TRUE,
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Or,
    Truth,
    compare,
    conjunction,
)
from kleene.reference.events import Event
from kleene.reference.regex import python_pattern
from kleene.reference.sremo.expressions import HEAD, reads


class Held:
    """An element stored in a register. Hashed by identity (a run stores the element it
    is reading, so all runs storing one element share one :class:`Held`), which keeps
    grouping runs by their registers cheap."""

    __slots__ = ("event",)

    def __init__(self, event: Event) -> None:
        self.event = event


Registers = tuple[Held | None, ...]
Guard = Callable[[Event, Registers], bool]

#: Hidden registers (time-window clocks) start with this character.
HIDDEN = "@"


@dataclass(frozen=True, slots=True)
class Clock:
    """``~.ts − register.ts ≤ bound`` when ``inside``, else ``> bound``."""

    register: str
    bound: int | float
    inside: bool = True

    def __str__(self) -> str:
        return f"~.ts - {self.register}.ts {'<=' if self.inside else '>'} {self.bound}"


@dataclass(frozen=True, slots=True)
class Edge:
    """``source --guard [and not unless] [clocks] ↑ mark ↓ writes--> target`` (Def. 4)."""

    source: int
    target: int
    guard: Condition
    mark: bool = False
    writes: tuple[str, ...] = ()
    unless: tuple[Condition, ...] = ()
    clocks: tuple[Clock, ...] = ()

    def moved(self, source: int, target: int) -> Edge:
        """The same label between other states."""
        return Edge(source, target, self.guard, self.mark, self.writes, self.unless, self.clocks)

    def reads(self) -> frozenset[str]:
        """The registers this edge's tests read."""
        out = set(reads(self.guard)).union(*(reads(c) for c in self.unless))
        out.update(c.register for c in self.clocks)
        return frozenset(out)

    def shown_guard(self) -> Condition:
        """The guard as one condition (``unless`` printed as NOT, a ``TRUE`` guard then
        left out, so that ``TRUE`` is printed only as the picture's ``⊤``; clocks are not
        conditions)."""
        if not self.unless:
            return self.guard
        return conjunction([*([] if self.guard == TRUE else [self.guard]),
                            *(Not(c) for c in self.unless)])


@dataclass(frozen=True)
class SRT:
    """An ε-free SRT: states ``0..size-1``, one ``start``, ``finals``, ``edges``."""

    size: int
    start: int
    finals: frozenset[int]
    edges: tuple[Edge, ...]
    out: tuple[tuple[Edge, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        out: list[list[Edge]] = [[] for _ in range(self.size)]
        for e in self.edges:
            out[e.source].append(e)
        object.__setattr__(self, "out", tuple(tuple(x) for x in out))

    def registers(self) -> tuple[str, ...]:
        """Every register read or written, sorted (hidden ones last)."""
        names = set().union(*(set(e.writes) | e.reads() for e in self.edges)) if self.edges \
            else set()
        return tuple(sorted(names, key=lambda r: (r.startswith(HIDDEN), r)))

    def written(self) -> frozenset[str]:
        return frozenset(r for e in self.edges for r in e.writes)


def trim(a: SRT, *, useful: Iterable[int] | None = None) -> SRT:
    """``a`` restricted to the states reachable from the start and from which a state of
    ``useful`` (default: a final state) is reachable, renumbered in discovery order."""
    reach = {a.start}
    todo = [a.start]
    while todo:
        q = todo.pop()
        for e in a.out[q]:
            if e.target not in reach:
                reach.add(e.target)
                todo.append(e.target)
    back: dict[int, list[int]] = {}
    for e in a.edges:
        back.setdefault(e.target, []).append(e.source)
    co = set(a.finals if useful is None else useful)
    todo = list(co)
    while todo:
        q = todo.pop()
        for p in back.get(q, ()):
            if p not in co:
                co.add(p)
                todo.append(p)
    keep = [q for q in sorted(reach) if q in co or q == a.start]
    keep.sort(key=lambda q: (q != a.start, q))
    index = {q: i for i, q in enumerate(keep)}
    edges = tuple(dict.fromkeys(e.moved(index[e.source], index[e.target]) for e in a.edges
                                if e.source in index and e.target in index))
    return SRT(len(keep), 0, frozenset(index[q] for q in a.finals if q in index), edges)


# ---------------------------------------------------------------- guards

_EMPTY = object()  # the value of an attribute of an empty register


def _term(t: object, slots: Mapping[str, int]) -> Callable[[Event, Registers], object]:
    if isinstance(t, Const):
        value = t.value
        return lambda u, regs: value
    assert isinstance(t, Attr), t
    name = t.attr
    if t.var == HEAD:
        if name == "ts":
            return lambda u, regs: u.ts
        if name == "type":
            return lambda u, regs: u.type
        return lambda u, regs: u.attrs.get(name)
    i = slots[t.var]

    def register_value(u: Event, regs: Registers) -> object:
        held = regs[i]
        return _EMPTY if held is None else held.event.value(name)
    return register_value


def _three(c: Condition, slots: Mapping[str, int]) -> Callable[[Event, Registers], bool | None]:
    """The three-valued truth of ``c`` (Def. 13 with Kleene's strong logic)."""
    if isinstance(c, Truth):
        value = c.value
        return lambda u, regs: value
    if isinstance(c, Cmp):
        fast = _head_constant(c)
        if fast is not None:
            return fast
        left, right, op = _term(c.left, slots), _term(c.right, slots), c.op

        def cmp(u: Event, regs: Registers) -> bool | None:
            a, b = left(u, regs), right(u, regs)
            if a is _EMPTY or b is _EMPTY:
                return False  # Def. 13 case 2: v(x) must be defined
            return compare(op, a, b)  # type: ignore[arg-type]
        return cmp
    if isinstance(c, Not):
        part = _three(c.part, slots)

        def neg(u: Event, regs: Registers) -> bool | None:
            v = part(u, regs)
            return None if v is None else not v
        return neg
    parts = [_three(p, slots) for p in c.parts]
    if isinstance(c, And):
        def conj(u: Event, regs: Registers) -> bool | None:
            out: bool | None = True
            for p in parts:
                v = p(u, regs)
                if v is False:
                    return False
                if v is None:
                    out = None
            return out
        return conj
    assert isinstance(c, Or)

    def disj(u: Event, regs: Registers) -> bool | None:
        out: bool | None = False
        for p in parts:
            v = p(u, regs)
            if v is True:
                return True
            if v is None:
                out = None
        return out
    return disj


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge}


def _head_constant(c: Cmp) -> Callable[[Event, Registers], bool | None] | None:
    """A faster closure for ``~.A op constant`` (the commonest guard), with the same
    three-valued result as :func:`~kleene.reference.conditions.compare`: unknown when the
    attribute is missing or of another kind than the constant."""
    if not (isinstance(c.left, Attr) and c.left.var == HEAD and isinstance(c.right, Const)):
        return None
    name, value = c.left.attr, c.right.value
    if isinstance(value, bool) or name == "ts":
        return None
    if c.op == LIKE:     # RE2's partial match, as the reference decides it
        assert isinstance(value, str)
        search = python_pattern(value).search
        if name == "type":
            return lambda u, regs: search(u.type) is not None if type(u.type) is str else None

        def like(u: Event, regs: Registers) -> bool | None:
            a = u.attrs.get(name)
            return search(a) is not None if type(a) is str else None
        return like
    op = _OPS[c.op]
    if isinstance(value, str):
        if name == "type":
            def event_type(u: Event, regs: Registers) -> bool | None:
                a = u.type
                return op(a, value) if type(a) is str else None
            return event_type

        def text(u: Event, regs: Registers) -> bool | None:
            a = u.attrs.get(name)
            return op(a, value) if type(a) is str else None
        return text
    if name == "type":
        return None

    def number(u: Event, regs: Registers) -> bool | None:
        a = u.attrs.get(name)
        t = type(a)
        if t is float or t is int:
            return op(a, value)
        return None
    return number


def compile_guard(c: Condition, slots: Mapping[str, int]) -> Guard:
    """``(u, regs) ⊨ c`` (Def. 13): true only when ``c`` is *true* (not unknown)."""
    if c == TRUE:
        return lambda u, regs: True
    three = _three(c, slots)
    return lambda u, regs: three(u, regs) is True


def compile_edge(e: Edge, slots: Mapping[str, int]) -> Guard:
    """Everything an edge tests, as one closure."""
    guard = compile_guard(e.guard, slots)
    unless = [compile_guard(c, slots) for c in e.unless]
    clocks = [(slots[c.register], c.bound, c.inside) for c in e.clocks]
    if not unless and not clocks:
        return guard

    def test(u: Event, regs: Registers) -> bool:
        if not guard(u, regs):
            return False
        for g in unless:
            if g(u, regs):
                return False
        for i, bound, inside in clocks:
            held = regs[i]
            if held is None or (u.ts - held.event.ts <= bound) != inside:
                return False
        return True
    return test
