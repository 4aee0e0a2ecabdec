"""Z3 encodings of conditions and automata (docs/architecture.md, "Proofs").

Each property is a small function returning a value (:mod:`.results`):
``Proved``, ``CounterExample(stream)`` (replayed through the reference, and the
engine where one is involved) or ``Unknown(reason)``.

Shared by every language and engine:

- :mod:`.schema`    attribute sorts: declared, from an events file, or from the constants;
- :mod:`.encode`    conditions over symbolic events, three-valued, with decomposition;
- :mod:`.solver`    one Z3 query with a time limit, its outcome as a value;
- :mod:`.automata`  any engine's automaton through ``iter_transitions``: unsatisfiable
  guards, overlapping guards, determinism (SES, NFA and SRT edges alike).

Particular to a language or an engine family (docs/proofs.md):

- :mod:`.ses`       SES patterns and the SES automaton (seeds 000, 001);
- :mod:`.nfa`       operator patterns' satisfiability (dead variables and branches) and
  bounded equivalence of the seed 003 NFAs and the reference over the classes of
  streams a pattern tells apart, witnesses and coverage;
- :mod:`.srt`       SREMO's satisfiability (dead branches and transitions, register
  reads no path has written), the DSRT's minterms, determinism, completeness,
  ``srt = dsrt`` and the complement, on symbolic strings with registers (seed 004,
  report Algs. 7, 8).
"""
