"""``dsrt``: the output-agnostic deterministic SRT of a SREMO: seed 004, report Thm 41
(paper Thm 4.11) by Alg. 7, as a compiled automaton whose transitions the proofs read.

:func:`compile_dsrt` compiles the expression (windows unrolled by
:func:`kleene.engines.srt.windows.count_window`) and determinizes it with
minterms (:func:`kleene.engines.srt.complement.determinize`, where the
satisfiability of a minterm and the caps are documented). The result is a
*recognizer*: it accepts a string iff the expression does (Def. 18,
``Lang(e)``), ignoring outputs, so it reports no matches; :meth:`accepts`
runs it, one transition per element (exactly one fires: the minterms of a
state are exclusive and cover every element).

The blow-up, stated honestly: a subset construction can reach 2^|Q| subsets
of the (unrolled) SRT's states, and each subset has up to 2^a minterms for
its ``a`` distinct atomic conditions; both are capped, and beyond a cap
compilation stops with a one-line :class:`Unsupported` naming it. Registers:
only an SRT that reads no register it writes is determinized (see
:mod:`.complement`); Alg. 7's register copies for the rest are not
implemented, and time windows are not determinized.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field

from kleene.engines.protocol import Counters, Transition
from kleene.engines.srt.automaton import SRT, compile_edge
from kleene.engines.srt.compile import MAX_STATES, Options, compile_sremo
from kleene.engines.srt.complement import determinize
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import Expr, check


@dataclass
class CompiledDSRT:
    """A deterministic, complete, output-agnostic SRT (transitions as data)."""

    dsrt: SRT
    subsets: tuple[frozenset[int], ...]
    counters: Counters = field(default_factory=Counters)

    @property
    def initial(self) -> frozenset[Hashable]:
        return frozenset({self.dsrt.start})

    @property
    def accepting(self) -> frozenset[Hashable]:
        return self.dsrt.finals

    def iter_transitions(self) -> Iterator[Transition]:
        for e in self.dsrt.edges:
            yield Transition(e.source, e.target, None, e.shown_guard(), "bind", None, ())

    def accepts(self, events: Iterable[Event]) -> bool:
        """Whether the string ``events`` is in ``Lang(e)``: the one run ends in a final state."""
        slots = {r: i for i, r in enumerate(self.dsrt.registers())}
        if slots:
            raise Unsupported("this DSRT reads registers written before it; run it inside "
                              "the SRT that writes them")
        tests = [[(compile_edge(e, slots), e.target) for e in self.dsrt.out[q]]
                 for q in range(self.dsrt.size)]
        q = self.dsrt.start
        for u in events:
            self.counters.events_read += 1
            fired = [t for test, t in tests[q] if test(u, ())]
            self.counters.predicate_evaluations += len(tests[q])
            if len(fired) > 1:  # pragma: no cover - the minterms are exclusive
                raise AssertionError(f"state {q} is not deterministic on {u}")
            if len(fired) != 1:  # pragma: no cover - the minterms cover every element
                raise AssertionError(f"state {q} is not complete on {u}")
            q = fired[0]
        return q in self.dsrt.finals

    def run(self, events: Iterable[Event]) -> Iterator[Match]:
        raise Unsupported("an output-agnostic DSRT (report Thm 41) recognizes strings and "
                          "reports no matches; use accepts(), or the srt engine for matches")


def compile_dsrt(e: Expr, *, time_unit: str | None = None,
                 max_states: int = MAX_STATES) -> CompiledDSRT:
    """The DSRT of ``e`` (Alg. 7); :class:`Unsupported` beyond the fragment or the caps."""
    check(e)
    d, subsets = determinize(compile_sremo(e, Options(time_unit, "inclusive", max_states)),
                             max_states)
    return CompiledDSRT(d, subsets)
