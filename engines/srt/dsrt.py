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
a count-windowed expression whose accepted strings start and end with a
marked element (all of Wayeb's queries) is unrolled with register copies
(:mod:`.unroll`, Algs. 3–6) and determinized keeping the copies; any other
expression must read no register it writes. Time windows are not
determinized (they do not bound the length of a string).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field

from kleene.engines.protocol import Counters, Transition
from kleene.engines.srt.automaton import SRT, Held, compile_edge
from kleene.engines.srt.compile import MAX_STATES, Options, compile_sremo
from kleene.engines.srt.complement import determinize
from kleene.engines.srt.unroll import boundary_marked, unroll
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import Expr, Window, check


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
        tests = [[(compile_edge(e, slots), e.target, tuple(slots[r] for r in e.writes))
                  for e in self.dsrt.out[q]] for q in range(self.dsrt.size)]
        q = self.dsrt.start
        regs: tuple = (None,) * len(slots)
        for u in events:
            self.counters.events_read += 1
            fired = [(t, w) for test, t, w in tests[q] if test(u, regs)]
            self.counters.predicate_evaluations += len(tests[q])
            if len(fired) > 1:  # pragma: no cover - the minterms are exclusive
                raise AssertionError(f"state {q} is not deterministic on {u}")
            if len(fired) != 1:  # pragma: no cover - the minterms cover every element
                raise AssertionError(f"state {q} is not complete on {u}")
            q, writes = fired[0]
            if writes:
                held, cells = Held(u), list(regs)
                for i in writes:
                    cells[i] = held
                regs = tuple(cells)
        return q in self.dsrt.finals

    def run(self, events: Iterable[Event]) -> Iterator[Match]:
        raise Unsupported("an output-agnostic DSRT (report Thm 41) recognizes strings and "
                          "reports no matches; use accepts(), or the srt engine for matches")


def compile_dsrt(e: Expr, *, time_unit: str | None = None,
                 max_states: int = MAX_STATES) -> CompiledDSRT:
    """The DSRT of ``e`` (Alg. 7); :class:`Unsupported` beyond the fragment or the caps.

    A count-windowed ``e = body[1..w]`` whose body is boundary-marked is unrolled as the
    report does (Algs. 3–6, register copies), so registers written and read are handled;
    any other expression is determinized directly (its SRT must read no register it
    writes, :func:`~kleene.engines.srt.complement.check_determinizable`)."""
    check(e)
    options = Options(time_unit, "inclusive", max_states)
    if isinstance(e, Window) and isinstance(e.width, int):
        body = compile_sremo(e.body, options)
        if boundary_marked(body):
            d, subsets = determinize(unroll(body, e.width, max_states), max_states,
                                     copies=True)
            return CompiledDSRT(d, subsets)
    d, subsets = determinize(compile_sremo(e, options), max_states)
    return CompiledDSRT(d, subsets)
