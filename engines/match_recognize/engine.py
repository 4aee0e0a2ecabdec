"""The ``match-recognize`` engine: the registry's entry, and its recognizer for SQL.

An :class:`~kleene.engines.protocol.Engine` compiles a :class:`~kleene.reference.query.
Query`; a ``MATCH_RECOGNIZE`` statement answers a table, not matches, so the compiled
value (:class:`~.recognition.CompiledRecognition`) offers ``recognize(arrow_table)``
beside the protocol's ``iter_transitions()`` (``kleene draw`` draws the program) and
refuses ``run(events)`` in one line. :meth:`MatchRecognizeEngine.compile` takes a
statement of one recognition; :meth:`MatchRecognizeEngine.recognizer` is what
:func:`kleene.data.sql.run_statement` (and ``kleene conform --sqllogictest --engine
match-recognize``) runs every recognition with
(:class:`~kleene.data.sql.ArrowRecognizer`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.protocol import Feature, Query
from kleene.engines.registry import register
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import MatchRecognize, Statement
from kleene.reference.match_recognize.features import CONSTRUCTS
from kleene.reference.match_recognize.registration import POLICY

NAME = "match-recognize"
LANGUAGE = "match_recognize"


@dataclass(frozen=True)
class EngineRecognizer:
    """Every recognition of a statement by the engine, each under its own budget of
    ``seconds`` (``None``: the default step budget only)."""

    seconds: float | None = None

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table:
        budget = Budget(seconds=self.seconds)  # as the sqllogictest runner's reference
        return CompiledRecognition(clause).recognize(table, budget=budget)


class MatchRecognizeEngine:
    """The fast matcher of ``MATCH_RECOGNIZE`` (docs/engines-match-recognize.md)."""

    name = NAME

    @property
    def capabilities(self) -> frozenset[Feature]:
        return Feature.of(LANGUAGE, POLICY, *CONSTRUCTS)

    def compile(self, query: Query) -> CompiledRecognition:
        statement = query.pattern
        if query.language != LANGUAGE or not isinstance(statement, Statement):
            raise Unsupported(f"engine {NAME!r} runs {LANGUAGE} statements, not "
                              f"{query.language} patterns")
        if len(statement.recognitions) != 1:
            raise Unsupported(f"engine {NAME!r} compiles a statement of one MATCH_RECOGNIZE; "
                              f"this one has {len(statement.recognitions)}")
        return CompiledRecognition(statement.recognitions[0].clause)

    def recognizer(self, seconds: float | None = None) -> EngineRecognizer:
        """The engine as :func:`kleene.data.sql.run_statement`'s ``recognize``."""
        return EngineRecognizer(seconds)


register(NAME, MatchRecognizeEngine)
