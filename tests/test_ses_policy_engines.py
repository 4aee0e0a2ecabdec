"""An engine for every SES policy (issue 32 item 3, issue 29 item 2): ``ses-contiguous``
(``contiguous``, ``partition-contiguous``) and the match windows with an earliest-maximal
A (``windows+ses-earliest``: ``earliest-maximal``, ``earliest-maximal-contained``).

1. Differential: each engine reports exactly the reference's matches under each of its
   policies, no match twice, on drawn patterns and streams (ties, keys, windows: the
   strategies of :mod:`kleene.conformance.strategies`; ≥ 300 examples per policy,
   tests/conftest.py); over a loaded stream's columns (the filter on the columns, ē)
   each engine reports what it reports over the same events one by one.
2. Hand-computed examples: the docs' worked examples (docs/semantics.md, section 5).
3. The registry: no documented SES policy is left to the reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given

from kleene.conformance.differential import assert_same_matches, reported_matches
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.registry import engine, fastest_engine
from kleene.reference.events import Stream
from kleene.reference.languages import language_named
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses
from tests.helpers import SES_PATTERNS, SES_STREAMS, ses_reference

CONTIGUOUS = ("contiguous", "partition-contiguous")
EARLIEST = ("earliest-maximal", "earliest-maximal-contained")
ENGINE_OF = {**dict.fromkeys(CONTIGUOUS, "ses-contiguous"),
             **dict.fromkeys(EARLIEST, "windows+ses-earliest")}


@pytest.mark.parametrize("policy", [*CONTIGUOUS, *EARLIEST])
@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_the_engine_equals_the_reference(policy, pattern, stream):
    expected = ses_reference(pattern, stream, policy)
    eng = engine(ENGINE_OF[policy])
    assert_same_matches(eng, pattern=pattern, stream=stream, policy=policy,
                        got=reported_matches(eng, policy, pattern, stream), expected=expected)


STOCK = {
    "contiguous": "PATTERN <{a, b+, c}> WHERE a.name = 'INTC' AND b.name = 'MSFT' "
                  "AND c.name = 'CSCO' WITHIN 500 ms",
    "partition-contiguous": "PATTERN <{a}, {b+}, {c}> WHERE a.name = 'INTC' AND "
                            "a.name = b.name AND b.name = c.name AND b.volume > 100 "
                            "AND prev(b.price) <= b.price WITHIN 2000 ms",
}


@pytest.mark.parametrize("policy", [*CONTIGUOUS, *EARLIEST])
def test_a_loaded_stream_gives_what_its_events_give(policy):
    s = load_events(str(bundled("stocks.stream.gz")), limit=3000)
    text = STOCK.get(policy, "PATTERN <{a, b, c}> WHERE a.name = 'INTC' AND b.name = 'MSFT' "
                             "AND c.name = 'CSCO' WITHIN 500 ms")
    compiled = engine(ENGINE_OF[policy]).compile(
        Query.of(parse_ses(text), policy=policy, time_unit=s.time_unit))
    loaded = list(compiled.run(s))
    assert loaded and sorted(loaded) == sorted(compiled.run(list(s.events)))


def _match(**bindings: int | tuple[int, ...]) -> Match:
    return Match.of({v: (p,) if isinstance(p, int) else p for v, p in bindings.items()})


def _run(text: str, policy: str, rows: Sequence[Mapping[str, object]]) -> set[Match]:
    query = Query.of(parse_ses(text), policy=policy)
    return set(engine(ENGINE_OF[policy]).compile(query).run(Stream.from_rows(rows)))


def test_contiguity_by_hand():
    """docs/semantics.md, "partition-contiguous": C/1, C/2, P/1, P/2, D/2, B/1, B/2; patient
    1's {c/0, p/[2], b/5} uses every event of patient 1 from 0 to 5, patient 2's
    {c/1, p/[3], b/6} skips patient 2's D at 4; nothing is contiguous in the whole stream."""
    rows = [{"ts": t, "L": label, "ID": pid} for t, (label, pid) in enumerate(
        [("C", 1), ("C", 2), ("P", 1), ("P", 2), ("D", 2), ("B", 1), ("B", 2)])]
    text = ("PATTERN <{c, p+}, {b}> WHERE c.L = 'C' AND p.L = 'P' AND b.L = 'B' "
            "AND c.ID = p.ID AND p.ID = b.ID WITHIN 10")
    assert _run(text, "partition-contiguous", rows) == {_match(c=0, p=2, b=5)}
    assert _run(text, "contiguous", rows) == set()
    # A, A, B: {a/1, b/2} is contiguous, {a/0, b/2} skips the A at 1
    ab = [{"ts": t, "L": x} for t, x in enumerate("AAB")]
    assert _run("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5", "contiguous",
                ab) == {_match(a=1, b=2)}
    # a group: A, A, B gives a/[0, 1] and a/[1] with b/2, not a/[0] (it skips 1)
    assert _run("PATTERN <{a+}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5", "contiguous",
                ab) == {_match(a=(0, 1), b=2), _match(a=1, b=2)}


def test_earliest_maximal_by_hand():
    """docs/errata.md#seed-001-maximal-one-event: <{p+}> with prev(p.V) != p.V on V = 1,
    2, 1, 2: from e1 the earliest match no single event extends is p/<0, 1, 2, 3>, and
    p/<0, 3> too under earliest-maximal (no one event extends it); the contained reading
    drops the latter."""
    rows = [{"ts": t, "V": v} for t, v in enumerate([1, 2, 1, 2])]
    text = "PATTERN <{p+}> WHERE prev(p.V) != p.V WITHIN 10"
    got = _run(text, "earliest-maximal", rows)
    contained = _run(text, "earliest-maximal-contained", rows)
    assert _match(p=(0, 3)) in got and _match(p=(0, 3)) not in contained
    assert _match(p=(0, 1, 2, 3)) in got and _match(p=(0, 1, 2, 3)) in contained
    assert contained < got


def test_no_documented_ses_policy_falls_back_to_the_reference():
    pattern = parse_ses("PATTERN <{a, b+}, {c}> WHERE a.L = 'A' AND a.ID = b.ID "
                        "AND b.ID = c.ID AND prev(b.V) < b.V WITHIN 5")
    for policy in language_named("ses").policies:
        choice = fastest_engine(Query.of(pattern, policy=policy))
        assert choice is not None, policy
