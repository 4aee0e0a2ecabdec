"""Seed 003 Sec. 6 as a property: the lazy chain, for every order of evaluation, finds
exactly what the eager NFA finds, and both find exactly the reference's matches.

Every (engine, policy) claimed runs against the reference on generated patterns
(:func:`~kleene.conformance.strategies.operator_patterns`: every construct, nested,
three event types, ties in ``ts``) and streams; the chains run with a drawn
frequency table, so every order σ of Sec. 3 is exercised.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.strategies import TYPES, operator_patterns, typed_streams
from kleene.engines.nfa.engine import NFAEngine
from kleene.engines.protocol import Feature, engine
from kleene.reference.errors import Unsupported

ENGINES = ("nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain")
CLAIMED = [(name, policy) for name in ENGINES for policy in ("any", "contiguous")]

frequencies = st.fixed_dictionaries({t: st.integers(0, 5) for t in TYPES})


def variant(name: str, freqs: dict[str, int] | None) -> NFAEngine:
    """The registered engine ``name``, with the chain's frequencies ``freqs``."""
    e = engine(name)
    assert isinstance(e, NFAEngine)
    e.frequencies = freqs
    return e


@pytest.mark.parametrize(("name", "policy"), CLAIMED)
def test_claims(name: str, policy: str) -> None:
    assert Feature("operator", policy) in engine(name).capabilities
    assert Feature("operator", "next") not in engine(name).capabilities


@pytest.mark.parametrize(("name", "policy"), CLAIMED)
@given(data=st.data())
def test_engine_equals_reference(name: str, policy: str, data: st.DataObject) -> None:
    multi = name == "nfa-multichain"
    pattern = data.draw(operator_patterns(disjunction=multi), label="pattern")
    stream = data.draw(typed_streams(), label="stream")
    freqs = data.draw(st.none() | frequencies, label="frequencies")
    e = variant(name, freqs)
    expected = reference_or_reject(pattern, stream, policy)
    got = list(e.compile(pattern, policy=policy).run(stream))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy=policy)


@given(pattern=operator_patterns(disjunction=False), stream=typed_streams(),
       orders=st.lists(frequencies, min_size=2, max_size=3))
def test_sec6_chain_equals_eager_for_every_order(pattern: object, stream: object,
                                                 orders: list[dict[str, int]]) -> None:
    """Sec. 6: the chain's matches do not depend on its order, and equal the eager NFA's."""
    eager = list(engine("nfa-eager").compile(pattern).run(stream))  # type: ignore[arg-type]
    assert len(eager) == len(set(eager))
    for freqs in orders:
        for name in ("nfa-chain", "nfa-chain-fc"):
            got = list(variant(name, freqs).compile(pattern).run(stream))  # type: ignore[arg-type]
            assert sorted(got) == sorted(eager), (name, freqs)


@given(pattern=operator_patterns(subpattern_kleene=True), stream=typed_streams(max_size=5))
def test_outside_the_fragment_is_unsupported(pattern: object, stream: object) -> None:
    """Never a wrong answer: either the reference's matches or Unsupported with a reason."""
    e = engine("nfa-multichain")
    try:
        compiled = e.compile(pattern)  # type: ignore[arg-type]
    except Unsupported as why:
        assert str(why)
        return
    expected = reference_or_reject(pattern, stream, "any")
    got = list(compiled.run(stream))  # type: ignore[arg-type]
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy="any")
