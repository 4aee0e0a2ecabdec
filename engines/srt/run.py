"""The streaming run of an SRT: seed 004, report Alg. 1 (Sec. 4.3, Defs. 21–24), and
the engine ``srt``.

A configuration is ``(q, v, M)``: a state, the registers (one slot per
register, ♯ = ``None``) and the positions marked so far. Alg. 1 runs the
*streaming* SRT ``T_s`` of ``⊤* · e`` (report Sec. 4.3): its ``⊤*`` prefix is
a fresh run in the start state at every element, which :meth:`Execution.step`
adds before reading the element. Each run is cloned once per successor
configuration (``FindSuccessorConfigurations``), and a run that reaches a
final state *through a marking transition* reports its M: exactly
``docs/errata.md``'s normative streaming detection (policy ``stream``: every
``M ∈ Match(e, S_j..k)`` with ``max(M) = k``). Runs equal as configurations
are merged (a set), and a run whose state can no longer reach a reporting
transition is dropped (it would never report: this is what bounds memory under
a window).

Policy ``literal`` (Def. 18 read literally) runs only from the first element
and reports, at the end of the stream, the M of every run in a final state.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kleene.engines.protocol import Counters, Feature, Pictured, Transition, WindowReading
from kleene.engines.registry import register
from kleene.engines.srt.agenda import drive_sleeping, waiting_moves
from kleene.engines.srt.automaton import SRT, Edge, Held, compile_edge, compile_guard, trim
from kleene.engines.srt.columns import ROWS, drive
from kleene.engines.srt.compile import MAX_STATES, Options, compile_sremo
from kleene.engines.srt.partition import run_parts
from kleene.engines.srt.skip import head_condition, key_index, skipping
from kleene.reference.columnar import column_batches
from kleene.reference.conditions import TRUE, conjunction, conjuncts
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import Partition, check, reads
from kleene.reference.sremo.features import CONSTRUCTS, EXPRESSION_TYPES

POLICIES = ("stream", "literal")

Group = tuple[int, tuple]  # (state, registers): runs that differ only in their marks


def reporting(a: SRT, policy: str) -> SRT:
    """``a`` trimmed to the states from which a report is still possible: a marking
    transition into a final state (``stream``) or a final state (``literal``)."""
    if policy == "literal":
        return trim(a)
    report = [e for e in a.edges if e.mark and e.target in a.finals]
    return trim(a, useful={e.source for e in report} | {e.target for e in report})


class Marks:
    """The marks of a group of runs, shared as a DAG (so that runs which agree on state
    and registers are one group, and their 2^n subsets of marks are never listed until a
    report needs them): ``ROOT`` (nothing marked), ``Marks(k, prev)`` (position ``k``
    after any of ``prev``), or a union of alternatives (``k is None``)."""

    __slots__ = ("k", "prev")

    def __init__(self, k: int | None, prev: tuple[Marks, ...]) -> None:
        self.k = k
        self.prev = prev


ROOT = Marks(None, ())


def union(parts: list[Marks]) -> Marks:
    """One :class:`Marks` for several alternatives (the part itself when there is one).
    Unions are kept flat and free of repeats, so that a group which lives for many
    elements does not nest unions ever deeper: the depth of the DAG is at most twice
    the number of marks of a run."""
    if len(parts) == 1:
        return parts[0]
    flat: dict[int, Marks] = {}
    for p in parts:
        if p.k is None and p is not ROOT:
            for q in p.prev:
                flat[id(q)] = q
        else:
            flat[id(p)] = p
    if len(flat) == 1:
        return next(iter(flat.values()))
    return Marks(None, tuple(flat.values()))


def expand(m: Marks, memo: dict[int, set[tuple[int, ...]]]) -> set[tuple[int, ...]]:
    """Every set of positions ``m`` stands for, as increasing tuples."""
    found = memo.get(id(m))
    if found is not None:
        return found
    if m is ROOT:
        found = {()}
    elif m.k is None:
        found = set().union(*(expand(p, memo) for p in m.prev))
    else:
        k = m.k
        found = {t + (k,) for t in expand(m.prev[0], memo)}
    memo[id(m)] = found
    return found


def reported(reports: list[Marks]) -> list[Match]:
    """The matches of the runs that report on one element (each set of marks once),
    in order."""
    if not reports:
        return []
    memo: dict[int, set[tuple[int, ...]]] = {}
    found = set().union(*(expand(m, memo) for m in reports))
    return [Match.marked(m) for m in sorted(found)]


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

    def _plan(self) -> tuple:
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
        by_bits: dict[tuple[int, int], list] = {}
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

    def edges_for(self, q: int, bits: int) -> list:
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
        return reported(reports)

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
        found = set().union(*(expand(m, memo) for (q, _), m in self.groups.items()
                              if q in self.a.finals))
        return [Match.marked(m) if m else Match.of({}) for m in sorted(found)]


@dataclass
class CompiledSRT(Pictured):
    """An SREMO compiled to an ε-free SRT, ready to run (the ``Compiled`` protocol);
    ``by``: the attributes of ``e PARTITION BY by`` (one run per part,
    :mod:`kleene.engines.srt.partition`)."""

    srt: SRT
    policy: str
    counters: Counters = field(default_factory=Counters)
    faithful: bool = False
    by: tuple[str, ...] = ()
    shared: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: the unit of the events' timestamps it was compiled for (its other views need it)
    time_unit: str | None = None

    @property
    def initial(self) -> frozenset[Hashable]:
        return frozenset({self.srt.start})

    @property
    def accepting(self) -> frozenset[Hashable]:
        return self.srt.finals

    def iter_transitions(self) -> Iterator[Transition]:
        for e in self.srt.edges:
            yield Transition(e.source, e.target, None, e.shown_guard(), "bind", e.mark,
                             e.writes)

    def execution(self) -> Execution:
        """A fresh pass of Alg. 1 that counts into :attr:`counters` (what passes share
        computed once: one pass per part of ``e PARTITION BY a``)."""
        return Execution(self.srt, self.policy, self.counters, faithful=self.faithful,
                         shared=self.shared)

    def run(self, events: Iterable[Event]) -> Iterator[Match]:
        self.counters.reset()
        if self.by:
            yield from run_parts(self, self.by, events)
        else:
            yield from self.run_one(events)

    def run_one(self, events: Iterable[Event]) -> Iterator[Match]:
        """One run over ``events`` (the whole stream, or one part of it)."""
        ex = self.execution()
        step = ex.step
        batches = column_batches(events, ROWS) if ex.relevant is not None else None
        index = key_index(self.srt) if batches is None and ex.tests is not None \
            and self.policy == "stream" and ex.fresh_dies else None
        try:
            if batches is not None:
                # a loaded stream: the candidates found over its columns (srt.columns)
                moves = ex.memo("moves", lambda: waiting_moves(ex))
                if moves is None:
                    yield from drive(ex, batches)
                else:
                    yield from drive_sleeping(ex, moves, batches)
            elif index is None:
                for u in events:
                    found = step(u)
                    if found:
                        ex.flush()
                        yield from found
            else:
                # No run alive and an element no guard but TRUE can take: the fresh run
                # dies at once (its start has no TRUE transition), nothing changes.
                attrs, keys = index
                for u in events:
                    if not ex.groups and tuple(u.type if x == "type" else u.attrs.get(x)
                                               for x in attrs) not in keys:
                        ex.events += 1
                        ex.skipped += 1
                        continue
                    found = step(u)
                    if found:
                        ex.flush()
                        yield from found
        finally:
            ex.flush()
        yield from ex.finish()


def compile_expression(e: object, *, policy: str = "stream", time_unit: str | None = None,
                       window: WindowReading = "inclusive", max_states: int = MAX_STATES,
                       faithful: bool = False) -> CompiledSRT:
    """Check ``e`` and compile it for ``policy``; :class:`Unsupported` says what is not."""
    if not isinstance(e, EXPRESSION_TYPES):
        raise Unsupported(f"the SRT engines run SREMO expressions, not {type(e).__name__}")
    if policy not in POLICIES:
        raise Unsupported(f"the SRT engines have no policy {policy!r}; choose "
                          f"{' or '.join(POLICIES)}")
    assert isinstance(e, EXPRESSION_TYPES)
    check(e)  # type: ignore[arg-type]
    by: tuple[str, ...] = ()
    if isinstance(e, Partition):
        by, e = e.by, e.body
    srt = compile_sremo(e, Options(time_unit, window, max_states))  # type: ignore[arg-type]
    return CompiledSRT(reporting(srt, policy), policy, faithful=faithful, by=by,
                       time_unit=time_unit)


def claimed(language: str) -> frozenset[Feature]:
    """What ``srt`` claims for ``language``: both policies, every construct, both window
    readings (negation and determinization beyond their fragment raise Unsupported)."""
    from kleene.reference.languages import language_named

    labels = (*POLICIES, *CONSTRUCTS)
    if "strict" in language_named(language).readings:
        labels += ("window-strict",)
    return Feature.of(language, *labels)


@dataclass(frozen=True)
class SRTEngine:
    """The streaming SRT engine (report Alg. 1). ``faithful``: Alg. 1 as printed, which
    kills a run once it reports (lines 8–10), so a match that extends a reported one is
    lost (docs/errata.md#seed-004-alg1-kills-reporting-runs); it claims no policy."""

    name: str = "srt"
    faithful: bool = False

    @property
    def capabilities(self) -> frozenset[Feature]:
        if self.faithful:
            return Feature.of("sremo", *CONSTRUCTS) | Feature.of("wayeb", *CONSTRUCTS)
        return claimed("sremo") | claimed("wayeb")

    def compile(self, pattern: object, *, policy: str = "stream", time_unit: str | None = None,
                window: WindowReading = "inclusive") -> CompiledSRT:
        return compile_expression(pattern, policy=policy, time_unit=time_unit, window=window,
                                  faithful=self.faithful)


register("srt", SRTEngine)
register("srt-faithful", lambda: SRTEngine("srt-faithful", faithful=True))
