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

from kleene.engines.protocol import Transition
from kleene.engines.ses.automaton import ses_automaton
from kleene.engines.ses.trace import view_of
from kleene.proofs.automata import name_of, names
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
    groups = [v.name for v in pattern.variables if v.group]
    if "variables" in wanted:
        for v, r in dead_variables(pattern, schema=schema, timeout_ms=ms).items():
            yield Check("variables", v, r, if_proved="problem", if_refuted="ok",
                        proved_says=f"{v} can bind no event: the pattern has no match",
                        refuted_says=f"{v} is satisfiable")
    if "pattern" in wanted:
        r = no_match(pattern, bound=bound, schema=schema, timeout_ms=ms)
        yield Check("pattern", "matches", r, if_proved="problem", if_refuted="ok",
                    proved_says="the pattern has no match",
                    refuted_says="the pattern has matches")
    if "exclusivity" in wanted:
        for (v, w), r in exclusivity(pattern, schema=schema, timeout_ms=ms).items():
            yield Check("exclusivity", f"{v}, {w}", r, if_refuted="info",
                        proved_says=f"{v} and {w} are mutually exclusive (seed 000 Def. 6)",
                        refuted_says=f"{v} and {w} can bind the same event")
    if "determinism" in wanted:
        r = never_branches(n, bound=bound, schema=schema, timeout_ms=ms)
        yield Check("determinism", "automaton", r, if_refuted="info",
                    proved_says="the automaton never branches: one instance per start event "
                                "(seed 000 Theorem 1)",
                    refuted_says="an instance can branch")
    if "transitions" in wanted:
        named = names(view_of(n).iter_transitions(), groups)
        for d, r in transition_witnesses(n, bound=bound, schema=schema, timeout_ms=ms).items():
            name = name_of(Transition(d.source, d.target, d.variable, d.guard), named)
            yield Check("transitions", name, r, if_proved="problem", if_refuted="ok",
                        proved_says=f"{name} never fires (a dead transition)",
                        refuted_says=f"{name} fires")
    if "necessary" in wanted:
        r = necessary_conditions_sound(pattern, bound=bound, schema=schema, timeout_ms=ms)
        yield Check("necessary", "Thm 2", r,
                    proved_says="the necessary match conditions (seed 001 Thm 2) reject no "
                                "window with a match",
                    refuted_says="a window with a match fails the necessary conditions")
    if "equivalence" in wanted:
        yield Check("equivalence", "automaton vs reference",
                    equivalent(pattern, bound=max(bound, EQUIVALENCE_BOUND), schema=schema,
                               timeout_ms=4 * timeout_ms),
                    proved_says="the automaton finds exactly the reference's next matches",
                    refuted_says="the automaton and the reference differ")
