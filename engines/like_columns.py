"""``v.A LIKE 'regex'`` over a column (:mod:`kleene.engines.columns`): CORE's pattern
match, RE2's partial match of :mod:`kleene.reference.regex`.

Over events (object arrays) it is ``re.search`` of
:func:`~kleene.reference.regex.python_pattern`, as the reference decides it; over
Arrow it is ``pyarrow.compute.match_substring_regex``, which runs RE2's
``PartialMatch`` (the call of CORE's ``CompareWithRegexStronglyTyped``). On the subset
:mod:`kleene.reference.regex` reads, the two agree: tests/test_like.py draws patterns
of the subset and strings and checks one against the other.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.reference.regex import python_pattern


def found_in_objects(values: object, text: np.ndarray, pattern: str) -> np.ndarray:
    """Where ``pattern`` is found in ``values`` (an object array or one value), on the
    rows ``text`` marks (the others ``False``)."""
    found = np.zeros(len(text), dtype=bool)
    if text.any():
        search = python_pattern(pattern).search
        cells = np.broadcast_to(np.asarray(values, dtype=object), text.shape)[text]
        found[text] = [search(v) is not None for v in cells]
    return found


def found_in_arrow(column: object, text: np.ndarray, pattern: str) -> np.ndarray:
    """Where ``pattern`` is found in the Arrow ``column``, by Arrow's RE2, on the rows
    ``text`` marks (the others ``False``)."""
    if not text.any():
        return np.zeros(len(text), dtype=bool)
    assert isinstance(column, pa.Array), type(column)
    found = pc.fill_null(pc.match_substring_regex(column, pattern=pattern), False)
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=bool) & text
