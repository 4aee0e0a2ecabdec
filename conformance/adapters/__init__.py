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
- :mod:`.engines`: the backends (Flink SQL through PyFlink, ``pandas-match-recognize``),
  each a worker run by the peer's own Python (``flink_worker.py``, ``pmr_worker.py``);
- the ``MATCH_RECOGNIZE`` corpus natively (``make peers``' last section): :mod:`.native` a
  recognition as the peer runs it (many sent at once), :mod:`.mr_suite` the files and the
  drawn recognitions (:mod:`.mr_generated`) through an engine, :mod:`.mr_classes` why a
  failure fails, :mod:`.mr_report` the compliance table, :mod:`.mr_duckdb` DuckDB when
  its wheel accepts the clause.
"""
