"""Sequenced event set (SES) patterns: seed 000 (EDBT 2011) and seed 001/002
(match windows).

Modules, one per definition:

- :mod:`.pattern`       Def. 1 (seed 000 and 001): the pattern ``(<B1..Bk>, Θ, τ)``;
- :mod:`.text`          our text syntax: parser and round-tripping printer;
- :mod:`.matching`      seed 001 Def. 2 (= seed 000 Def. 2 conditions 1–3): all matches;
- :mod:`.policies`      selection policies over the all-matches set;
"""
