"""One pass of the DSRT with marks over a stream (seed 004, report Alg. 1 over the DSRT
of Thm 41 / Alg. 7, :mod:`kleene.engines.srt.lazy_dsrt`), and one per part of
``e PARTITION BY a``: each element sent to its part's pass as it arrives, the DSRT shared
(its states are position-free), the runs the part's own."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from kleene.engines.protocol import Counters
from kleene.engines.srt.automaton import Guard, Held, Registers
from kleene.engines.srt.marks import ROOT, Marks, expand, reported, union
from kleene.engines.srt.partition import stream_order
from kleene.reference.budget import Budget
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.policies import part_of

#: One output of a DSRT transition (:data:`kleene.engines.srt.lazy_dsrt.Out`).
Out = tuple[int, tuple[int, ...], bool]


class Automaton(Protocol):
    """What a pass reads of the DSRT (:class:`~kleene.engines.srt.lazy_dsrt.LazyDSRT`)."""

    policy: str
    start: int

    def atoms(self, sid: int) -> tuple[Guard, ...]: ...

    def finals(self, sid: int) -> bool: ...

    def idle(self, u: Event) -> bool: ...

    def idle_bits(self, sid: int, regs: Registers, u: Event) -> tuple[bool, ...] | None: ...

    def unchanged(self, sid: int, bits: tuple[bool, ...]) -> bool: ...

    def move(self, sid: int, bits: tuple[bool, ...]) -> tuple[Out, Out]: ...


def passes(d: Automaton, events: Iterable[Event], c: Counters, budget: Budget | None,
           by: tuple[str, ...]) -> Iterator[Match]:
    """The matches of ``d`` over ``events``: one :class:`Pass`, or under ``PARTITION BY
    by`` one per part (:func:`~kleene.reference.policies.part_of`)."""
    parts: dict[object, Pass] = {}
    one = None if by else Pass(d, c, budget)
    try:
        for u in events:
            if one is None:
                key = part_of(u, by)
                p = parts.get(key)
                if p is None:
                    p = parts[key] = Pass(d, c, budget)
            else:
                p = one
            found = p.step(u)
            if found:
                yield from found
        ends: set[Match] = set()
        for p in parts.values() if one is None else (one,):
            ends.update(p.finish())
        yield from sorted(ends, key=stream_order)
    finally:
        for p in parts.values() if one is None else (one,):
            p.flush()


class Pass:
    """One pass of a :class:`~kleene.engines.srt.lazy_dsrt.LazyDSRT` over a stream (or one
    part of it): its configurations, each holding the sets of marks that reached it
    (:class:`Marks`).

    Idle elements (:meth:`Automaton.idle`: no guard but ``TRUE`` can fire on them, and
    the fresh run dies on them) are not read one by one: a stretch of them is kept and
    read once it ends. A configuration whose state's only live tests on such elements are
    clocks (each monotone in the timestamps) takes one minterm on a prefix of the stretch,
    found by bisection; if that minterm leaves it unchanged, so does the prefix. From the
    first element after it (from the first, otherwise) it is stepped element by element
    until it dies or the stretch ends. Exact: the same transitions fire."""

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
        if self.pending:
            self._stretch()
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
        for (sid, regs), marks in runs:
            atoms = d.atoms(sid)
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
                if report:
                    reports.append(m)
        return reports

    def _stretch(self) -> None:
        """Read the kept stretch of idle elements (class docstring); nothing reports on
        them (their only transitions are unmarked)."""
        d, pending = self.d, self.pending
        first = pending[0]
        nxt: dict[tuple[int, Registers], Marks] = {}
        for config, marks in self.runs.items():
            sid, regs = config
            lo = 0            # the first element that may change it
            bits = d.idle_bits(sid, regs, first)
            if bits is not None and d.unchanged(sid, bits):
                # each clock is monotone over the stretch, so the elements whose minterm
                # is the first's are a prefix of it: bisect for its end
                lo, hi = 1, len(pending)
                while lo < hi:
                    mid = (lo + hi) // 2
                    if d.idle_bits(sid, regs, pending[mid]) == bits:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo == len(pending):
                    before = nxt.get(config)
                    nxt[config] = marks if before is None else union([before, marks])
                    continue
            alone: dict[tuple[int, Registers], Marks] = {config: marks}
            for u in pending[lo:]:
                after: dict[tuple[int, Registers], Marks] = {}
                self._advance(u, alone.items(), after)
                alone = after
                if not alone:
                    break
            for key, m in alone.items():
                before = nxt.get(key)
                nxt[key] = m if before is None else union([before, m])
        self.runs = nxt
        self.pending = []

    def finish(self) -> list[Match]:
        """End of the stream: policy ``literal`` reports the marks of every configuration
        in a final state (the empty match too)."""
        if self.streaming:
            return []
        if self.pending:
            self._stretch()
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
