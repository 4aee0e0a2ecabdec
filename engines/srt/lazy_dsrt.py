"""The DSRT of a windowed SREMO with its marks, built lazily over the stream: seed 004,
report Thm 41 (paper Thm 4.11) by the subset construction of Alg. 7, extended so that the
deterministic automaton keeps the outputs (which elements a run marks) and covers time
windows, selection strategies (their unmarked gaps) and bodies that read a register they
write. Used by the engine ``dsrt`` (:mod:`kleene.engines.srt.dsrt`) for every expression
its eager, output-agnostic DSRT cannot report.

**States.** The nondeterministic SRT is the one ``srt`` runs (:mod:`.compile`, time
windows as clocks over a hidden register, :mod:`.windows`; strategies rewritten into
gaps). A state of the DSRT is a set of *members* ``(q, slots)``: an SRT state and, for
each SRT register, the DSRT register (*slot*) holding its element, or ♯. This is Alg. 7's
register copies (report Algs. 3–7: a copy ``r@d`` per depth of the unrolled SRT) with the
copies named by the elements' order instead of their depth: the DSRT's registers are the
distinct elements its members hold, oldest first, so a state names no position and is
reused wherever the same shape recurs. A transition is taken on a *minterm* (which of the
state's atomic tests the element satisfies: guards with registers read through slots,
the ``unless`` conditions, the clocks) and an *output*: the members reached by marking
SRT transitions form the marked successor, the others the unmarked one. So the DSRT is
deterministic on the pair (element, mark): the runs of ``⊤* · e`` that marked the same
positions are in one DSRT state (report Lemma 46's proposition, per output), and a run is
one configuration ``(state, registers)`` with the sets of marks that led to it (a DAG,
:mod:`.marks`). A marked successor holding a final member reports its marks (Alg. 1,
policy ``stream``); policy ``literal`` runs once from the first element and reports the
marks of every run in a final state at the end.

**The bound** (Thm 41 needs a window). A state is position-free, so two runs holding
different elements in the same shape share it; what grows a state is one run (one set of
marked positions) holding many elements at once, through members that differ in their
registers. Under a time window the SRT's window register holds the first marked element
and a member dies once its clock fails (``trim`` removes the states from which nothing
can be reported); so when every register is written at or after the first mark (all of
Wayeb's queries), a member holds elements of one window only: a state has at most
``n + 1`` slots, ``n`` the number of elements that can share a window on the stream, and
at most ``|Q|·(n + 2)^|R|`` members. The automaton is then finite for every stream whose
windows hold at most ``n`` elements, and only the states a stream reaches are built
(minterms likewise: only those that occur, never the ``2^a`` of a state's ``a`` atoms).
A register written before the first mark (an unmarked atom ``φ ↑ ⊗ ↓ r`` outside every
window) is bounded by no window: a run that has marked nothing holds every such
element since its start (each start is a run of its own). Then, or when a stream packs
too many elements into one window, the states grow: :data:`MAX_STATES` caps them, and
beyond it the run stops with a one-line :class:`~kleene.engines.protocol.Limitation`
naming the cap (never a hang).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field

from kleene.engines.pictured import Pictured
from kleene.engines.protocol import Counters, Limitation, Transition
from kleene.engines.srt.automaton import SRT, Edge, Guard, Held, Registers, compile_guard
from kleene.engines.srt.marks import ROOT, Marks, expand, reported, union
from kleene.engines.srt.partition import stream_order
from kleene.reference.budget import Budget
from kleene.reference.conditions import TRUE, Condition, conjunction, rename
from kleene.reference.conditions import Not as NotCondition
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.policies import part_of
from kleene.reference.sremo.expressions import reads

#: The cap on the DSRT states one compiled query builds (over all its runs).
MAX_STATES = 20_000

#: A member of a DSRT state: an SRT state and the slot of each SRT register (0: ♯).
Member = tuple[int, tuple[int, ...]]
State = frozenset[Member]
#: One output of a transition: the target state's id (-1: none), how to build its
#: registers from the old ones and the element (indices into ``regs + (element,)``),
#: and whether it reports (a marked successor holding a final member).
Out = tuple[int, tuple[int, ...], bool]


def _slot(i: int) -> str:
    return f"#{i}"


@dataclass
class Table:
    """What one DSRT state tests and where each minterm leads (built on first need)."""

    members: tuple[Member, ...]
    slots: int                                   # DSRT registers (slot 0 is ♯)
    atoms: tuple[Guard, ...]
    #: each atom's condition (``None``: a clock, not a condition, as in the SRT's pictures)
    shown: tuple[Condition | None, ...]
    #: per member, per SRT edge: (edge, atoms that must hold, atoms that must not)
    tests: tuple[tuple[tuple[Edge, tuple[int, ...], tuple[int, ...]], ...], ...]
    moves: dict[tuple[bool, ...], tuple[Out, Out]] = field(default_factory=dict)


@dataclass
class LazyDSRT(Pictured):
    """The marked DSRT of an SRT (module docstring), determinized as runs reach its
    states. ``srt`` is trimmed for ``policy`` (:func:`~kleene.engines.srt.run.reporting`)."""

    srt: SRT
    policy: str
    max_states: int = MAX_STATES
    #: the attributes of ``e PARTITION BY by`` (one pass per part)
    by: tuple[str, ...] = ()
    registers: tuple[str, ...] = ()
    index: dict[State, int] = field(default_factory=dict, repr=False)
    tables: list[Table] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.registers = self.srt.registers()
        self.start = self.state(frozenset({(self.srt.start, (0,) * len(self.registers))}))

    # ------------------------------------------------------------ the automaton

    @property
    def states(self) -> int:
        """The DSRT states built so far."""
        return len(self.tables)

    @property
    def minterms(self) -> int:
        """The DSRT transitions built so far (one per minterm met, each with two outputs)."""
        return sum(len(t.moves) for t in self.tables)

    @property
    def initial(self) -> frozenset[Hashable]:
        return frozenset({self.start})

    @property
    def accepting(self) -> frozenset[Hashable]:
        finals = self.srt.finals
        return frozenset(i for i, t in enumerate(self.tables)
                         if any(q in finals for q, _ in t.members))

    def iter_transitions(self) -> Iterator[Transition]:
        """The transitions built so far: one per (state, minterm, output)."""
        for i, t in enumerate(self.tables):
            for bits, outs in t.moves.items():
                parts = [c if b else NotCondition(c)
                         for c, b in zip(t.shown, bits, strict=True) if c is not None]
                guard = conjunction(parts) if parts else TRUE
                for mark, (target, _, _) in zip((True, False), outs, strict=True):
                    if target >= 0:
                        yield Transition(i, target, None, guard, "bind", mark, ())

    def state(self, s: State) -> int:
        """The id of the DSRT state ``s`` (built now if new; the cap checked)."""
        found = self.index.get(s)
        if found is not None:
            return found
        if len(self.tables) >= self.max_states:
            raise Limitation(f"the DSRT needs more than {self.max_states} states on this "
                             "stream (the cap; its states grow with the elements that can "
                             "share a window): use srt")
        self.index[s] = len(self.tables)
        self.tables.append(self._table(s))
        return self.index[s]

    def _table(self, s: State) -> Table:
        members = tuple(sorted(s))
        atoms: dict[tuple[object, ...], int] = {}
        compiled: list[Guard] = []
        shown: list[Condition | None] = []

        def atom(key: tuple[object, ...], make: Guard, c: Condition | None = None) -> int:
            if key not in atoms:
                atoms[key] = len(compiled)
                compiled.append(make)
                shown.append(c)
            return atoms[key]
        tests = []
        width = 1
        for q, slots in members:
            width = max(width, *(x + 1 for x in slots)) if slots else width
            names = {r: _slot(x) for r, x in zip(self.registers, slots, strict=True)}
            per = []
            for e in self.srt.out[q]:
                yes, no = [], []
                if e.guard != TRUE:
                    c = self._renamed(e.guard, names)
                    yes.append(atom(("g", c), self._guard(c), c))
                for u in e.unless:
                    c = self._renamed(u, names)
                    no.append(atom(("g", c), self._guard(c), c))
                for clock in e.clocks:
                    x = slots[self.registers.index(clock.register)]
                    yes.append(atom(("k", x, clock.bound, clock.inside),
                                    _clock(x, clock.bound, clock.inside)))
                per.append((e, tuple(yes), tuple(no)))
            tests.append(tuple(per))
        return Table(members, width, tuple(compiled), tuple(shown), tuple(tests))

    @staticmethod
    def _renamed(c: Condition, names: dict[str, str]) -> Condition:
        mapping = {r: names[r] for r in reads(c) if r in names}
        return rename(c, mapping) if mapping else c

    def _guard(self, c: Condition) -> Guard:
        width = max([0, *(int(r[1:]) for r in reads(c))]) + 1
        return compile_guard(c, {_slot(i): i for i in range(width)})

    def move(self, sid: int, bits: tuple[bool, ...]) -> tuple[Out, Out]:
        """The DSRT transition of state ``sid`` on the minterm ``bits``: its marked and
        unmarked outputs (Alg. 7, lines 13–21, per output)."""
        t = self.tables[sid]
        found = t.moves.get(bits)
        if found is not None:
            return found
        new = t.slots                              # the element read, after the old slots
        reached: tuple[set[Member], set[Member]] = (set(), set())
        for (_, slots), per in zip(t.members, t.tests, strict=True):
            for e, yes, no in per:
                if all(bits[i] for i in yes) and not any(bits[i] for i in no):
                    after = tuple(new if r in e.writes else x
                                  for r, x in zip(self.registers, slots, strict=True))
                    reached[0 if e.mark else 1].add((e.target, after))
        outs = (self._out(reached[0], True), self._out(reached[1], False))
        t.moves[bits] = outs
        return outs

    def _out(self, reached: set[Member], marked: bool) -> Out:
        if not reached:
            return (-1, (), False)
        used = sorted({x for _, slots in reached for x in slots if x})
        renumber = {x: i + 1 for i, x in enumerate(used)}
        s = frozenset((q, tuple(renumber.get(x, 0) for x in slots)) for q, slots in reached)
        report = marked and any(q in self.srt.finals for q, _ in reached)
        return (self.state(s), tuple(used), report)

    # ------------------------------------------------------------ the run

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        """The matches over ``events`` (one :class:`Pass`; under ``PARTITION BY by`` one
        per part, :func:`~kleene.reference.policies.part_of`, each element sent to its
        part's pass as it arrives: the DSRT is shared, its runs are the part's own)."""
        c, by = Counters() if counters is None else counters, self.by
        passes: dict[object, Pass] = {}
        one = None if by else Pass(self, c, budget)
        try:
            for u in events:
                if one is None:
                    key = part_of(u, by)
                    p = passes.get(key)
                    if p is None:
                        p = passes[key] = Pass(self, c, budget)
                else:
                    p = one
                found = p.step(u)
                if found:
                    yield from found
            ends: set[Match] = set()
            for p in passes.values() if one is None else (one,):
                ends.update(p.finish())
            yield from sorted(ends, key=stream_order)
        finally:
            for p in passes.values() if one is None else (one,):
                p.flush()


class Pass:
    """One pass of a :class:`LazyDSRT` over a stream (or one part of it): its
    configurations, each holding the sets of marks that reached it (:class:`Marks`)."""

    def __init__(self, d: LazyDSRT, counters: Counters, budget: Budget | None) -> None:
        self.d, self.counters, self.budget = d, counters, budget
        self.streaming = d.policy == "stream"
        self.start = (d.start, (None,))
        self.runs: dict[tuple[int, Registers], Marks] = {} if self.streaming \
            else {self.start: ROOT}
        self.read = self.evaluations = self.created = self.peak = 0

    def step(self, u: Event) -> list[Match]:
        """Read ``u``: every configuration's transition on its minterm, both outputs; the
        matches reported (policy ``stream``)."""
        d, runs = self.d, self.runs
        self.read += 1
        if self.streaming:                     # the ⊤* prefix: a fresh run at every element
            held = runs.get(self.start)
            runs[self.start] = ROOT if held is None else union([held, ROOT])
        element = Held(u)
        tables = d.tables
        nxt: dict[tuple[int, Registers], Marks] = {}
        reports: list[Marks] = []
        for (sid, regs), marks in runs.items():
            atoms = tables[sid].atoms
            self.evaluations += len(atoms)
            outs = d.move(sid, tuple(a(u, regs) for a in atoms))
            extended = regs + (element,)
            for mark, (target, keep, report) in zip((True, False), outs, strict=True):
                if target < 0:
                    continue
                m = Marks(u.position, (marks,)) if mark else marks
                key = (target, (None, *(extended[i] for i in keep)))
                before = nxt.get(key)
                nxt[key] = m if before is None else union([before, m])
                if report and self.streaming:
                    reports.append(m)
        self.runs = nxt
        self.created += len(nxt)
        self.peak = max(self.peak, len(nxt))
        return reported(reports, self.budget) if reports else []

    def finish(self) -> list[Match]:
        """End of the stream: policy ``literal`` reports the marks of every configuration
        in a final state (the empty match too)."""
        if self.streaming:
            return []
        finals = self.d.srt.finals
        memo: dict[int, set[tuple[int, ...]]] = {}
        found: set[tuple[int, ...]] = set()
        for (sid, _), marks in self.runs.items():
            if any(q in finals for q, _ in self.d.tables[sid].members):
                found |= expand(marks, memo, self.budget)
        return [Match.marked(m) if m else Match.of({}) for m in sorted(found)]

    def flush(self) -> None:
        """Write this pass's counts into the counters."""
        c = self.counters
        c.events_read += self.read
        c.predicate_evaluations += self.evaluations
        c.instances_created += self.created
        c.observe_active(self.peak)
        self.read = self.evaluations = self.created = self.peak = 0


def _clock(slot: int, bound: int | float, inside: bool) -> Guard:
    """``~.ts − slot.ts ≤ bound`` (``inside``) or ``> bound``; false over ♯."""
    def test(u: Event, regs: Registers) -> bool:
        held = regs[slot]
        return held is not None and (u.ts - held.event.ts <= bound) == inside
    return test
