"""One pass of the streaming run of an SRT over a stream: seed 004, report Alg. 1
(Sec. 4.3, Defs. 21–24).

A configuration is ``(q, v, M)``: a state, the registers (one slot per register,
♯ = ``None``) and the positions marked so far. :class:`Execution` keeps the runs of
the streaming SRT ``T_s`` of ``⊤* · e`` grouped by ``(q, v)`` (their ``M`` shared as
:class:`~kleene.engines.srt.marks.Marks`), adds the fresh run of the ``⊤*`` prefix
before each element (:meth:`Execution.fresh`), clones each run once per successor
configuration (``FindSuccessorConfigurations``), and reports the M of a run that
reaches a final state through a marking transition (policy ``stream``) or, at the end
of the stream, of every run in a final state (policy ``literal``). The engine that
drives it is :mod:`kleene.engines.srt.run`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kleene.engines.protocol import Counters
from kleene.engines.srt.automaton import (
    SRT,
    Edge,
    Guard,
    Held,
    Registers,
    compile_edge,
    compile_guard,
)
from kleene.engines.srt.marks import ROOT, Marks, expand, reported, union
from kleene.engines.srt.skip import head_condition, skipping
from kleene.reference.budget import Budget
from kleene.reference.conditions import TRUE, conjunction, conjuncts
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import reads

Group = tuple[int, Registers]  # (state, registers): runs that differ only in their marks
#: A transition as a pass fires it: (its tests, target, marks, written slots, reports).
Fired = tuple[Guard, int, bool, tuple[int, ...], bool]


@dataclass
class Execution:
    """One pass of Alg. 1 over a stream. The runs of ``Run(T_s, S..k)`` are kept grouped
    by ``(state, registers)``: runs in one group take the same transitions from now on
    and differ only in what they marked (:class:`Marks`), so each guard is evaluated
    once per group, and a run is cloned (``UpdateRun``) by extending its group's marks."""

    a: SRT
    policy: str
    counters: Counters
    groups: dict[Group, Marks] = field(default_factory=dict)
    faithful: bool = False

    #: what every pass over one compiled SRT shares (the compiled guards, the skipping
    #: tests, caches): computed by the first pass
    shared: dict[str, Any] = field(default_factory=dict)
    #: the run's budget: its limit bounds the sets of marks listed at once (:func:`reported`)
    budget: Budget | None = None

    def __post_init__(self) -> None:
        a = self.a
        self.streaming = self.policy == "stream"
        plan = self.shared.get("plan")
        if plan is None:
            plan = self.shared["plan"] = self._plan()
        (self.slots, self.empty, self.out, self.relevant, self.loops, self.tests,
         self.by_bits, self.fresh_dies, self.starting, self.still) = plan
        if self.policy == "literal":
            self.groups = {(a.start, self.empty): ROOT}
        self.events = self.evaluations = self.created = self.peak = self.skipped = 0

    def memo(self, name: str, make: Callable[[], Any]) -> Any:
        """``make()``, computed once for every pass sharing :attr:`shared`."""
        if name not in self.shared:
            self.shared[name] = make()
        return self.shared[name]

    def _plan(self) -> tuple[Any, ...]:
        a = self.a
        slots = {r: i for i, r in enumerate(a.registers())}
        finals = a.finals
        out = [[(compile_edge(e, slots), e.target, e.mark,
                 tuple(slots[r] for r in e.writes), e.mark and e.target in finals)
                for e in a.out[q]] for q in range(a.size)]
        relevant, loops = skipping(a, slots)
        tests = None if relevant is None else [compile_guard(c, {}) for c in relevant]
        #: a fresh run dies on any element that only TRUE transitions can take
        fresh_dies = not self.streaming or not loops[a.start]
        #: what a fresh run needs of an element to live (when fresh_dies; None: anything)
        heads = [head_condition(e) for e in a.out[a.start]]
        starting = None if not self.streaming or None in heads else \
            list(dict.fromkeys(c for c in heads if c is not None))
        #: states whose groups a stretch of skipped elements can only keep or kill, at
        #: once: no TRUE transition, or one TRUE self-loop whose clocks are all "inside"
        #: (monotone in ts: they hold on the whole stretch iff on its last element)
        still = [not m or (len(m) == 1 and m[0][1] == q and
                           all(inside for _, _, inside in m[0][0]))
                 for q, m in enumerate(loops)]
        by_bits: dict[tuple[int, int], list[Fired]] = {}
        return (slots, (None,) * len(slots), out, relevant, loops, tests, by_bits, fresh_dies,
                starting, still)

    def fresh(self) -> None:
        """The ``⊤*`` prefix of ``T_s`` (policy ``stream``): a run enters the start state."""
        if self.streaming:
            groups = self.groups
            key = (self.a.start, self.empty)
            held = groups.get(key)
            groups[key] = ROOT if held is None else union([held, ROOT])

    def step(self, u: Event) -> list[Match]:
        """Read ``u`` (Alg. 1 lines 3–13): every successor configuration, the reports."""
        self.fresh()
        tests = self.tests
        if tests is not None and not any(test(u, ()) for test in tests):
            self.skip(u.ts)
            return []
        return self.advance(u)

    def edges_for(self, q: int, bits: int) -> list[Fired]:
        """The transitions out of ``q`` that an element can fire when bit ``i`` of ``bits``
        says whether it satisfies ``relevant[i]``: those whose head-only conjuncts hold,
        each tested on the rest of its guard only (a conjunction is true iff each
        conjunct is)."""
        found = self.by_bits.get((q, bits))
        if found is None:
            assert self.relevant is not None
            index = {c: i for i, c in enumerate(self.relevant)}
            finals = self.a.finals
            found = []
            for e in self.a.out[q]:
                if e.guard == TRUE and not e.unless:
                    rest = e
                else:
                    head = head_condition(e)
                    assert head is not None
                    if not bits >> index[head] & 1:
                        continue
                    body = [c for c in conjuncts(e.guard) if reads(c)]
                    rest = Edge(e.source, e.target, conjunction(body) if body else TRUE,
                                e.mark, e.writes, e.unless, e.clocks)
                found.append((compile_edge(rest, self.slots), e.target, e.mark,
                              tuple(self.slots[r] for r in e.writes),
                              e.mark and e.target in finals))
            self.by_bits[(q, bits)] = found
        return found

    def advance(self, u: Event, bits: int | None = None) -> list[Match]:
        """Every successor configuration of every group on ``u`` (after :meth:`fresh`);
        ``bits``: which of ``relevant`` ``u`` satisfies (:meth:`edges_for`), if known."""
        nxt, reports = self.successors(self.groups.items(), u, bits)
        self.events += 1
        if nxt:
            self.groups = {g: (parts[0] if len(parts) == 1 else union(parts))
                           for g, parts in nxt.items()}
            if len(self.groups) > self.peak:
                self.peak = len(self.groups)
        else:
            self.groups = {}
        return reported(reports, self.budget)

    def successors(self, groups: Iterable[tuple[Group, Marks]], u: Event,
                   bits: int | None = None) -> tuple[dict[Group, list[Marks]], list[Marks]]:
        """Alg. 1 lines 5–12 on ``u`` for ``groups``: the successor groups (each with the
        marks to unite) and the marks of the runs that report on ``u``."""
        streaming = self.streaming
        k = u.position
        reports: list[Marks] = []
        nxt: dict[Group, list[Marks]] = {}
        out = self.out
        evaluations = 0
        stored = None
        for (q, regs), marks in groups:
            edges = out[q] if bits is None else self.edges_for(q, bits)
            evaluations += len(edges)
            for test, target, mark, writes, reports_here in edges:
                if not test(u, regs):
                    continue
                if writes:
                    if stored is None:
                        stored = Held(u)
                    slots = list(regs)
                    for i in writes:
                        slots[i] = stored
                    key = (target, tuple(slots))
                else:
                    key = (target, regs)
                marks2 = Marks(k, (marks,)) if mark else marks
                if reports_here and streaming:
                    reports.append(marks2)
                    if self.faithful:
                        continue  # Alg. 1 as printed: a run that reports is killed
                parts = nxt.get(key)
                if parts is None:
                    nxt[key] = [marks2]
                else:
                    parts.append(marks2)
        self.evaluations += evaluations
        self.created += sum(map(len, nxt.values()))
        return nxt, reports

    def skip(self, ts: int | float) -> None:
        """An element (of timestamp ``ts``) that satisfies no guard but ``TRUE``: each group
        takes only its state's ``TRUE`` transitions (unmarked, writing nothing; clocks
        tested), or dies — exactly what evaluating every transition would do."""
        self.events += 1
        self.skipped += 1
        moves = self.loops
        nxt: dict[Group, list[Marks]] = {}
        for (q, regs), marks in self.groups.items():
            for clocks, target in moves[q]:
                if all(regs[i] is not None and (ts - regs[i].event.ts <= bound) == inside
                       for i, bound, inside in clocks):
                    key = (target, regs)
                    parts = nxt.get(key)
                    if parts is None:
                        nxt[key] = [marks]
                    else:
                        parts.append(marks)
        self.groups = {g: (parts[0] if len(parts) == 1 else union(parts))
                       for g, parts in nxt.items()}

    def skip_rows(self, stamps: Sequence[int | float], lo: int, hi: int) -> None:
        """Rows ``lo..hi-1`` of a batch (timestamps ``stamps``), none of which satisfies a
        guard but ``TRUE``: :meth:`fresh` and :meth:`skip` each while a run is alive;
        once none is (and a fresh run would die at once) the rest changes nothing."""
        i = lo
        still = self.still
        while i < hi and (self.groups or not self.fresh_dies):
            if self.fresh_dies and all(still[q] for q, _ in self.groups):
                t = stamps[hi - 1]
                loops = self.loops
                self.groups = {
                    (q, regs): m for (q, regs), m in self.groups.items()
                    if loops[q] and all(regs[r] is not None and t - regs[r].event.ts <= bound
                                        for r, bound, _ in loops[q][0][0])}
                break
            self.fresh()
            self.skip(stamps[i])
            i += 1
        self.events += hi - i
        self.skipped += hi - i

    def flush(self) -> None:
        """Write the counts of this pass into the counters (kept in locals while running)."""
        c = self.counters
        c.events_read += self.events
        c.predicate_evaluations += self.evaluations
        c.instances_created += self.created
        c.events_filtered += self.skipped
        c.observe_active(self.peak)
        self.events = self.evaluations = self.created = self.peak = self.skipped = 0

    def finish(self) -> list[Match]:
        """End of the stream: the literal policy reports the runs in a final state."""
        if self.policy != "literal":
            return []
        memo: dict[int, set[tuple[int, ...]]] = {}
        found = set().union(*(expand(m, memo, self.budget) for (q, _), m in self.groups.items()
                              if q in self.a.finals))
        return [Match.marked(m) if m else Match.of({}) for m in sorted(found)]
