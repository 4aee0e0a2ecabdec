"""One pass of the DSRT with marks over a stream, event by event (seed 004, report Alg. 1
over the DSRT of Thm 41 / Alg. 7, :mod:`kleene.engines.srt.lazy_dsrt`); under
``e PARTITION BY a`` one per part, each element sent to its part's pass as it arrives, the
DSRT shared (its states are position-free), the runs the part's own
(:func:`kleene.engines.srt.lazy_sleep.passes`; over a loaded stream's columns the
configurations sleep, :mod:`kleene.engines.srt.lazy_sleep`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kleene.engines.protocol import Counters
from kleene.engines.srt.automaton import SRT, Edge, Guard, Held, Registers
from kleene.engines.srt.marks import ROOT, Marks, expand, reported, union
from kleene.reference.budget import Budget
from kleene.reference.conditions import Condition
from kleene.reference.events import Event
from kleene.reference.match import Match

#: One output of a DSRT transition (:data:`kleene.engines.srt.lazy_dsrt.Out`).
Out = tuple[int, tuple[int, ...] | None, bool]


@dataclass
class Table:
    """What one DSRT state tests and where each minterm leads (built on first need)."""

    members: tuple[tuple[int, tuple[int, ...]], ...]
    slots: int                                   # DSRT registers (slot 0 is ♯)
    atoms: tuple[Guard, ...]
    #: each atom's condition (``None``: a clock, not a condition, as in the SRT's pictures)
    shown: tuple[Condition | None, ...]
    #: the atoms false on every idle element (guards of non-``TRUE`` transitions)
    quiet: tuple[bool, ...]
    #: whether every other atom is a clock
    clocks_only: bool
    #: the clock atoms: (atom, slot, bound, inside)
    clocks: tuple[tuple[int, int, int | float, bool], ...]
    #: per member, per SRT edge: (edge, atoms that must hold, atoms that must not)
    tests: tuple[tuple[tuple[Edge, tuple[int, ...], tuple[int, ...]], ...], ...]
    #: per atom, the bit of ``relevant`` that is its head-only conjuncts (-1: tested whole)
    heads: tuple[int, ...]
    #: per atom with a head bit, its conjuncts that read a register (``None``: none)
    bodies: tuple[Guard | None, ...]
    moves: dict[tuple[bool, ...], tuple[Out, Out]] = field(default_factory=dict)


class Automaton(Protocol):
    """What a pass reads of the DSRT (:class:`~kleene.engines.srt.lazy_dsrt.LazyDSRT`)."""

    srt: SRT
    policy: str
    start: int

    tables: list[Table]

    #: per SRT state, the bits of ``relevant`` its guards other than ``TRUE`` need
    member_masks: list[int]
    #: the attributes an atom reads where a row's bits do not decide it
    read_attrs: frozenset[str]

    def finals(self, sid: int) -> bool: ...

    @property
    def relevant(self) -> list[Condition] | None: ...

    def idle(self, u: Event) -> bool: ...

    def idle_bits(self, sid: int, regs: Registers, ts: int | float
                  ) -> tuple[bool, ...] | None: ...

    def unchanged(self, sid: int, bits: tuple[bool, ...]) -> bool: ...

    def move(self, sid: int, bits: tuple[bool, ...]) -> tuple[Out, Out]: ...


class Step:
    """What a configuration of one DSRT state tests on a woken row with given bits (a row
    of the columns, :mod:`kleene.engines.srt.lazy_sleep`): the atoms the bits decide are
    fixed (``base``: a guard whose head-only conjuncts' bit is unset is false, one whose
    bit is set and that reads no register is true), the others are ``tests`` (a guard's
    conjuncts that read a register, a clock, an atom no bit decides) at the atom indexes
    ``where``; ``outs`` caches the transition per outcome of the tests (bit ``k``:
    ``tests[k]`` holds), so a deterministic step is the tests and one lookup."""

    __slots__ = ("base", "outs", "tests", "where")

    def __init__(self, base: list[bool], tests: tuple[Guard, ...],
                 where: tuple[int, ...]) -> None:
        self.base, self.tests, self.where = base, tests, where
        self.outs: dict[int, tuple[Out, Out]] = {}

    @classmethod
    def of(cls, d: Automaton, sid: int, bits: int) -> Step:
        """The step of DSRT state ``sid`` on a row whose bit ``i`` says whether it
        satisfies ``d.relevant[i]``."""
        t = d.tables[sid]
        base = [False] * len(t.atoms)
        tests: list[Guard] = []
        where: list[int] = []
        for a, (h, body) in enumerate(zip(t.heads, t.bodies, strict=True)):
            if h < 0:
                tests.append(t.atoms[a])
                where.append(a)
            elif bits >> h & 1:
                if body is None:
                    base[a] = True
                else:
                    tests.append(body)
                    where.append(a)
        return cls(base, tuple(tests), tuple(where))

    def out(self, d: Automaton, sid: int, r: int) -> tuple[Out, Out]:
        """The transition of ``sid`` where the tests came out as the bits of ``r``."""
        bits = list(self.base)
        for k, a in enumerate(self.where):
            bits[a] = bool(r >> k & 1)
        found = self.outs[r] = d.move(sid, tuple(bits))
        return found


class Pass:
    """One pass of a :class:`~kleene.engines.srt.lazy_dsrt.LazyDSRT` over a stream (or one
    part of it): its configurations, each holding the sets of marks that reached it
    (:class:`Marks`).

    Idle elements (:meth:`Automaton.idle`: no guard but ``TRUE`` can fire on them, and
    the fresh run dies on them) are not read one by one: a stretch of them is kept and
    read once it ends. A configuration whose state's only live tests on such elements are
    clocks (each monotone in the timestamps) takes one minterm on a prefix of what is left
    of the stretch, found by bisection; if that minterm leaves it unchanged, so does the
    prefix, else it takes the minterm's transition on one element (by its timestamp); a
    configuration with other live tests (``unless``) is stepped on the element itself.
    Until it dies or the stretch ends. Exact: the same transitions fire."""

    def __init__(self, d: Automaton, counters: Counters, budget: Budget | None) -> None:
        self.d, self.counters, self.budget = d, counters, budget
        self.streaming = d.policy == "stream"
        self.start = (d.start, (None,))
        self.runs: dict[tuple[int, Registers], Marks] = {} if self.streaming \
            else {self.start: ROOT}
        self.pending: list[Event] = []
        self.read = self.evaluations = self.created = self.peak = self.skipped = 0

    def step(self, u: Event) -> list[Match]:
        """Read ``u``: every configuration's transition on its minterm, both outputs; the
        matches reported (policy ``stream``)."""
        self.read += 1
        if self.d.idle(u):
            self.skipped += 1
            if self.runs:
                self.pending.append(u)
            return []
        self._kept()
        return self.read_one(u)

    def _kept(self) -> None:
        """Read the kept stretch of idle elements, if any."""
        if self.pending:
            pending = self.pending
            self.stretch([u.ts for u in pending], pending.__getitem__)
            self.pending = []

    def read_one(self, u: Event) -> list[Match]:
        """Read the element ``u``, not idle, every idle element before it read."""
        runs = self.runs
        if self.streaming:                     # the ⊤* prefix: a fresh run at every element
            held = runs.get(self.start)
            runs[self.start] = ROOT if held is None else union([held, ROOT])
        nxt: dict[tuple[int, Registers], Marks] = {}
        reports = self._advance(u, runs.items(), nxt)
        self.runs = nxt
        self.created += len(nxt)
        self.peak = max(self.peak, len(nxt))
        return reported(reports, self.budget) if reports and self.streaming else []

    def _advance(self, u: Event, runs: Iterable[tuple[tuple[int, Registers], Marks]],
                 nxt: dict[tuple[int, Registers], Marks]) -> list[Marks]:
        """Every configuration of ``runs`` on ``u`` into ``nxt``; the marks it reports."""
        d = self.d
        element = Held(u)
        reports: list[Marks] = []
        tables = d.tables
        for (sid, regs), marks in runs:
            t = tables[sid]
            atoms = t.atoms
            self.evaluations += len(atoms)
            bits = tuple([a(u, regs) for a in atoms])
            outs = t.moves.get(bits) or d.move(sid, bits)
            (target, keep, report), (after, kept, _) = outs
            if target >= 0:
                m = Marks(u.position, (marks,))
                key = (target, regs if keep is None
                       else (None, *((regs + (element,))[i] for i in keep)))
                before = nxt.get(key)
                nxt[key] = m if before is None else union([before, m])
                if report:
                    reports.append(m)
            if after >= 0:
                key = (after, regs if kept is None
                       else (None, *((regs + (element,))[i] for i in kept)))
                before = nxt.get(key)
                nxt[key] = marks if before is None else union([before, marks])
        return reports

    def stretch(self, stamps: Sequence[int | float], event: Callable[[int], Event]) -> None:
        """Read a stretch of idle elements (class docstring): their timestamps, and
        ``event(i)`` the ``i``-th of them (built only where a configuration is stepped
        through it). Nothing reports on them (their only transitions are unmarked)."""
        d, n = self.d, len(stamps)
        nxt: dict[tuple[int, Registers], Marks] = {}
        work = [(0, config, marks) for config, marks in self.runs.items()]
        while work:
            i, config, marks = work.pop()
            if i == n:
                before = nxt.get(config)
                nxt[config] = marks if before is None else union([before, marks])
                continue
            sid, regs = config
            bits = d.idle_bits(sid, regs, stamps[i])
            if bits is not None and d.unchanged(sid, bits):
                # each clock is monotone over the stretch, so the elements from i whose
                # minterm is this one are a prefix of the rest: bisect for its end
                lo, hi = i + 1, n
                while lo < hi:
                    mid = (lo + hi) // 2
                    if d.idle_bits(sid, regs, stamps[mid]) == bits:
                        lo = mid + 1
                    else:
                        hi = mid
                work.append((lo, config, marks))
                continue
            if bits is not None:       # decided on clocks: only unmarked, no writes
                self.evaluations += len(bits)
                target, keep, _ = d.move(sid, bits)[1]
                if target >= 0:
                    work.append((i + 1, (target, regs if keep is None
                                         else (None, *(regs[k] for k in keep))), marks))
                continue
            after: dict[tuple[int, Registers], Marks] = {}
            self._advance(event(i), ((config, marks),), after)
            work.extend((i + 1, key, m) for key, m in after.items())
        self.runs = nxt

    def finish(self) -> list[Match]:
        """End of the stream: policy ``literal`` reports the marks of every configuration
        in a final state (the empty match too)."""
        if self.streaming:
            return []
        self._kept()
        memo: dict[int, set[tuple[int, ...]]] = {}
        found: set[tuple[int, ...]] = set()
        for (sid, _), marks in self.runs.items():
            if self.d.finals(sid):
                found |= expand(marks, memo, self.budget)
        return [Match.marked(m) if m else Match.of({}) for m in sorted(found)]

    def flush(self) -> None:
        """Write this pass's counts into the counters."""
        c = self.counters
        c.events_read += self.read
        c.predicate_evaluations += self.evaluations
        c.instances_created += self.created
        c.events_filtered += self.skipped
        c.observe_active(self.peak)
        self.read = self.evaluations = self.created = self.peak = self.skipped = 0
