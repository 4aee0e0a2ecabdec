"""Symbolic regular expressions with memory and output (SREMO): seed 004 and its
extended report (``004_extended_report_srt.txt``, cited as "report").

Modules, one per definition:

- :mod:`.expressions`  report Def. 15 (+ Def. 39 windows, intersection, negation,
  strategies): the AST and its well-formedness check;
- :mod:`.valuations`   report Defs. 12, 13: valuations and ``(u, v) ⊨ phi``;
- :mod:`.text`         our text syntax: parser and round-tripping printer;
- :mod:`.strategies`   report Defs. 44, 45: selection strategies as rewritings;
- :mod:`.semantics`    report Defs. 17, 18, 39: the relation ⊣, Lang and Match;
- :mod:`.streaming`    docs/architecture.md, "SREMO streaming" (normative) and Def. 18 literal;
- :mod:`.language`     bounded enumeration of Lang(e), for tests;
- :mod:`.wayeb`        a reader of Wayeb's ``.sre`` pattern files.

The registry entry points: :func:`matches` (streaming detection over a whole
stream) and :func:`run_text` (our text syntax, policy ``stream`` or ``literal``).
"""

from kleene.reference.sremo.streaming import POLICIES, matches, run_text
from kleene.reference.sremo.text import format_sremo, parse_sremo

__all__ = ["POLICIES", "matches", "run_text", "parse_sremo", "format_sremo"]
