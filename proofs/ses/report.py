"""Every proof about one SES pattern and its automaton, as a list of checks (``kleene prove``).

Sections, in order (each a module of :mod:`kleene.proofs`):

==============  =======================================================  ======================
section         claim per subject                                        proved means
==============  =======================================================  ======================
variables       no event satisfies the properties of v                   problem (dead variable)
pattern         no stream of ≤ k events has a match                      problem (unsatisfiable)
exclusivity     v and w are mutually exclusive (seed 000 Def. 6)         ok (else: info)
determinism     the SES automaton never branches (Lemma 1, Theorem 1)    ok (else: info)
transitions     transition δ never fires (counterexample: a witness)     problem (dead)
necessary       Thm 2's conditions 4--7 hold on windows of ≤ k events    ok
equivalence     automaton and reference (next) agree on ≤ k events       ok
==============  =======================================================  ======================
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from kleene.engines.ses.automaton import ses_automaton
from kleene.proofs.results import Check
from kleene.proofs.schema import Schema, schema_for
from kleene.proofs.ses.equivalence import EQUIVALENCE_BOUND, equivalent
from kleene.proofs.ses.exclusivity import exclusivity, never_branches
from kleene.proofs.ses.necessary import necessary_conditions_sound
from kleene.proofs.ses.satisfiability import dead_variables, no_match
from kleene.proofs.ses.witnesses import BOUND, transition_witnesses
from kleene.proofs.solver import TIMEOUT_MS
from kleene.reference.ses.pattern import SESPattern

#: The sections, in report order.
SECTIONS = ("variables", "pattern", "exclusivity", "determinism", "transitions", "necessary",
            "equivalence")


def prove(pattern: SESPattern, *, schema: Schema | None = None, bound: int = BOUND,
          sections: Iterable[str] = SECTIONS, timeout_ms: int = TIMEOUT_MS) -> Iterator[Check]:
    """Run the checks of ``sections`` on ``pattern``, yielding each as it is decided."""
    schema = schema or schema_for(pattern.conditions, pattern.window)
    ms = timeout_ms
    wanted = set(sections)
    n = ses_automaton(pattern)
    if "variables" in wanted:
        for v, r in dead_variables(pattern, schema=schema, timeout_ms=ms).items():
            yield Check("variables", v, r, if_proved="problem", if_refuted="ok")
    if "pattern" in wanted:
        r = no_match(pattern, bound=bound, schema=schema, timeout_ms=ms)
        yield Check("pattern", "matches", r, if_proved="problem", if_refuted="ok")
    if "exclusivity" in wanted:
        for (v, w), r in exclusivity(pattern, schema=schema, timeout_ms=ms).items():
            yield Check("exclusivity", f"{v}, {w}", r, if_refuted="info")
    if "determinism" in wanted:
        r = never_branches(n, bound=bound, schema=schema, timeout_ms=ms)
        yield Check("determinism", "automaton", r, if_refuted="info")
    if "transitions" in wanted:
        for d, r in transition_witnesses(n, bound=bound, schema=schema, timeout_ms=ms).items():
            yield Check("transitions", str(d), r, if_proved="problem", if_refuted="ok")
    if "necessary" in wanted:
        r = necessary_conditions_sound(pattern, bound=bound, schema=schema, timeout_ms=ms)
        yield Check("necessary", "Thm 2", r)
    if "equivalence" in wanted:
        yield Check("equivalence", "automaton vs reference",
                    equivalent(pattern, bound=max(bound, EQUIVALENCE_BOUND), schema=schema,
                               timeout_ms=4 * timeout_ms))
