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
from kleene.engines.srt.agenda import srt_masks
from kleene.engines.srt.automaton import SRT, Guard, Registers, compile_guard
from kleene.engines.srt.columns import MAX_BITS
from kleene.engines.srt.lazy_pass import Table
from kleene.engines.srt.lazy_sleep import passes
from kleene.engines.srt.skip import head_condition, skipping
from kleene.reference.budget import Budget
from kleene.reference.conditions import (
    TRUE,
    Attr,
    Condition,
    conjunction,
    conjuncts,
    rename,
    subterms,
)
from kleene.reference.conditions import Not as NotCondition
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import reads

#: The cap on the DSRT states one compiled query builds (over all its runs).
MAX_STATES = 20_000

#: A member of a DSRT state: an SRT state and the slot of each SRT register (0: ♯).
Member = tuple[int, tuple[int, ...]]
State = frozenset[Member]
#: One output of a transition: the target state's id (-1: none), how to build its
#: registers from the old ones and the element (indices into ``regs + (element,)``;
#: ``None``: the old ones as they are), and whether it reports (a marked successor
#: holding a final member).
Out = tuple[int, tuple[int, ...] | None, bool]


def _slot(i: int) -> str:
    return f"#{i}"


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
        relevant, moves = skipping(self.srt, {r: i for i, r in enumerate(self.registers)})
        if relevant is not None and self.policy == "stream" and moves[self.srt.start]:
            relevant = None      # the fresh run lives on an idle element: read them all
        #: one of these head-only conditions holds on every element that is not idle
        self.relevant = relevant
        self._relevant = None if relevant is None else \
            [compile_guard(c, {}) for c in relevant]
        #: per SRT state, the bits of ``relevant`` its non-``TRUE`` guards need
        self.member_masks = [] if relevant is None else srt_masks(self.srt, relevant)
        #: the bit of each of ``relevant`` in a row's bits (none beyond ``MAX_BITS``)
        self.bit_of = {} if relevant is None or len(relevant) > MAX_BITS else \
            {c: i for i, c in enumerate(relevant)}
        #: the attributes an atom reads where a row's bits do not decide it (``type``: the
        #: type): a woken row's event carries only these
        self.read_attrs = frozenset(
            t.attr for e in self.srt.edges
            for c in (*(c for c in conjuncts(e.guard)
                        if reads(c) or head_condition(e) not in self.bit_of), *e.unless)
            for t in subterms(c) if isinstance(t, Attr))
        self.start = self.state(frozenset({(self.srt.start, (0,) * len(self.registers))}))

    def finals(self, sid: int) -> bool:
        """Whether state ``sid`` holds a final member (accepts, policy ``literal``)."""
        return any(q in self.srt.finals for q, _ in self.tables[sid].members)

    def idle(self, u: Event) -> bool:
        """Whether ``u`` satisfies none of the guards' head-only conjuncts
        (:func:`~kleene.engines.srt.skip.skipping`), so that only unmarked ``TRUE``
        transitions that write nothing fire on it (never, when those carry marks or
        writes, or when the fresh run has one)."""
        relevant = self._relevant
        return relevant is not None and not any(test(u, ()) for test in relevant)

    def idle_bits(self, sid: int, regs: Registers, ts: int | float
                  ) -> tuple[bool, ...] | None:
        """The minterm of a configuration ``(sid, regs)`` on an idle element at time ``ts``:
        its quiet atoms false, its clocks tested (``None`` when another atom is live: an
        ``unless`` test, not monotone in the timestamps)."""
        t = self.tables[sid]
        if not t.clocks_only:
            return None
        bits = [False] * len(t.atoms)
        for i, slot, bound, inside in t.clocks:
            held = regs[slot]
            bits[i] = held is not None and (ts - held.event.ts <= bound) == inside
        return tuple(bits)

    def unchanged(self, sid: int, bits: tuple[bool, ...]) -> bool:
        """Whether the minterm ``bits`` leaves a configuration of state ``sid`` as it is."""
        (marked, _, _), (target, keep, _) = self.move(sid, bits)
        return marked < 0 and target == sid and keep is None

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

        quiet: set[int] = set()
        clocks: dict[int, tuple[int, int, int | float, bool]] = {}
        split: dict[int, Condition] = {}          # the condition of each guard atom

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
                    quiet.add(yes[-1])
                    split.setdefault(yes[-1], c)
                for u in e.unless:
                    c = self._renamed(u, names)
                    no.append(atom(("g", c), self._guard(c), c))
                    split.setdefault(no[-1], c)
                for clock in e.clocks:
                    x = slots[self.registers.index(clock.register)]
                    yes.append(atom(("k", x, clock.bound, clock.inside),
                                    _clock(x, clock.bound, clock.inside)))
                    clocks[yes[-1]] = (yes[-1], x, clock.bound, clock.inside)
                per.append((e, tuple(yes), tuple(no)))
            tests.append(tuple(per))
        heads, bodies = [], []
        for i in range(len(compiled)):
            head, body = _split(split[i]) if i in split else (None, None)
            heads.append(self.bit_of.get(head, -1) if head is not None else -1)
            bodies.append(None if body is None or heads[-1] < 0 else self._guard(body))
        return Table(members, width, tuple(compiled), tuple(shown),
                     tuple(i in quiet for i in range(len(compiled))),
                     all(i in quiet or shown[i] is None for i in range(len(compiled))),
                     tuple(clocks.values()), tuple(tests), tuple(heads), tuple(bodies))

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
        outs = (self._out(reached[0], True, new), self._out(reached[1], False, new))
        t.moves[bits] = outs
        return outs

    def _out(self, reached: set[Member], marked: bool, width: int) -> Out:
        if not reached:
            return (-1, None, False)
        used = sorted({x for _, slots in reached for x in slots if x})
        renumber = {x: i + 1 for i, x in enumerate(used)}
        s = frozenset((q, tuple(renumber.get(x, 0) for x in slots)) for q, slots in reached)
        report = marked and any(q in self.srt.finals for q, _ in reached)
        same = used == list(range(1, width))   # the registers as they are
        return (self.state(s), None if same else tuple(used), report)

    # ------------------------------------------------------------ the run

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        """The matches over ``events`` (:func:`~kleene.engines.srt.lazy_sleep.passes`: one
        pass, or one per part under ``PARTITION BY``)."""
        return passes(self, events, Counters() if counters is None else counters, budget,
                      self.by)


def _split(c: Condition) -> tuple[Condition | None, Condition | None]:
    """``c`` as its conjuncts that read no register and those that do (``None``: none);
    ``c`` holds iff both do (a conjunction is true iff each conjunct is)."""
    parts = conjuncts(c)
    head = [x for x in parts if not reads(x)]
    body = [x for x in parts if reads(x)]
    return (conjunction(head) if head else None), (conjunction(body) if body else None)


def _clock(slot: int, bound: int | float, inside: bool) -> Guard:
    """``~.ts − slot.ts ≤ bound`` (``inside``) or ``> bound``; false over ♯."""
    def test(u: Event, regs: Registers) -> bool:
        held = regs[slot]
        return held is not None and (u.ts - held.event.ts <= bound) == inside
    return test
