"""Every proof about one operator pattern (seed 003) and its NFAs, as checks (``kleene prove``).

==============  ==========================================================  =====================
section         claim per subject                                           proved means
==============  ==========================================================  =====================
variables       no event can bind v (its type and properties)               problem (dead variable)
branches        no stream has a match of this OR branch (DNF, Sec. 5)       problem (dead branch)
equivalence     engine E under any / contiguous = the reference (≤ k events)  ok
transitions     the eager NFA's transition δ is driven (witness stream)     ok when refuted
==============  ==========================================================  =====================
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial

from kleene.engines.nfa.draw import state_name
from kleene.engines.nfa.engine import CompiledNFA
from kleene.proofs.automata import name_of, names
from kleene.proofs.nfa.classes import schema_of
from kleene.proofs.nfa.equivalence import (
    BOUND,
    claiming,
    coverage,
    coverage_results,
    equivalence,
)
from kleene.proofs.patterns.operator import dead_branches, dead_variables
from kleene.proofs.results import Check, Proved, Unknown
from kleene.proofs.schema import Schema
from kleene.proofs.solver import TIMEOUT_MS
from kleene.reference.events import Stream
from kleene.reference.operators.pattern import OperatorPattern

SECTIONS = ("variables", "branches", "equivalence", "transitions")
#: The policies every NFA engine claims (seed 003: skip-till-any-match, strict contiguity).
POLICIES = ("any", "contiguous")
#: The NFA equivalence gets this many times Z3's time limit per query in all.
EQUIVALENCE_SECONDS = 3


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
    streams: list[Stream] = []
    results = equivalence(pattern, policies=POLICIES, bound=k, timeout_ms=timeout_ms,
                          witnesses=streams, seconds=EQUIVALENCE_SECONDS * timeout_ms / 1000,
                          schema=schema)
    if "equivalence" in wanted:
        for name, r in results.items():
            yield Check("equivalence", name, r,
                        proved_says=f"{name} reports exactly the reference's matches",
                        refuted_says=f"{name} and the reference differ")
    eager = claiming(pattern, names=("nfa-eager",))
    if "transitions" in wanted and eager:
        cov = coverage(pattern, streams, compiled=eager["nfa-eager"])
        nfa = eager["nfa-eager"]
        assert isinstance(nfa, CompiledNFA)
        named = names(nfa.iter_transitions(), state=partial(state_name, nfa))
        for t, r in coverage_results(cov, k).items():
            name = name_of(t, named)
            yield Check("transitions", f"nfa-eager {name}", r, if_proved="problem",
                        if_refuted="ok", refuted_says=f"nfa-eager {name} is driven")
        claim = f"every transition of nfa-eager is driven by a stream of at most {k} events"
        total = Proved(claim, k) if cov.covered == len(cov.witnesses) else Unknown(claim, str(cov))
        yield Check("transitions", "coverage", total,
                    proved_says=f"nfa-eager: {cov} (coverage)")
