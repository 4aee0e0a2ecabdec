"""The match-window framework of seed 001 (Sec. 4–5, Algorithm 1) around any engine.

Modules (Thm 1's filter and the event bit vectors ē of Sec. 5 over Arrow columns are
:mod:`kleene.engines.columns`, shared with the other families):

- :mod:`.statistics`  Def. 5 summary statistics as counters and bit vectors
  (Thm 3), corrected, and the update rule as printed;
- :mod:`.soundness`   which policies each step preserves, and the attributes
  partitioning (Def. 6) may use under each policy;
- :mod:`.matching`    A(P, W) of Def. 4 from a wrapped engine;
- :mod:`.framework`   Algorithm 1: filtering, partitioning, necessary match
  conditions, lazy calls of A;
- :mod:`.engine`      ``WindowsEngine`` and the registered engines
  (``windows+ses``, ``windows-f+ses``, ...).

Importing :mod:`.engine` registers the engines; the registry
(:data:`kleene.engines.registry.BUILTIN_ENGINES`) imports it when one of them is
first asked for.
"""
