"""Operator patterns (SASE+ as used by seed 003, the lazy chain/tree NFA paper).

Modules, one per definition:

- :mod:`.pattern`     Sec. 2.1 and Secs. 4.1–4.5, 5.1: the AST (``SEQ``, ``AND``,
  ``OR``, ``NOT``, Kleene ``+`` and repetition ``{l,m}``, ``WHERE``, ``WITHIN``),
  and which patterns mean something, with the errors for the rest;
- :mod:`.text`        the SASE+-like text syntax: parser and round-tripping printer;
- :mod:`.derivations` how each operator lays its parts over the stream;
- :mod:`.negation`    when a negated part forbids a match (docs/architecture.md, "Negation");
- :mod:`.matching`    the denotational semantics: all matches (skip-till-any-match);
- :mod:`.prefixes`    runs and "could extend the current partial match", for ``next``;
- :mod:`.policies`    selection policies over the all-matches set, ``matches``, ``run_text``;
- :mod:`.from_ses`    the translation SES pattern → ``SEQ(AND(B1), …, AND(Bk))``;
- :mod:`.to_sremo`    the translation of the regular fragment (SEQ, OR, Kleene on one
  event, registers for conditions) → SREMO (seed 004).
"""
