"""Every proof about one operator pattern (seed 003) and its NFAs, as checks (``kleene prove``).

==============  ==========================================================  =====================
section         claim per subject                                           proved means
==============  ==========================================================  =====================
variables       no event can bind v (its type and properties)               problem (dead variable)
branches        no stream has a match of this OR branch (DNF, Sec. 5)       problem (dead branch)
equivalence     engine E under any / contiguous = the reference (≤ k events):  ok
                by symbolic streams (E), and by its runs on the classes (E (runs))
transitions     engine E's transition δ is driven (witness stream); coverage  ok when refuted
==============  ==========================================================  =====================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial

from kleene.engines.nfa.draw import state_name
from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.protocol import Compiled, Transition
from kleene.proofs.automata import name_of, names, register_namer, transition_namer
from kleene.proofs.nfa.bounded import SYMBOLIC_BOUND, symbolic_equivalence
from kleene.proofs.nfa.classes import schema_of
from kleene.proofs.nfa.coverage import drawn_order, lazy_coverage, off_order
from kleene.proofs.nfa.equivalence import (
    BOUND,
    claiming,
    coverage,
    coverage_results,
    equivalence,
    off_paths,
)
from kleene.proofs.nfa.reach import step_of, witness
from kleene.proofs.nfa.satisfiability import dead_branches, dead_variables
from kleene.proofs.results import Check, CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema
from kleene.proofs.solver import TIMEOUT_MS
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.operators.pattern import OperatorPattern

SECTIONS = ("variables", "branches", "equivalence", "transitions")


def nfa_namer(c: Compiled) -> Callable[[Transition], str]:
    """``Θ2 ∅ --a--> a``: an NFA's transitions as its picture names them (states by their
    variables in evaluation order, :func:`kleene.engines.nfa.draw.state_name`)."""
    assert isinstance(c, CompiledNFA)
    named = names(c.iter_transitions(), state=partial(state_name, c))
    return lambda t: name_of(t, named)


register_namer(CompiledNFA, nfa_namer)
#: The policies every NFA engine claims (seed 003: skip-till-any-match, strict contiguity).
POLICIES = ("any", "contiguous")
#: The NFA equivalence by classes gets this many times Z3's time limit per query in all.
EQUIVALENCE_SECONDS = 3
#: The symbolic NFA equivalence gets this many times Z3's time limit per query in all.
SYMBOLIC_SECONDS = 6


def prove(pattern: OperatorPattern, *, schema: Schema | None = None, bound: int = BOUND,
          sections: Iterable[str] = SECTIONS, timeout_ms: int = TIMEOUT_MS) -> Iterator[Check]:
    """Run the checks of ``sections`` on ``pattern``, yielding each as it is decided."""
    wanted = set(sections)
    schema = schema or schema_of(pattern)
    if "variables" in wanted:
        for v, r in dead_variables(pattern, schema=schema, timeout_ms=timeout_ms).items():
            yield Check("variables", v, r, if_proved="problem", if_refuted="ok",
                        proved_says=f"{v} can bind no event: it is in no match",
                        refuted_says=f"{v} is satisfiable")
    if "branches" in wanted:
        for b, r in dead_branches(pattern, schema=schema, timeout_ms=timeout_ms).items():
            yield Check("branches", b, r, if_proved="problem", if_refuted="ok",
                        proved_says=f"{b} has no match on any stream (a dead branch)",
                        refuted_says=f"{b} has matches")
    if not wanted & {"equivalence", "transitions"}:
        return
    k = max(bound, BOUND)
    if "equivalence" in wanted:
        try:
            symbolic: dict[str, Result] | None = symbolic_equivalence(
                pattern, policies=POLICIES, bound=max(bound, SYMBOLIC_BOUND),
                timeout_ms=timeout_ms, seconds=SYMBOLIC_SECONDS * timeout_ms / 1000,
                schema=schema)
        except Unsupported:
            symbolic = None   # an iterated or negated sub-pattern: the classes only
        for name, r in (symbolic or {}).items():
            yield Check("equivalence", name, r,
                        proved_says=f"{name} reports exactly the reference's matches "
                                    "(symbolic streams)",
                        refuted_says=f"{name} and the reference differ")
    streams: list[Stream] = []
    results = equivalence(pattern, policies=POLICIES, bound=k, timeout_ms=timeout_ms,
                          witnesses=streams, seconds=EQUIVALENCE_SECONDS * timeout_ms / 1000,
                          schema=schema)
    if "equivalence" in wanted:
        for name, r in results.items():
            if isinstance(r, Unknown) and isinstance((symbolic or {}).get(name), Proved):
                continue   # decided symbolically; the runs only found no duplicate so far
            yield Check("equivalence", f"{name} (runs)", r,
                        proved_says=f"{name} reports exactly the reference's matches, "
                                    "each once (its runs on every class of streams)",
                        refuted_says=f"{name} and the reference differ")
    if "transitions" in wanted:
        # every stream of at most `done` events was enumerated (the last length may not be)
        done = k if all(isinstance(r, Proved) for r in results.values()) else \
            max((len(s) for s in streams), default=1) - 1
        for name, c in claiming(pattern).items():
            yield from _coverage(pattern, name, c, streams, done, schema, timeout_ms)


def _coverage(pattern: OperatorPattern, name: str, compiled: Compiled,
              streams: list[Stream], k: int, schema: Schema, timeout_ms: int
              ) -> Iterator[Check]:
    """Engine ``name``'s transitions, each driven by a witness or not, and its coverage:
    the eager NFA's along the paths of matches, a lazy NFA's from its run traces (in the
    order its picture draws); a lazy transition no class stream drives is asked of Z3
    (:func:`.reach.witness`: a stream its run takes, or a proof that none does)."""
    assert isinstance(compiled, CompiledNFA)
    lazy = name != "nfa-eager"
    if lazy:
        nfa = drawn_order(compiled)
        cov = lazy_coverage(nfa, streams)
    else:
        nfa, cov = compiled, coverage(pattern, streams, compiled=compiled)
    named = transition_namer(nfa)
    off = off_order(nfa)
    order = ", ".join(nfa.plans[b].shape.slots[i].var for b in range(len(nfa.plans))
                      for i in nfa.orders[b]) if off else ""
    dead = 0
    pathless = {} if lazy else off_paths(nfa)
    for t, r in coverage_results(cov, k, by="run" if lazy else "match").items():
        label = f"{name} {named(t)}"
        if lazy and isinstance(r, Unknown):
            r = witness(nfa, t, schema, timeout_ms)
            if isinstance(r, CounterExample):
                cov.witnesses[t] = r.stream
            dead += isinstance(r, Proved)
        elif t in pathless and isinstance(r, Unknown):
            dead += 1
            yield Check("transitions", label, Proved(r.claim), if_proved="info",
                        proved_says=f"{label} lies on no match's path: {pathless[t]}")
            continue
        if t in off and isinstance(r, Unknown):
            yield Check("transitions", label, Proved(r.claim), if_proved="info",
                        proved_says=f"{label} is off the current order {order} (bold in its "
                                    "picture): a run takes it once other frequencies "
                                    "choose another order")
            continue
        if isinstance(r, Proved) and isinstance(step_of(nfa, t), str):
            yield Check("transitions", label, r, if_proved="info",
                        proved_says=f"{label} never fires by the run's rule")
            continue
        yield Check("transitions", label, r, if_proved="problem", if_refuted="ok",
                    proved_says=f"{label} never fires on any stream (dead)",
                    refuted_says=f"{label} is driven")
    claim = f"every transition of {name} is driven or proved dead"
    along = f"; {len(off)} are off the current order" if off else ""
    never = "proved never to fire" if lazy else "on no match's path"
    proved = f"; {dead} {never}" if dead else ""
    total = (Proved(claim) if cov.covered + dead == len(cov.witnesses)
             else Unknown(claim, f"{cov}{proved}, by streams of at most {k} events or "
                                 f"Z3's{along}" if lazy else
                          f"{cov} by streams of at most {k} events{along}"))
    yield Check("transitions", f"{name} coverage", total,
                proved_says=f"{name}: {cov}{proved} (coverage)")
