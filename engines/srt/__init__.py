"""Symbolic register transducers (seed 004 and its extended report, cited "report").

Modules, one per construction:

- :mod:`.automaton`   report Def. 4: the ε-free SRT as an immutable value, guards (Def. 13);
- :mod:`.compile`     report App. A.2 with Alg. 2 (ε-elimination) at every composition;
- :mod:`.windows`     report Def. 39 / Alg. 4 (count windows), Kleene's time windows;
- :mod:`.product`     report Thm 34: intersection;
- :mod:`.complement`  report Alg. 7 (determinization, minterms) and Alg. 8 (complement);
- :mod:`.unroll`      report Lemma 46, Algs. 3–6: the unrolled SRT with register copies;
- :mod:`.dsrt`        report Thm 41: the output-agnostic DSRT as a compiled recognizer;
- :mod:`.marks`       report Alg. 1: the marks of a group of runs, shared as a DAG;
- :mod:`.execution`   report Alg. 1: one pass of the streaming run over a stream;
- :mod:`.run`         report Alg. 1: the streaming run, the engines ``srt`` and
  ``srt-faithful`` (Alg. 1 as printed).

Importing this package registers the engines (see :mod:`kleene.engines.protocol`).
"""

from kleene.engines.srt import dsrt as _dsrt  # noqa: F401  (registers dsrt)
from kleene.engines.srt import run as _run  # noqa: F401  (registers the engines)
