"""The elements of each part of a ``PARTITION BY`` count over the columns of a loaded
stream (:mod:`kleene.engines.count.sremo`; issue 31 item 2).

Event by event, every event is made, its guards tested one by one and its part looked
up (:func:`kleene.reference.policies.part_of`). Over columns the parts are cut once, as
the engine ``srt`` cuts them (:func:`kleene.engines.srt.partition.split`: the distinct
values of string, integer or boolean columns without a missing value, which are exactly
the parts of ``part_of``), each row gets its part and its *rank* in the part (the
position the reference gives it in the part's own sub-stream, docs/architecture.md,
"SREMO streaming"), and the *candidates*, the rows satisfying some guard, are found by
Arrow's kernels with their minterms (:func:`kleene.engines.srt.columns.candidates`, the
reference's three-valued comparisons). A part's elements are then its candidates, by
rank, and between two of them one run of the ranks no guard holds on (minterm 0, which
no marking transition takes: the caller checks), as
:func:`kleene.engines.count.sremo._column_elements` gives them for the whole stream. A
part with no candidate has no match and is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from kleene.data.columnar import Columns
from kleene.engines.count.ending import Element
from kleene.engines.srt.columns import ROWS, candidates
from kleene.engines.srt.partition import split
from kleene.reference.conditions import Condition


def part_elements(columns: Columns, by: tuple[str, ...], guards: Sequence[Condition]
                  ) -> dict[object, list[Element]] | None:
    """Each part's elements (position: rank in the part; timestamp; minterm over
    ``guards``, bit ``i`` for ``guards[i]``; run length, 0 for one element; row in the
    stream, -1 for a run), keyed by the part's number; ``None`` when the parts are not
    cut over columns (``split``)."""
    groups = split(columns, by) if len(columns) else None
    if groups is None:
        return None
    part = np.empty(len(columns), dtype=np.int64)
    rank = np.empty(len(columns), dtype=np.int64)
    for i, rows in enumerate(groups):
        part[rows] = i
        rank[rows] = np.arange(len(rows), dtype=np.int64)
    found: list[np.ndarray] = []
    terms: list[np.ndarray] = []
    for start in range(0, len(columns), ROWS):
        rows, minterms = candidates(columns.slice(start, min(start + ROWS, len(columns))),
                                    guards)
        found.append(rows + start)
        terms.append(minterms)
    cand = np.concatenate(found)
    minterm = np.concatenate(terms)
    stamps = columns.ts.take(pa.array(cand, type=pa.int64())).to_pylist()
    order = np.argsort(part[cand], kind="stable")      # by part, each in stream order
    owner = part[cand][order].tolist()
    at = cand.tolist()
    parts: dict[object, list[Element]] = {}
    last = -1
    for key, i, r, m in zip(owner, order.tolist(), rank[cand][order].tolist(),
                            minterm[order].tolist(), strict=True):
        elements = parts.get(key)
        if elements is None:
            elements = parts[key] = []
            last = -1
        if r > last + 1:
            elements.append([last + 1, 0, 0, r - last - 1, -1])
        elements.append([r, stamps[i], m, 0, at[i]])
        last = r
    return parts
