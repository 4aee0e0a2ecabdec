"""Every proof about one SREMO (seed 004) and its automata, as checks (``kleene prove``).

Transitions are those of the SRT of the expression (report Thm 19), named as
``kleene draw --engine srt --policy literal`` labels them: ``q0 --~.L = 'A' ↑ ●--> q1``.

==============  ==========================================================  =====================
section         claim per subject                                           proved means
==============  ==========================================================  =====================
language        no string of at most k elements is in Lang(e)               problem (empty)
branches        the same for each part of a choice                          problem (dead branch)
registers       no path writes r before transition δ reads it               problem
transitions     no element fires δ                                          problem (dead)
window          (e[WITHIN τ]) the clocked SRT accepts exactly the strings   ok
                of the body's SRT whose marks span at most τ (≤ k)
dsrt            minterms disjoint (deterministic) and exhaustive            ok
                (complete); srt and dsrt accept the same strings ≤ w; for
                a time window or a register read after its write beyond
                Algs. 3-6, srt and the DSRT with marks accept the same
                strings with the same marks ≤ k (:mod:`.marked`)
negation        the complement accepts exactly the strings e rejects ≤ w    ok
                (≤ k, read on the DSRT with marks where Alg. 8 is not built)
==============  ==========================================================  =====================
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator

from kleene.engines.protocol import Compiled, Transition
from kleene.engines.srt.automaton import SRT, Edge
from kleene.engines.srt.compile import compile_sremo
from kleene.engines.srt.draw import edge_name, subset_label
from kleene.engines.srt.dsrt import CompiledDSRT, compile_dsrt
from kleene.engines.srt.run import CompiledSRT
from kleene.proofs.automata import name_of, names, register_namer
from kleene.proofs.results import Check, Proved, Result, Unknown
from kleene.proofs.schema import Schema
from kleene.proofs.solver import TIMEOUT_MS
from kleene.proofs.srt.clocks import time_window_exact
from kleene.proofs.srt.dsrt import complete, deterministic, dsrt_equivalence
from kleene.proofs.srt.marked import marked_complement, marked_equivalence
from kleene.proofs.srt.negation import negation_exact
from kleene.proofs.srt.satisfiability import (
    BOUND,
    dead_branches,
    dead_transitions,
    nonempty,
    unwritten_reads,
)
from kleene.proofs.srt.symbolic import schema_of
from kleene.reference.errors import Unsupported
from kleene.reference.sremo.expressions import Expr, Window, walk

SECTIONS = ("language", "branches", "registers", "transitions", "window", "dsrt", "negation")

def edge_namer(a: SRT) -> Callable[[Edge], str]:
    """``q0 --~.L = 'A' ↑ ●--> q1``: the edge as ``kleene draw --engine srt --policy
    literal`` labels it (:func:`kleene.engines.srt.draw.edge_name`: states ``q0 ..``,
    the guard, clocks, the output and the registers written)."""
    del a   # the name is the edge's own; kept for the callers' one signature
    return edge_name


def srt_namer(c: Compiled) -> Callable[[Transition], str]:
    """An SRT's transitions as its picture labels its edges (:func:`edge_name`)."""
    assert isinstance(c, CompiledSRT)
    edges = dict(zip(c.iter_transitions(), c.srt.edges, strict=True))
    return lambda t: edge_name(edges[t])


def dsrt_namer(c: Compiled) -> Callable[[Transition], str]:
    """A DSRT's transitions, its states named by the SRT states they stand for
    (:func:`~kleene.engines.srt.draw.subset_label`, as its picture)."""
    assert isinstance(c, CompiledDSRT)
    def state(q: Hashable) -> str:
        assert isinstance(q, int)
        return subset_label(c.subsets[q])
    named = names(c.iter_transitions(), state=state)
    return lambda t: name_of(t, named)


register_namer(CompiledSRT, srt_namer)
register_namer(CompiledDSRT, dsrt_namer)


#: A count window up to this width is the bound of the language proofs; a wider one is
#: cut to the --bound (paths multiply with the length).
MAX_WIDTH_BOUND = 6


def bound_for(e: Expr, bound: int) -> int:
    """The bound of the language proofs: the count window of ``e[1..w]``, else ``bound``."""
    if isinstance(e, Window) and isinstance(e.width, int) and e.width <= MAX_WIDTH_BOUND:
        return e.width
    return bound


def _or_unknown(claim: str, f: Callable[..., Result], *args: object, **kw: object) -> Result:
    try:
        return f(*args, **kw)
    except Unsupported as err:
        return Unknown(claim, str(err))


def prove(e: Expr, *, schema: Schema | None = None, bound: int = BOUND,
          sections: Iterable[str] = SECTIONS, timeout_ms: int = TIMEOUT_MS) -> Iterator[Check]:
    """Run the checks of ``sections`` on ``e``, yielding each as it is decided."""
    wanted = set(sections)
    k = bound_for(e, bound)
    a = compile_sremo(e)
    schema = schema or schema_of(a)
    edge_name = edge_namer(a)
    ms = timeout_ms
    if "language" in wanted:
        yield Check("language", "Lang(e)", nonempty(e, k, schema=schema, timeout_ms=ms),
                    if_proved="problem", if_refuted="ok",
                    proved_says="no string is in Lang(e): e never matches",
                    refuted_says="e accepts strings")
    if "branches" in wanted:
        for part, r in dead_branches(e, k, schema=schema, timeout_ms=ms).items():
            yield Check("branches", part, r, if_proved="problem", if_refuted="ok",
                        proved_says=f"{part} accepts no string (a dead branch)",
                        refuted_says=f"{part} accepts strings")
    if "registers" in wanted:
        reads = unwritten_reads(a)
        for edge, r in reads.items():
            if isinstance(r, Proved):
                name = edge_name(edge)
                regs = r.claim.removeprefix("no path writes ").split(" before")[0]
                yield Check("registers", name, r, if_proved="problem",
                            proved_says=f"{name} reads {regs}, which no path writes before "
                                        "it: its comparisons over it are false (Def. 13)")
        if all(not isinstance(r, Proved) for r in reads.values()):
            claim = "every transition that reads a register can see a write of it"
            yield Check("registers", "reads", Proved(claim), proved_says=claim)
    if "transitions" in wanted:
        for edge, r in dead_transitions(a, schema=schema, timeout_ms=ms).items():
            name = edge_name(edge)
            held = " (on the last event; the others are what its registers hold)" \
                if edge.reads() else ""
            yield Check("transitions", name, r, if_proved="problem", if_refuted="ok",
                        proved_says=f"{name} never fires (a dead transition)",
                        refuted_says=f"{name} fires{held}")
    timed = any(isinstance(x, Window) and x.is_time for x in walk(e))
    if "window" in wanted and timed:
        r = _or_unknown("the SRT's clocks implement the time window", time_window_exact, e,
                        k, schema=schema, timeout_ms=ms)
        yield Check("window", "clocks", r,
                    proved_says="the SRT's clocks accept exactly the strings of Lang(body) "
                                f"whose marks span at most τ = {getattr(e, 'width', '?')}",
                    refuted_says="the SRT's clocks and the time window disagree on a string")
    if "dsrt" in wanted:
        yield from _dsrt(e, k, ms, schema, timed)
    if "negation" in wanted:
        yield _negation(e, k, ms, schema, timed)


def _eager(e: Expr, timed: bool) -> CompiledDSRT | None:
    """The output-agnostic DSRT of ``e`` (Alg. 7), if ``e`` has one: no time window, and
    no register read after its write beyond Algs. 3-6's unrolling."""
    if timed:
        return None
    try:
        return compile_dsrt(e)
    except Unsupported:
        return None


def _dsrt(e: Expr, k: int, ms: int, schema: Schema, timed: bool) -> Iterator[Check]:
    compiled = _eager(e, timed)
    if compiled is None:
        # a time window, or a register read after its write: the DSRT with marks, built
        # as the engine builds it (engines/srt/lazy_dsrt.py), deterministic and complete
        # by construction (a minterm values every atom of its state)
        r = marked_equivalence(e, k, schema=schema, timeout_ms=ms)
        yield Check("dsrt", "srt = dsrt (marks)", r,
                    proved_says="srt and the dsrt with marks (as the engine builds it) "
                                "accept the same strings with the same marks",
                    refuted_says="srt and the dsrt with marks differ")
        return
    d = compiled.dsrt
    yield Check("dsrt", "minterms disjoint", deterministic(d, schema=schema, timeout_ms=ms),
                proved_says="the DSRT is deterministic: its minterms are pairwise disjoint",
                refuted_says="two transitions of one DSRT state fire together")
    yield Check("dsrt", "minterms exhaustive", complete(d, schema=schema, timeout_ms=ms),
                proved_says="the DSRT is complete: its minterms cover every element",
                refuted_says="no transition of a DSRT state fires")
    r = _or_unknown("srt and dsrt accept the same strings", dsrt_equivalence, e, bound=k,
                    schema=schema, timeout_ms=ms)
    yield Check("dsrt", "srt = dsrt", r,
                proved_says="srt and dsrt accept the same strings",
                refuted_says="srt and dsrt differ")


def _negation(e: Expr, k: int, ms: int, schema: Schema, timed: bool) -> Check:
    if not timed:
        try:
            r = negation_exact(e, bound=k, schema=schema, timeout_ms=ms)
        except Unsupported:
            pass    # a register read after its write beyond Algs. 3-6: the marks' DSRT
        else:
            return Check("negation", "complement", r,
                         proved_says="the complement (Alg. 8) accepts exactly the strings "
                                     "e rejects",
                         refuted_says="the complement and e agree on a string")
    # Alg. 8 read on the DSRT with marks: no sequence of outputs reaches a final state
    return Check("negation", "complement (marks)",
                 marked_complement(e, k, schema=schema, timeout_ms=ms),
                 proved_says="the complement read on the dsrt with marks (no output "
                             "sequence reaches a final state) accepts exactly the strings "
                             "e rejects",
                 refuted_says="the complement and e agree on a string")
