"""SREMO matches (policy ``stream``: CEL's ``ALL`` for a CEQL query) listed from a shared
DAG of partial matches, built element by element: CORE's tECS (Bucchi, Grez, Quintana,
Riveros, Vansummeren, "CORE: a COmplex event Recognition Engine", VLDB 2022; the
enumeration of Grez, Riveros, Ugarte, "A Formal Framework for Complex Event
Recognition", TODS 2021, Sec. 6). docs/counting.md, "Listing from a shared structure".

The matches are those of :func:`kleene.reference.sremo.streaming.stream_matches` (each set
of marked positions once, reported at its last element), in the fragment the count claims
(:func:`kleene.engines.count.sremo.plan`: unary guards, a window at the top if any,
``PARTITION BY``; not a register keying the runs). The structure reads the count's
automaton (:class:`kleene.engines.count.sremo._Determinized`: the streaming SRT
determinized over (minterm, bit) letters, each mark word reaching exactly one state):

- a *node* stands for a set of mark words (partial matches): ``BOTTOM`` the all-0 word
  (no mark yet), an *output* node ``p → child`` the words of ``child`` with the element at
  stream position ``p`` marked, a *union* node the disjoint union of its children;
- after each element, each live state ``q`` of the automaton holds one node, the words
  that reach ``q``: the union over the states ``q'`` before it of ``q'``'s node (bit 0,
  when ``δ(q', (m, 0)) = q``) and of ``p → (q'`` 's node``)`` (bit 1). The automaton being
  deterministic over mark words, the union is disjoint: no match is reached twice and none
  needs a set to remove a duplicate;
- the matches ending at the element ``k`` are the words of the nodes of the states that
  report on ``k``'s minterm, each with ``k`` marked (:func:`paths`, depth first);
- each node keeps ``start``, the latest first mark over its words (the timestamp, or the
  position in its part under a count window): a word fits the window ending at ``k`` iff
  its first mark fits with ``k`` (:func:`~kleene.reference.durations.fits`, the oldest
  element that fits found as the count does), so a walk enters only a node whose
  ``start`` fits, and every node it enters leads to a match: no dead end. A union keeps
  its children by ``start``, latest first, and the walk stops at the first that does
  not fit (and drops it for good, :func:`paths`). Time: the walk's steps number at most
  the marks written, the matches and the nodes made, so listing is linear in the output;
  between two matches it follows one path, at most two nodes per element of the window;
  building costs O(live states) per element;
- memory: when an element leaves the window, the nodes made on it are cut (their
  children dropped: no word through them fits any later window), so what is held is the
  nodes of the window's elements, at most ``2n`` an element for ``n`` determinized states,
  whatever the number of matches. Without a window nothing leaves it.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import pyarrow as pa

from kleene.data.source import column_batches
from kleene.engines.count.registers import Labels
from kleene.engines.count.sremo import Plan, _Determinized, plan
from kleene.engines.srt.automaton import Guard, compile_guard
from kleene.engines.srt.columns import MAX_BITS, ROWS, candidates
from kleene.reference.budget import Budget
from kleene.reference.ceql.selection import Selected
from kleene.reference.conditions import TRUE, Condition
from kleene.reference.durations import Duration, fits
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import MARKED, Match
from kleene.reference.policies import part_of
from kleene.reference.query import Query

#: The name said for this listing (``--first K``'s backend).
NAME = "tecs"


class Node:
    """A node of the structure: ``mark`` the stream position an output node marks (``None``
    for a union or ``BOTTOM``), ``start`` the latest first mark over its words, ``children``
    its child (output) or children by ``start``, latest first (union)."""

    __slots__ = ("mark", "start", "children")

    def __init__(self, mark: int | None, start: float, children: tuple[Node, ...]) -> None:
        self.mark, self.start, self.children = mark, start, children


#: The all-0 word: no mark yet (its first mark fits every window).
BOTTOM = Node(None, math.inf, ())


def paths(node: Node, lo: float) -> Iterator[list[int]]:
    """The words of ``node`` whose first mark is at ``lo`` or later, each as its marked
    positions latest first (the list is reused: copy it to keep it).

    ``lo`` only grows along a part's elements, so a union's children that do not fit now
    never fit again: the walk drops them, and a union left with one child becomes a copy
    of it (the same words), so no walk passes a union that does not branch twice."""
    marks: list[int] = []
    stack: list[tuple[Node, int]] = [(node, 0)]
    while stack:
        n, depth = stack.pop()
        del marks[depth:]
        while n is not BOTTOM:
            kids = n.children
            if n.mark is not None:
                marks.append(n.mark)
                n = kids[0]
                continue
            i = 1
            while i < len(kids) and kids[i].start >= lo:
                i += 1
            if i == 1:                  # one child fits: the union is that child
                only = kids[0]
                n.mark, n.children = only.mark, only.children
                continue
            if i < len(kids):
                n.children = kids = kids[:i]
            stack.extend((kids[j], len(marks)) for j in range(i - 1, 0, -1))
            n = kids[0]
        yield marks


@dataclass
class Part:
    """One part's structure: the node of each live state, and the nodes made on each
    element of the window (its ``where``: timestamp, or position in the part)."""

    nodes: dict[int, Node] = field(default_factory=lambda: {0: BOTTOM})
    held: deque[tuple[float, list[Node]]] = field(default_factory=deque)
    size: int = 0


class Structure:
    """The tECS of a query :func:`claims`, fed event by event (:meth:`feed`)."""

    def __init__(self, query: Query, found: Plan) -> None:
        self.srt, self.by = found.srt, found.by
        window = found.window
        self.timed = isinstance(window, Duration)
        self.tau: float | None = None
        if isinstance(window, Duration):
            self.tau = window.in_units_of(query.time_unit)
        elif window is not None:
            self.tau = window - 1
        self.reading = query.reading if self.timed else "inclusive"
        # strict, τ = 0: not even one element fits, so no match does
        self.empty = self.tau is not None and not fits(0, self.tau, self.reading)
        self.guards: list[Condition] = sorted({e.guard for e in self.srt.edges
                                               if e.guard != TRUE}, key=str)
        bits = {g: 1 << i for i, g in enumerate(self.guards)}
        self.tests: list[tuple[int, Guard]] = [(bits[g], compile_guard(g, {}))
                                               for g in self.guards]
        self.out: Labels = [[(0 if e.guard == TRUE else bits[e.guard], e.mark, e.target)
                             for e in self.srt.out[q]] for q in range(self.srt.size)]
        # a marking transition every element can take: no element may be skipped
        self.any_marks = any(e.mark and e.guard == TRUE for e in self.srt.edges)
        self.seen: set[int] = set()
        self.automaton = _Determinized(self.srt, self.out, ())
        self.parts: dict[object, Part] = {}

    def _meet(self, m: int) -> None:
        """Build the automaton over minterm ``m`` too (its states renumbered: each part's
        nodes move to their states' new numbers)."""
        self.seen.add(m)
        old = self.automaton
        self.automaton = new = _Determinized(self.srt, self.out, self.seen)
        for part in self.parts.values():
            part.nodes = {new.index[old.states[q]]: n for q, n in part.nodes.items()}

    def feed(self, position: int, ts: float, m: int, key: object = None, run: int = 0
             ) -> Iterator[Match]:
        """Read the event at stream ``position`` (minterm ``m``, part ``key``) and list the
        matches it ends (list them before the next call: it may cut their nodes); with
        ``run``, the ``run`` events from ``position`` on, of minterm ``m``, that no marking
        transition can take (they end no match)."""
        if self.empty:
            return iter(())
        if m not in self.seen:
            self._meet(m)
        part = self.parts.get(key)
        if part is None:
            part = self.parts[key] = Part()
        if run:
            self._skip(part, m, run)
            return iter(())
        where = ts if self.timed else part.size
        part.size += 1
        lo = -math.inf
        if self.tau is not None:
            held = part.held
            while held and not fits(where - held[0][0], self.tau, self.reading):
                for old in held.popleft()[1]:
                    old.children = ()        # cut: no word through it fits from here on
            lo = held[0][0] if held else where
        a = self.automaton
        reporting = [n for q in a.reports[m] if (n := part.nodes.get(q)) is not None
                     and n.start >= lo]
        made: list[Node] = []
        after: dict[int, list[Node]] = {}
        zero, one = a.zero[m], a.one[m]
        for q, n in part.nodes.items():
            if n.start < lo:
                continue
            q0, q1 = zero[q], one[q]
            if q0 is not None:
                after.setdefault(q0, []).append(n)
            if q1 is not None:
                o = Node(position, where if n is BOTTOM else n.start, (n,))
                made.append(o)
                after.setdefault(q1, []).append(o)
        part.nodes = self._joined(after, made)
        if self.tau is not None:
            part.held.append((where, made))
        return _listed(reporting, lo, position)

    def _skip(self, part: Part, m: int, run: int) -> None:
        """Step ``part`` over ``run`` unmarked elements of minterm ``m`` (a function on
        states: nodes only merge, into unions made on the window's last element)."""
        f = self.automaton.zero_power(m, run)
        part.size += run
        after: dict[int, list[Node]] = {}
        for q, n in part.nodes.items():
            t = f[q]
            if t is not None:
                after.setdefault(t, []).append(n)
        part.nodes = self._joined(after, part.held[-1][1] if part.held else [])

    @staticmethod
    def _joined(after: dict[int, list[Node]], made: list[Node]) -> dict[int, Node]:
        """Each state's node: its one node, or the union of them (added to ``made``)."""
        nodes: dict[int, Node] = {}
        for q, kids in after.items():
            if len(kids) == 1:
                nodes[q] = kids[0]
            else:
                kids.sort(key=lambda n: -n.start)
                nodes[q] = u = Node(None, kids[0].start, tuple(kids))
                made.append(u)
        return nodes

    def minterms(self, source: Iterable[Event]
                 ) -> Iterator[tuple[int, float, int, object, int]]:
        """The events of ``source`` as :meth:`feed` reads them: (stream position,
        timestamp, minterm, part, run); over columns without parts, the rows where no guard
        holds (so no marking transition takes them: the caller checks) as runs."""
        batches = None if self.by or self.any_marks or len(self.guards) > MAX_BITS \
            else column_batches(source, ROWS)
        if batches is None:
            for p, u in enumerate(source):
                m = 0
                for bit, test in self.tests:
                    if test(u, ()):
                        m |= bit
                yield p, u.ts, m, part_of(u, self.by) if self.by else None, 0
            return
        last = end = -1
        for start, cols in batches:
            rows, bits = candidates(cols, self.guards)
            stamps = cols.ts.take(pa.array(rows, type=pa.int64())).to_pylist()
            for row, ts, m in zip((rows + start).tolist(), stamps, bits.tolist(), strict=True):
                if row > last + 1:
                    yield last + 1, 0, 0, None, row - last - 1
                yield row, ts, m, None, 0
                last = row
            end = start + len(cols)
        if end > last + 1:     # the events after the last candidate
            yield last + 1, 0, 0, None, end - last - 1


def _listed(reporting: list[Node], lo: float, position: int) -> Iterator[Match]:
    """The matches ending at ``position``: the words of the ``reporting`` nodes that fit."""
    for n in reporting:
        for marks in paths(n, lo):
            yield Match(((MARKED, (*reversed(marks), position)),))


def claims(query: Query) -> Plan | str:
    """The count's plan of ``query`` when the structure lists it, or why not (one line)."""
    if isinstance(query.pattern, Selected):
        return ("the structure lists CEL's ALL set; this query's SELECT strategy, CONSUME BY "
                "or LIMIT keeps part of it")
    found = plan(query)
    if isinstance(found, Plan) and found.keyed is not None:
        return "a register keying the runs is counted, not listed, by key"
    return found


def structure(query: Query) -> Structure:
    """A fresh structure for ``query`` (one :func:`claims`; else ``Unsupported``)."""
    found = claims(query)
    if isinstance(found, str):
        raise Unsupported(found)
    return Structure(query, found)


def matches(query: Query, source: Iterable[Event], budget: Budget | None = None
            ) -> Iterator[Match]:
    """The matches of ``query`` on ``source`` in the order of their last event, listed as
    each last event is read (one step of ``budget`` each)."""
    s = structure(query)
    for p, ts, m, key, run in s.minterms(source):
        ending = s.feed(p, ts, m, key, run)
        yield from ending if budget is None else spending(ending, budget)


#: What the structure holds at once for a budget: the matches of one event, as the DSRT.
HELD = "matches ending at one event"


def spending(matches: Iterator[Match], budget: Budget) -> Iterator[Match]:
    """``matches`` (those ending at one event), one step of ``budget`` each, and at most
    as many as it holds at once (docs/architecture.md, "Engine budgets")."""
    for i, m in enumerate(matches, 1):
        budget.hold(i, HELD)
        budget.spend()
        yield m
