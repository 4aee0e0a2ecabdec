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

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field

from kleene.engines.protocol import (
    Counters,
    Feature,
    Pictured,
    Transition,
    WindowReading,
    register,
)
from kleene.engines.srt.automaton import SRT, Held, compile_edge, compile_guard, trim
from kleene.engines.srt.compile import MAX_STATES, Options, compile_sremo
from kleene.reference.conditions import TRUE, Attr, Cmp, Condition, Const, conjunction, conjuncts
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import HEAD, check, reads
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


def skipping(a: SRT, slots: dict[str, int]) -> tuple[list | None, list]:
    """What lets a run skip an element cheaply (exact): ``relevant``, closures over the
    head only, one of which holds for every element that can fire a transition whose guard
    is not ``TRUE`` (each guard's conjuncts that read no register); and per state its
    ``TRUE`` transitions as ``(clock test or None, target)``. ``relevant`` is ``None``
    (never skip) unless every ``TRUE`` transition is unmarked and writes nothing."""
    moves: list[list] = [[] for _ in range(a.size)]
    needs: list[Condition] = []
    for e in a.edges:
        if e.guard == TRUE and not e.unless:
            if e.mark or e.writes:
                return None, moves
            moves[e.source].append((compile_edge(e, slots) if e.clocks else None, e.target))
            continue
        head = [c for c in conjuncts(e.guard) if not reads(c)]
        if not head:
            return None, moves
        needs.append(conjunction(head) if len(head) > 1 else head[0])
    return [compile_guard(c, {}) for c in dict.fromkeys(needs)], moves


def key_index(a: SRT) -> tuple[tuple[str, ...], frozenset] | None:
    """``(attributes, keys)`` when every transition whose guard is not ``TRUE`` requires
    ``~.A = c`` (a conjunct) for each of ``attributes``, so that an element whose values of
    ``attributes`` are not in ``keys`` can only fire ``TRUE`` transitions; else ``None``."""
    per_edge: list[dict[str, object]] = []
    for e in a.edges:
        if e.guard == TRUE and not e.unless:
            continue
        eqs: dict[str, object] = {}
        for c in conjuncts(e.guard):
            if isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr) and \
                    c.left.var == HEAD and isinstance(c.right, Const) and \
                    not isinstance(c.right.value, bool) and c.left.attr != "ts":
                eqs[c.left.attr] = c.right.value
        per_edge.append(eqs)
    if not per_edge:
        return None
    common = set.intersection(*(set(eqs) for eqs in per_edge))
    if not common:
        return None
    attrs = tuple(sorted(common))
    return attrs, frozenset(tuple(eqs[x] for x in attrs) for eqs in per_edge)


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

    def __post_init__(self) -> None:
        a = self.a
        self.slots = {r: i for i, r in enumerate(a.registers())}
        self.empty: tuple = (None,) * len(self.slots)
        finals = a.finals
        self.out = [[(compile_edge(e, self.slots), e.target, e.mark,
                      tuple(self.slots[r] for r in e.writes),
                      e.mark and e.target in finals)
                     for e in a.out[q]] for q in range(a.size)]
        if self.policy == "literal":
            self.groups = {(a.start, self.empty): ROOT}
        self.events = self.evaluations = self.created = self.peak = self.skipped = 0
        self.relevant, self.loops = skipping(a, self.slots)

    def step(self, u: Event) -> list[Match]:
        """Read ``u`` (Alg. 1 lines 3–13): every successor configuration, the reports."""
        groups = self.groups
        streaming = self.policy == "stream"
        if streaming:
            key = (self.a.start, self.empty)
            held = groups.get(key)
            groups[key] = ROOT if held is None else union([held, ROOT])
        relevant = self.relevant
        if relevant is not None and not any(test(u, ()) for test in relevant):
            self.skip(u)
            return []
        k = u.position
        reports: list[Marks] = []
        nxt: dict[Group, list[Marks]] = {}
        out = self.out
        evaluations = 0
        stored = None
        for (q, regs), marks in groups.items():
            edges = out[q]
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
        self.events += 1
        if nxt:
            self.created += sum(map(len, nxt.values()))
            self.groups = {g: (parts[0] if len(parts) == 1 else union(parts))
                           for g, parts in nxt.items()}
            if len(self.groups) > self.peak:
                self.peak = len(self.groups)
        else:
            self.groups = {}
        if not reports:
            return []
        memo: dict[int, set[tuple[int, ...]]] = {}
        found = set().union(*(expand(m, memo) for m in reports))
        return [Match.marked(m) for m in sorted(found)]

    def skip(self, u: Event) -> None:
        """An element that satisfies no guard but ``TRUE``: each group takes only its
        state's ``TRUE`` transitions (unmarked, writing nothing; clocks tested), or dies —
        exactly what evaluating every transition would do."""
        self.events += 1
        self.skipped += 1
        moves = self.loops
        nxt: dict[Group, list[Marks]] = {}
        for (q, regs), marks in self.groups.items():
            for clock, target in moves[q]:
                if clock is None or clock(u, regs):
                    key = (target, regs)
                    parts = nxt.get(key)
                    if parts is None:
                        nxt[key] = [marks]
                    else:
                        parts.append(marks)
        self.groups = {g: (parts[0] if len(parts) == 1 else union(parts))
                       for g, parts in nxt.items()}

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
    """An SREMO compiled to an ε-free SRT, ready to run (the ``Compiled`` protocol)."""

    srt: SRT
    policy: str
    counters: Counters = field(default_factory=Counters)
    faithful: bool = False

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

    def run(self, events: Iterable[Event]) -> Iterator[Match]:
        self.counters.reset()
        ex = Execution(self.srt, self.policy, self.counters, faithful=self.faithful)
        step = ex.step
        index = key_index(self.srt) if self.policy == "stream" and ex.relevant is not None \
            and not ex.loops[self.srt.start] else None
        try:
            if index is None:
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
    srt = compile_sremo(e, Options(time_unit, window, max_states))  # type: ignore[arg-type]
    return CompiledSRT(reporting(srt, policy), policy, faithful=faithful)


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
