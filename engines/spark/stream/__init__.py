"""Continuous matching on Spark Structured Streaming (issue 14; docs/architecture.md,
"Continuous matching").

Modules: :mod:`.contract` (when a match is final: the pruning reach of the
pattern's language, the watermark; pure Python), :mod:`.store` (the versioned
state beside Spark's checkpoint), :mod:`.step` (one micro-batch: settle,
number, match with the batch runner's worker function, emit), :mod:`.query`
(the Python API, :class:`ContinuousMatch`); ``kleene stream`` lives in :mod:`kleene.cli.stream`.
"""

from kleene.engines.spark.stream.contract import Finality, StreamSetupError, finality
from kleene.engines.spark.stream.query import ContinuousMatch
from kleene.engines.spark.stream.step import Progress

__all__ = ["ContinuousMatch", "Finality", "Progress", "StreamSetupError", "finality"]
