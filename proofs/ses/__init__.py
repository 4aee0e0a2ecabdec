"""Proofs about SES patterns and the SES automaton (seeds 000 and 001).

- :mod:`.symbolic`        symbolic streams and substitutions; seed 001 Def. 2 as a formula;
- :mod:`.runs`            runs of the SES automaton (seed 000 Def. 4, Alg. 1--2) as formulas;
- :mod:`.satisfiability`  dead variables, patterns without matches, dead transitions;
- :mod:`.exclusivity`     seed 000 Def. 6, Lemma 1 (certificate), Theorem 1 (never branches);
- :mod:`.necessary`       soundness of seed 001 Thm 2 on windows of at most k events;
- :mod:`.equivalence`     the SES automaton equals the reference (``next``) up to k events;
- :mod:`.witnesses`       a stream firing each transition, and which transitions a stream fires;
- :mod:`.report`          every check for one pattern (``kleene prove``).
"""
