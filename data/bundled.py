"""The data sets shipped inside the package (``data/datasets/``), found beside this module
wherever the repository was cloned or the package installed: no machine path, nothing
outside the repository.

- ``stocks.stream.gz``: the stock stream of seed 004's experiments (Sec. 5, "a) stock market
  data from a single day (224,473 input events)"), one tick a line
  (:mod:`kleene.data.stock`);
- ``wayeb-queries/``: Wayeb's 19 ``.sre`` benchmark queries over it (seed 004 Sec. 5,
  Figs. 2, 4 and 5; read by :mod:`kleene.reference.sremo.wayeb`).

Where each file comes from, byte for byte, and under which terms: ``datasets/SOURCE.md``
(tests/test_bundled_data.py checks every file against its table).
"""

from __future__ import annotations

from pathlib import Path

#: The folder of the shipped data sets.
DATASETS = Path(__file__).resolve().parent / "datasets"


def bundled(name: str) -> Path:
    """The shipped file or folder ``name`` (``"stocks.stream.gz"``, ``"wayeb-queries"``)."""
    return DATASETS / name
