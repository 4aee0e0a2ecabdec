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

from kleene.engines.protocol import Counters, Feature, Transition, WindowReading, register
from kleene.engines.srt.automaton import SRT, compile_edge, trim
from kleene.engines.srt.compile import MAX_STATES, Options, compile_sremo
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import check
from kleene.reference.sremo.features import CONSTRUCTS, EXPRESSION_TYPES

POLICIES = ("stream", "literal")

Config = tuple[int, tuple, tuple[int, ...]]


def reporting(a: SRT, policy: str) -> SRT:
    """``a`` trimmed to the states from which a report is still possible: a marking
    transition into a final state (``stream``) or a final state (``literal``)."""
    if policy == "literal":
        return trim(a)
    sources = {e.source for e in a.edges if e.mark and e.target in a.finals}
    return trim(a, useful=sources | {e.target for e in a.edges
                                     if e.mark and e.target in a.finals})


@dataclass
class Execution:
    """One pass of Alg. 1 over a stream."""

    a: SRT
    policy: str
    counters: Counters
    configs: set[Config] = field(default_factory=set)

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
            self.configs = {(a.start, self.empty, ())}

    def step(self, u: Event) -> list[Match]:
        """Read ``u`` (Alg. 1 lines 3–13): every successor configuration, the reports."""
        c = self.counters
        c.events_read += 1
        if self.policy == "stream":
            self.configs.add((self.a.start, self.empty, ()))
        k = u.position
        found: set[tuple[int, ...]] = set()
        nxt: set[Config] = set()
        evaluations = 0
        for q, regs, marks in self.configs:
            for test, target, mark, writes, reports in self.out[q]:
                evaluations += 1
                if not test(u, regs):
                    continue
                regs2 = regs
                if writes:
                    slots = list(regs)
                    for i in writes:
                        slots[i] = u
                    regs2 = tuple(slots)
                marks2 = marks + (k,) if mark else marks
                if reports and self.policy == "stream":
                    found.add(marks2)
                nxt.add((target, regs2, marks2))
        c.predicate_evaluations += evaluations
        c.instances_created += len(nxt)
        self.configs = nxt
        c.observe_active(len(nxt))
        return [Match.marked(m) for m in sorted(found)]

    def finish(self) -> list[Match]:
        """End of the stream: the literal policy reports the runs in a final state."""
        if self.policy != "literal":
            return []
        found = {marks for q, _, marks in self.configs if q in self.a.finals}
        return [Match.marked(m) if m else Match.of({}) for m in sorted(found)]


@dataclass
class CompiledSRT:
    """An SREMO compiled to an ε-free SRT, ready to run (the ``Compiled`` protocol)."""

    srt: SRT
    policy: str
    counters: Counters = field(default_factory=Counters)

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
        ex = Execution(self.srt, self.policy, self.counters)
        for u in events:
            yield from ex.step(u)
        yield from ex.finish()


def compile_expression(e: object, *, policy: str = "stream", time_unit: str | None = None,
                       window: WindowReading = "inclusive",
                       max_states: int = MAX_STATES) -> CompiledSRT:
    """Check ``e`` and compile it for ``policy``; :class:`Unsupported` says what is not."""
    if not isinstance(e, EXPRESSION_TYPES):
        raise Unsupported(f"the SRT engines run SREMO expressions, not {type(e).__name__}")
    if policy not in POLICIES:
        raise Unsupported(f"the SRT engines have no policy {policy!r}; choose "
                          f"{' or '.join(POLICIES)}")
    check(e)
    srt = compile_sremo(e, Options(time_unit, window, max_states))
    return CompiledSRT(reporting(srt, policy), policy)


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
    """The streaming SRT engine (report Alg. 1)."""

    name: str = "srt"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return claimed("sremo") | claimed("wayeb")

    def compile(self, pattern: object, *, policy: str = "stream", time_unit: str | None = None,
                window: WindowReading = "inclusive") -> CompiledSRT:
        return compile_expression(pattern, policy=policy, time_unit=time_unit, window=window)


register("srt", SRTEngine)
