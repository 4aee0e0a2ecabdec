"""Metamorphic tests of the windows: every engine family, both readings (issue 25 part 2).

Two transformations of a drawn (pattern, stream), each a stress of the window
arithmetic (docs/semantics.md, "Windows": one predicate,
:func:`kleene.reference.durations.fits`):

- ``shift``: every timestamp plus 25,263,126 (the stock stream's first
  timestamp). With integer timestamps every span is unchanged, so the answer
  is the untransformed one exactly;
- ``scale``: timestamps and window times 0.1, and ``scale+shift``: then plus
  25,263,126.0. In floating point ``0.1·a − 0.1·b`` is not ``0.1·(a − b)``, so
  which spans fit may change: each engine must equal the reference ON THE
  TRANSFORMED INPUT.

Each engine that claims the query runs on the stream as events and as loaded
columns (the columnar chain, the match-window framework's pruning). Families:
SES (the automaton and brute force, every windows+ses variant), operator
patterns (every nfa-*), SREMO (srt and dsrt) with time and count windows.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.sremo_strategies import sremo_expressions
from kleene.conformance.strategies import (
    operator_patterns,
    ses_patterns,
    streams,
    typed_streams,
)
from kleene.engines.protocol import Query
from kleene.engines.registry import engine, engine_names_for
from kleene.reference.durations import Duration
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.events import Stream
from kleene.reference.query import WindowReading
from tests.helpers import columnar

STOCK = 25_263_126
TRANSFORMS = ("shift", "scale", "scale+shift")
READINGS = ("inclusive", "strict")


def with_windows_scaled(x: Any, k: float) -> Any:
    """``x`` (a pattern AST) with every time window ``Duration`` times ``k``
    (count windows, plain ints, are positions: unchanged)."""
    if isinstance(x, Duration):
        return Duration(x.value * k, x.unit)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        changes = {f.name: with_windows_scaled(getattr(x, f.name), k)
                   for f in dataclasses.fields(x) if f.init}
        return dataclasses.replace(x, **changes)
    if isinstance(x, tuple):
        return tuple(with_windows_scaled(v, k) for v in x)
    return x


def transformed(pattern: Any, s: Stream, how: str) -> tuple[Any, Stream]:
    rows = s.to_json()
    if how == "shift":
        rows = [{**r, "ts": r["ts"] + STOCK} for r in rows]
        return pattern, Stream.from_rows(rows, time_unit=s.time_unit)
    rows = [{**r, "ts": r["ts"] * 0.1} for r in rows]
    if how == "scale+shift":
        rows = [{**r, "ts": r["ts"] + float(STOCK)} for r in rows]
    return with_windows_scaled(pattern, 0.1), Stream.from_rows(rows, time_unit=s.time_unit)




def check_family(family: str, pattern: Any, s: Stream, policy: str, reading: WindowReading,
                 how: str) -> None:
    """Every engine of ``family`` that claims the query equals the reference on the
    transformed input; with the integer shift, also the untransformed answer."""
    query = Query.of(pattern, policy=policy, reading=reading)
    names = [n for n in FAMILIES[family]
             if query.features() <= engine(n).capabilities]
    if not names:
        return
    p2, s2 = transformed(pattern, s, how)
    expected = reference_or_reject(p2, s2, policy, steps=40_000, reading=reading)
    if how == "shift":
        assert expected == reference_or_reject(pattern, s, policy, steps=40_000,
                                               reading=reading)
    q2 = Query.of(p2, policy=policy, reading=reading)
    for name in names:
        for form in (s2, columnar(s2)):
            try:
                got = list(engine(name).compile(q2).run(form))
            except (BudgetExceeded, Unsupported):
                continue  # an instance budget, or a fragment the engine refuses
            assert_same_matches(engine(name), pattern=p2, stream=form, got=got,
                                expected=expected, policy=policy)


FAMILIES = {
    "ses": engine_names_for("ses"),
    "operator": tuple(n for n in engine_names_for("operator") if n.startswith("nfa-")),
    "sremo": tuple(n for n in engine_names_for("sremo") if n in ("srt", "dsrt")),
}


def test_every_family_has_its_engines() -> None:
    assert {"ses-automaton", "ses-bruteforce", "windows+ses"} <= set(FAMILIES["ses"])
    assert {"nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain",
            "nfa-tree"} <= set(FAMILIES["operator"])
    assert set(FAMILIES["sremo"]) == {"srt", "dsrt"}


SETTINGS = settings(max_examples=300, deadline=None)
# (windows from 1 and gaps up to 3 make spans equal to τ common: with them the
# integer shift caught nfa-tree admitting a strict span of τ before the fix)


@pytest.mark.slow
@SETTINGS
@given(pattern=ses_patterns(), s=streams(min_size=1, max_size=7),
       policy=st.sampled_from(("any", "next")), reading=st.sampled_from(READINGS),
       how=st.sampled_from(TRANSFORMS))
def test_ses_engines_equal_the_reference_on_shifted_and_scaled_input(pattern, s, policy,
                                                                      reading, how):
    check_family("ses", pattern, s, policy, reading, how)


@pytest.mark.slow
@SETTINGS
@given(pattern=operator_patterns(max_depth=2, windows=st.integers(1, 6)),
       s=typed_streams(min_size=2, max_size=9, gaps=st.sampled_from((0, 1, 2, 3))),
       reading=st.sampled_from(READINGS), how=st.sampled_from(TRANSFORMS))
def test_nfa_engines_equal_the_reference_on_shifted_and_scaled_input(pattern, s, reading,
                                                                      how):
    check_family("operator", pattern, s, "any", reading, how)


@pytest.mark.slow
@SETTINGS
@given(e=sremo_expressions(max_depth=2, time_windows=True), s=streams(min_size=1, max_size=6),
       reading=st.sampled_from(READINGS), how=st.sampled_from(TRANSFORMS))
def test_srt_engines_equal_the_reference_on_shifted_and_scaled_input(e, s, reading, how):
    check_family("sremo", e, s, "stream", reading, how)
