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
  ``start`` fits, and every node it enters leads to a match: no dead end;
- CORE keeps each state's union list ordered by maximal start, so that the walk never
  enters an expired branch and, from a union, reaches an output node at once. Here the
  order is a heap: a union is a node of a persistent leftist heap by ``start``
  (:func:`meld`) whose *head* is an output node or ``⊥`` of the union's ``start`` and
  whose other children (one or two heaps) start no later. The walk (:func:`paths`) goes
  from a union to its head and keeps a heap only if its ``start`` fits, so between two
  matches it enters at most two nodes per position of the next one (a union, then an
  output node; and ``⊥``): the delay is linear in the output, a constant of the query
  alone, whatever the window and the partial matches that left it (CORE: output-linear
  delay). Building costs, per element, the live states and a meld of O(rank) new unions
  per state reached twice, the rank logarithmic in the heap's entries (Okasaki, *Purely
  Functional Data Structures*, 3.1); a meld drops the heaps that left the window;
- memory: when an element leaves the window, the nodes made on it are cut (their
  children dropped: no word through them fits any later window), so what is held is the
  nodes of the window's elements, at most ``n`` output nodes an element and the melds'
  unions (``3n`` melds at most: ``2n`` on the element, ``n`` over the run skipped after
  it) for ``n`` determinized states, whatever the number of matches. Without a window
  nothing leaves it;
- past :data:`~kleene.engines.count.sremo.MAX_STATES` determinized states (met at some
  event), :func:`matches` gives way to engine ``srt`` for the matches ending there and
  after, and says so once.
"""

from __future__ import annotations

import math
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import pyarrow as pa

from kleene.data.source import column_batches
from kleene.engines.count import sremo
from kleene.engines.count.registers import Labels
from kleene.engines.count.sremo import Plan, TooManyStates, _Determinized, plan
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
    for a union or ``BOTTOM``), ``start`` the latest first mark over its words,
    ``children`` its child (output) or, for a union, its *head* (the output node or ``⊥``
    whose ``start`` is the union's) then one or two unions or entries of ``start`` at most
    the head's (a heap by ``start``, :func:`meld`); ``rank`` the length of the union's
    rightmost path (1 for an entry)."""

    __slots__ = ("mark", "start", "children", "rank")

    def __init__(self, mark: int | None, start: float, children: tuple[Node, ...],
                 rank: int = 1) -> None:
        self.mark, self.start, self.children, self.rank = mark, start, children, rank


#: The all-0 word: no mark yet (its first mark fits every window).
BOTTOM = Node(None, math.inf, ())


def meld(a: Node, b: Node, lo: float, made: list[Node]) -> Node:
    """A node for the words of ``a`` and of ``b`` (disjoint), both of ``start`` at least
    ``lo``: a persistent leftist heap by ``start`` (Okasaki, *Purely Functional Data
    Structures*, 3.1) whose entries are output nodes and ``⊥``, so the head of every
    union is an entry and no union's ``start`` is below a child's. Of ``a``'s heaps, those
    below ``lo`` are dropped (no word in them fits from here on). New unions go to
    ``made``; O(rank) of them."""
    if a.start < b.start:
        a, b = b, a
    if a.mark is not None or not a.children:          # an entry (output node or ⊥)
        u = Node(None, a.start, (a, b), 1)
        made.append(u)
        return u
    head, *heaps = (k for k in a.children if k.start >= lo)
    if len(heaps) == 2:
        heaps[1] = meld(heaps[1], b, lo, made)
    else:
        heaps.append(b)
    if len(heaps) == 1:
        u = Node(None, a.start, (head, heaps[0]), 1)
    else:
        left, right = sorted(heaps, key=lambda h: -h.rank)
        u = Node(None, a.start, (head, left, right), right.rank + 1)
    made.append(u)
    return u


@dataclass
class Steps:
    """The nodes a walk entered (:func:`paths`): what the delay between two matches is
    counted in (tests/test_count_tecs.py)."""

    entered: int = 0


def paths(node: Node, lo: float, steps: Steps | None = None) -> Iterator[list[int]]:
    """The words of ``node`` (whose ``start`` is at ``lo`` or later) whose first mark is at
    ``lo`` or later, each as its marked positions latest first (the list is reused: copy
    it to keep it); ``steps`` counts the nodes entered.

    A union's head fits whenever the union does, and its other children are kept only if
    their ``start`` fits, so every node entered leads to a word; from a union the walk
    goes to its head (an entry), so between two words it enters at most two nodes per
    mark of the next one, plus ⊥ and a union before it."""
    marks: list[int] = []
    stack: list[tuple[Node, int]] = [(node, 0)]
    while stack:
        n, depth = stack.pop()
        del marks[depth:]
        while True:
            if steps is not None:
                steps.entered += 1
            if n is BOTTOM:
                break
            kids = n.children
            if n.mark is not None:
                marks.append(n.mark)
            else:
                stack.extend((k, len(marks)) for k in kids[:0:-1] if k.start >= lo)
            n = kids[0]
        yield marks


@dataclass
class Part:
    """One part's structure: the node of each live state, and the nodes made on each
    element of the window (its ``where``: timestamp, or position in the part)."""

    nodes: dict[int, Node] = field(default_factory=lambda: {0: BOTTOM})
    held: deque[tuple[float, list[Node]]] = field(default_factory=deque)
    size: int = 0
    lo: float = -math.inf


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
        #: Counts the nodes the walks enter, when set (the delay's test).
        self.steps: Steps | None = None

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
            lo = part.lo = held[0][0] if held else where
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
        part.nodes = _joined(after, made, lo)
        if self.tau is not None:
            part.held.append((where, made))
        return _listed(reporting, lo, position, self.steps)

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
        part.nodes = _joined(after, part.held[-1][1] if part.held else [], part.lo)

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


def _joined(after: dict[int, list[Node]], made: list[Node], lo: float) -> dict[int, Node]:
    """Each state's node: its one node, or their union (:func:`meld`, new unions added to
    ``made``)."""
    nodes: dict[int, Node] = {}
    for q, kids in after.items():
        u = kids[0]
        for k in kids[1:]:
            u = meld(u, k, lo, made)
        nodes[q] = u
    return nodes


def _listed(reporting: list[Node], lo: float, position: int, steps: Steps | None
            ) -> Iterator[Match]:
    """The matches ending at ``position``: the words of the ``reporting`` nodes that fit."""
    for n in reporting:
        for marks in paths(n, lo, steps):
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


def matches(query: Query, source: Iterable[Event], budget: Budget | None = None,
            say: Callable[[str], None] | None = None) -> Iterator[Match]:
    """The matches of ``query`` on ``source`` in the order of their last event, listed as
    each last event is read (one step of ``budget`` each). Past the automaton's
    :data:`~kleene.engines.count.sremo.MAX_STATES`, met at an event, the matches ending
    there and after are engine ``srt``'s on ``source`` read again from its start
    (:func:`gave_way` passed to ``say`` once, by default one line on stderr)."""
    s = structure(query)
    at = 0
    try:
        for at, ts, m, key, run in s.minterms(source):
            ending = s.feed(at, ts, m, key, run)
            yield from ending if budget is None else spending(ending, budget)
    except TooManyStates:
        if iter(source) is source:      # read once: the events before ``at`` are gone
            raise
        (say or _stderr)(gave_way(at))
        # lazy: the engine registry only past the cap
        from kleene.engines.fastest import claiming_engine

        compiled = claiming_engine("srt", query, "--engine").compile(query)
        for found in compiled.run(source, budget=budget):
            if found.last >= at:
                if budget is not None:
                    budget.spend()
                yield found


def gave_way(at: int) -> str:
    """What is said when the structure's automaton passes its cap at event ``at``."""
    return (f"the shared structure's automaton passed {sremo.MAX_STATES:,} states at event "
            f"{at:,}: engine srt lists the matches ending there and after")


def _stderr(line: str) -> None:
    print(f"kleene: {line}", file=sys.stderr)


#: What the structure holds at once for a budget: the matches of one event, as the DSRT.
HELD = "matches ending at one event"


def spending(matches: Iterator[Match], budget: Budget) -> Iterator[Match]:
    """``matches`` (those ending at one event), one step of ``budget`` each, and at most
    as many as it holds at once (docs/architecture.md, "Engine budgets")."""
    for i, m in enumerate(matches, 1):
        budget.hold(i, HELD)
        budget.spend()
        yield m
