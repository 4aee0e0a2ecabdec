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

Particular to SES patterns and the SES automaton: :mod:`.ses`.
"""
