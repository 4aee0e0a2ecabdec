"""Sequenced event set (SES) patterns: seed 000 (EDBT 2011) and seed 001/002
(match windows).

Modules, one per definition:

- :mod:`.pattern`       Def. 1 (seed 000 and 001): the pattern ``(<B1..Bk>, Θ, τ)``;
- :mod:`.text`          our text syntax: parser and round-tripping printer;
- :mod:`.matching`      seed 001 Def. 2 (= seed 000 Def. 2 conditions 1–3): all matches;
- :mod:`.policies`      selection policies over the all-matches set;
- :mod:`.windows`       seed 001 Def. 3 match windows and Def. 4 A(P, W), on any subsequence;
- :mod:`.filtering`     seed 001 Thm 1: the filter condition (a Condition over ``e``);
- :mod:`.necessary`     seed 001 Thm 2: necessary match conditions 4–7, candidate windows;
- :mod:`.statistics`    seed 001 Def. 5, Thm 3, Sec. 4.3.2 updates, Sec. 5 bit vectors;
- :mod:`.partitioning`  seed 001 Def. 6: partitioning attributes, partitioned windows;
"""
