"""The NFA engines of seed 003 (lazy evaluation of complex event patterns).

Modules, one per construct and one per NFA:

- :mod:`.shape`        the slots, order and negations of a pattern without ``OR``
  (:mod:`.construct` builds them from the construct modules below);
- :mod:`.sequence`     ``SEQ`` (Sec. 4.1); :mod:`.conjunction` ``AND`` and partial
  sequences (Secs. 4.2, 4.3); :mod:`.iteration` ``B+``, ``B{l,m}`` (Sec. 4.5);
  :mod:`.negation` ``NOT`` (Sec. 4.4); :mod:`.disjunction` ``OR`` via DNF (Sec. 5);
  :mod:`.subpattern` iterated and negated sub-patterns (Sec. 4.5's artificial events,
  extended; the lazy NFAs);
- :mod:`.conditions`   where each predicate is evaluated;
- :mod:`.partial`, :mod:`.runner`, :mod:`.buffers`, :mod:`.held`  instances, the shared
  step, buffers, negation buffers and held-back matches;
- :mod:`.eager`        the eager NFA (Sec. 2.2); :mod:`.chain` the lazy chain (Secs. 3–4);
  :mod:`.tree` the Tree NFA (Sec. 7), :mod:`.replan` the same over columns;
- :mod:`.columns`      the rows no variable can take, dropped over columns;
  :mod:`.join` and :mod:`.gather` the chain over a loaded stream's columns, :mod:`.pieces`
  its candidates in pieces bounded by the window;
- :mod:`.selection`    the policies ``next`` and ``partition-contiguous`` as filters on Γ;
- :mod:`.engine`       the engines ``nfa-eager``, ``nfa-chain``, ``nfa-chain-fc``,
  ``nfa-multichain``, ``nfa-tree``.

Importing this package registers the engines (see :mod:`kleene.engines.protocol`).
"""

from kleene.engines.nfa import engine as _engine  # noqa: F401  (registers the engines)
