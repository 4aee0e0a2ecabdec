"""Kleene's benchmarks (``python -m bench``, ``make bench``): not part of the package.

Each benchmark reproduces an experiment of a seed paper and prints our figure
beside the paper's and their ratio, measured in one run (never asserted):

- :mod:`bench.seed000`  seed 000 Sec. 5: Table 1 (brute force vs SES automaton)
  and Theorems 1–3 against the window size (Fig. 12), on streams drawn by
  :mod:`bench.chemo`;
- :mod:`bench.seed001`  seed 001 Sec. 6: throughput gains of the match-window
  framework (Figs. 6–8) on the stock stream, and the issue's performance targets;
- :mod:`bench.spark_bench`  the Spark runner (issue 5): end to end against one
  process, ``local[2]`` over ``local[1]``, every engine on Spark, skew, readers.

:mod:`bench.measure` runs and times one engine, :mod:`bench.report` prints the
tables and writes them as CSV to ``out/bench/``.
"""
