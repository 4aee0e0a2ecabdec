"""Counting matches without enumerating them, and the first K matches without the rest
(issue 31 items 2–3; docs/counting.md).

- :mod:`~kleene.engines.count.transfer`: products of transfer matrices over a sliding
  window (two stacks), exact in Python ints;
- :mod:`~kleene.engines.count.ses`: ``|Γ|`` of an SES pattern under ``any`` by dynamic
  programming over the SES automaton's runs, per tie group, part and match window;
- :mod:`~kleene.engines.count.operators`: operator patterns of the form
  ``SEQ(AND(...), ...)`` read back as the SES patterns they are;
- :mod:`~kleene.engines.count.counting`: ``count_matches``, the DP where it claims the
  query, else the enumeration of the engine ``kleene match`` would run, with the reason;
- :mod:`~kleene.engines.count.first`: the first K matches in the order of their last
  event (CEQL's ``LIMIT``), reading only the prefix of the stream that holds them.
"""
