"""The peer backends by name, as ``module:factory`` specifications for ``kleene conform``.

``--backend kleene.conformance.adapters.engines:flink`` (or ``:pmr``) runs the
conformance cases against Apache Flink SQL or pandas-match-recognize (the
claimed fragment, ``AFTER MATCH SKIP TO NEXT ROW``); the ``*_probe``
factories run every translatable case (compared with :mod:`.mr_oracle` by
``scripts/peers.py``).
"""

from __future__ import annotations

from kleene.conformance.adapters.base import MRBackend
from kleene.reference.operators.to_match_recognize import Translation


class FlinkBackend(MRBackend):
    """Apache Flink SQL ``MATCH_RECOGNIZE`` (PyFlink, streaming mode, parallelism 1)."""

    quote = "`"

    def limit(self, p: Translation) -> str | None:
        """Flink's documented restriction (docs, "Known Limitations" of MATCH_RECOGNIZE):
        a pattern may not end with a greedy quantifier."""
        if p.items[-1].iterated:
            return ("greedy quantifiers are not allowed as the last element of a pattern "
                    "(Flink SQL MATCH_RECOGNIZE, known limitation)")
        return None


def flink(skip: str = "TO NEXT ROW", probe: bool = False) -> MRBackend:
    """Apache Flink through ``.peers/flink``."""
    return FlinkBackend("flink", "flink_worker.py", skip=skip, probe=probe)


class PmrBackend(MRBackend):
    """pandas-match-recognize. Its condition parser rejects SQL's ``<>`` (logged as a
    syntax error, the condition then never holds; a direct check of ``make peers``
    records it), so the adapter writes ``!=``, which it accepts."""

    ne = "!="


def pmr(skip: str = "TO NEXT ROW", probe: bool = False) -> MRBackend:
    """pandas-match-recognize through ``.peers/pmr``."""
    return PmrBackend("pmr", "pmr_worker.py", skip=skip, probe=probe)
