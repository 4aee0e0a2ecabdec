"""The choices for rows tied on every ``ORDER BY`` key (:mod:`.ties` defines them), in a
module of their own so that ``kleene match`` offers ``--ties`` without loading the row
pattern modules at its start (tests/test_cli_imports.py)."""

from __future__ import annotations

#: ``input-order``: tied rows keep their input order (the default, every door's rule);
#: ``error``: a tie whose order can change the answer is refused
#: (:class:`~kleene.reference.errors.TieError`).
TIES = ("input-order", "error")
INPUT_ORDER, ERROR = TIES
