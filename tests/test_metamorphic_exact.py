"""Exact metamorphic tests of time windows for ``dsrt`` (SREMO ``e[WITHIN τ]``, the DSRT
with marks) and ``ses-next-literal`` (seed 000 Def. 2 as printed): an integer affine map of
the timestamps moves no match (issue 32, the proofs' gap on windows).

The map is ``ts ↦ k·ts + c`` with an integer ``k ≥ 1`` and ``c`` = 0 or 2^53, and every
time window ``τ ↦ k·τ``. Why the answer is the untransformed one, position for position:
timestamps are Python integers (arbitrary precision), so ``(k·t_j + c) − (k·t_i + c) =
k·(t_j − t_i)`` exactly, and for ``k > 0`` ``k·d ≤ k·τ ⟺ d ≤ τ`` (and ``<`` likewise, the
strict reading); order and ties are kept, so every condition of the definitions (SREMO's
window over the marks' timestamps, docs/semantics.md "SREMO time windows"; SES's
``max ts − min ts ≤ τ``, seed 000 Def. 2 condition 4's ``t0 < q.ts < max ts``) has the
same truth on every pair of events. 2^53 is where float64 stops holding every integer
(2^53 + 1 is not a double): an engine that reads a timestamp or a bound through a float
(``first + τ`` in float, a float64 column) merges spans 1 apart, and the match set moves.
The reference on the transformed input is asked as well (it must move nothing either).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.sremo_strategies import gapped_sremo_expressions, sremo_expressions
from kleene.conformance.strategies import ses_patterns, streams
from kleene.engines.protocol import Query
from kleene.engines.registry import engine
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.events import Stream
from kleene.reference.query import WindowReading
from kleene.reference.sremo.expressions import Window, walk
from tests.helpers import columnar
from tests.test_metamorphic import READINGS, with_windows_scaled

#: The first integer float64 cannot hold every successor of.
TWO_53 = 2 ** 53


def mapped(pattern: Any, s: Stream, k: int, c: int) -> tuple[Any, Stream]:
    """``pattern`` with every time window times ``k``, ``s`` with ``ts ↦ k·ts + c``."""
    rows = [{**r, "ts": k * r["ts"] + c} for r in s.to_json()]
    assert all(isinstance(r["ts"], int) for r in rows)
    return with_windows_scaled(pattern, k), Stream.from_rows(rows, time_unit=s.time_unit)


def check(name: str, pattern: Any, s: Stream, policy: str, reading: WindowReading, k: int,
          c: int) -> None:
    """``name`` on the mapped input (events and loaded columns) and the reference on it
    answer the reference's matches on ``s``, the same positions."""
    expected = reference_or_reject(pattern, s, policy, steps=40_000, reading=reading)
    p2, s2 = mapped(pattern, s, k, c)
    assert reference_or_reject(p2, s2, policy, steps=40_000, reading=reading) == expected
    try:
        compiled = engine(name).compile(Query.of(p2, policy=policy, reading=reading,
                                                 time_unit=s2.time_unit))
    except Unsupported as err:    # the engine's own documented refusals
        assert "Alg. 7" in str(err) or "cap" in str(err), err
        return
    for form in (s2, columnar(s2)):
        try:
            got = list(compiled.run(form))
        except BudgetExceeded:
            continue
        assert_same_matches(engine(name), pattern=p2, stream=form, got=got,
                            expected=expected, policy=policy)


MAPS = dict(k=st.integers(1, 1000), c=st.sampled_from((0, TWO_53)))
SETTINGS = settings(max_examples=150, deadline=None)


def _timed(e: Any) -> bool:
    return any(isinstance(x, Window) and not isinstance(x.width, int) for x in walk(e))


@pytest.mark.slow
@SETTINGS
@given(e=st.one_of(gapped_sremo_expressions(), sremo_expressions(max_depth=2,
                                                                time_windows=True))
       .filter(_timed),
       s=streams(min_size=1, max_size=7), reading=st.sampled_from(READINGS), **MAPS)
def test_dsrt_time_windows_move_no_match_under_an_integer_affine_map(e, s, reading, k, c):
    check("dsrt", e, s, "stream", reading, k, c)


@pytest.mark.slow
@SETTINGS
@given(pattern=ses_patterns(), s=streams(min_size=1, max_size=7),
       reading=st.sampled_from(READINGS), **MAPS)
def test_ses_next_literal_moves_no_match_under_an_integer_affine_map(pattern, s, reading,
                                                                    k, c):
    check("ses-next-literal", pattern, s, "next-literal", reading, k, c)
