"""The SES engines of seed 000: the SES automaton (Sec. 4) and the brute force (Sec. 5.2).

Modules:

- :mod:`.automaton`   Def. 3 and the construction of Sec. 4.2 (an immutable value);
- :mod:`.run`         execution, Algorithms 1 and 2 (corrected and faithful), the
  event filter of Sec. 4.5, and the engine ``ses-automaton``;
- :mod:`.bruteforce`  Sec. 5.2: one automaton per ordering of each set, run in parallel;
- :mod:`.trace`       Sec. 4.3 and Fig. 6: the automaton's run traced step by step.

Importing :mod:`.run`, :mod:`.bruteforce` registers their engines; the registry
(:data:`kleene.engines.registry.BUILTIN_ENGINES`) imports each when one of its
engines is first asked for.
"""
