"""Adapters of real CEP engines to the conformance runner (issue 16, ``make peers``).

Each adapter translates Kleene queries into its engine's own language, claims
only the fragment where the engine computes exactly the reference's match set,
and runs the engine in a virtual environment of its own under ``.peers/``
(``scripts/peers.sh``). The translations are pure Python and checked by
``make test`` (``tests/test_peers_translation.py``; the translation into
``MATCH_RECOGNIZE`` itself against Kleene's ``MATCH_RECOGNIZE`` reference in
``tests/test_translate_match_recognize.py``) without any engine.

- :mod:`.mr`: the peers' ``MATCH_RECOGNIZE`` queries, Kleene's translation
  (:mod:`kleene.reference.operators.to_match_recognize`) with the adapters' names;
- :mod:`.mr_oracle`: the match set ``MATCH_RECOGNIZE`` must give, derived from
  the reference's contiguous matches (greedy preferment, ``AFTER MATCH SKIP``);
- :mod:`.flink`: Apache Flink SQL through PyFlink;
- :mod:`.pmr`: ``pandas-match-recognize``.
"""
