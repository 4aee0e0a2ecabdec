"""The peers' ``MATCH_RECOGNIZE`` queries: Kleene's checked translation, with the adapters' names.

The translation itself, its fragment and why each pattern outside it is refused
(:class:`~kleene.reference.operators.to_match_recognize.Untranslatable`) are
:mod:`kleene.reference.operators.to_match_recognize`; its rows and the reading of
an answer back as matches :mod:`kleene.reference.operators.match_recognize_rows`.
An adapter adds only what a request's rows decide:

- the names (:data:`NAMING`): ``V_x`` for variable ``x``, ``c_A`` for attribute
  ``A``, ``kts`` and ``kpos`` for the timestamp and the position, so that no
  attribute or variable name collides with an SQL keyword or with each other;
- the column types of the rows (a comparison SQL would reject is refused);
- ``SEQ``'s strict ``ts`` order is written only when the rows have ties in ``ts``
  (otherwise ``ORDER BY kts`` makes consecutive rows strictly later already);
- every translation, exact or not: :meth:`~.Translation.inexact` says when an
  engine's ``TO NEXT ROW`` answer must be the reference's, and the probe holds the
  others to :mod:`.mr_oracle`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kleene.reference.events import Value
from kleene.reference.operators.match_recognize_rows import column_types
from kleene.reference.operators.to_match_recognize import (
    SKIPS,
    Naming,
    Translation,
    translate,
)
from kleene.reference.query import Query

__all__ = ["NAMING", "SKIPS", "plan"]

#: The adapters' names (module docstring).
NAMING = Naming(variable="V_{}", column="c_{}", ts="kts", position="kpos")


def plan(query: Query, rows: Sequence[Mapping[str, Value]], *, skip: str = "TO NEXT ROW",
         ne: str = "<>") -> Translation:
    """The ``MATCH_RECOGNIZE`` query of ``query`` over ``rows`` with ``skip`` (``ne``: the
    engine's spelling of SQL's ``<>``), exact or not."""
    ties = len({r["ts"] for r in rows}) < len(rows)
    return translate(query, skip=skip, ties=ties, exact=False, types=column_types(rows),
                     naming=NAMING, ne=ne)
