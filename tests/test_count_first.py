"""The first K matches in the order of their last event (``--first K``, CEQL's ``LIMIT``;
issue 31 item 3; engines/count/first.py, docs/counting.md).

The oracle is the reference: its match set sorted by (last position, canonical text),
cut at K. That only a prefix of the stream is matched is checked by hand on streams
written here (each test says how).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kleene.conformance.differential import reference_or_reject
from kleene.conformance.strategies import operator_patterns, ses_patterns, streams, typed_streams
from kleene.engines.count.first import FIRST_PREFIX, first_matches, order
from kleene.reference.events import Stream
from tests.helpers import run_cli, ses_reference

KS = st.integers(1, 6)


@given(ses_patterns(max_sets=3, max_vars=3), streams(min_size=1, max_size=8), KS)
def test_the_first_k_of_an_ses_pattern_are_the_references(p, s, k):
    """Any SES pattern under ``any`` (the count guides the prefix where it claims the
    pattern, the prefix doubles elsewhere)."""
    expected = sorted(ses_reference(p, s, "any"), key=order)[:k]
    got = first_matches(p, s, k, policy="any")
    assert list(got.matches) == expected and got.why is None


@given(operator_patterns(max_depth=2), typed_streams(min_size=1, max_size=7), KS)
def test_the_first_k_of_an_operator_pattern_are_the_references(p, s, k):
    """Operator patterns under ``any``, a ``NOT`` included (then the whole stream is
    matched, and the reason said)."""
    expected = sorted(reference_or_reject(p, s, "any"), key=order)[:k]
    got = first_matches(p, s, k, policy="any")
    assert list(got.matches) == expected


@given(ses_patterns(max_sets=2, max_vars=3), streams(min_size=1, max_size=7), KS)
def test_under_next_the_whole_stream_is_matched_and_cut(p, s, k):
    expected = sorted(ses_reference(p, s, "next"), key=order)[:k]
    got = first_matches(p, s, k, policy="next")
    assert list(got.matches) == expected and got.events == len(s)
    assert got.why is not None and "policy next" in got.why


#: A B A B ... one apart, 10,000 events: <{a}, {b}> within 1 matches (A_2i, B_2i+1) only.
ALTERNATING = Stream.from_rows([{"ts": i, "type": "AB"[i % 2]} for i in range(10_000)])


def test_the_count_stops_at_the_group_that_completes_k():
    """The third match is (A4, B5): the count's pass stops at B5's group, and only the
    first 6 events are matched."""
    got = first_matches("PATTERN <{a}, {b}>\nWHERE a.type = 'A' AND b.type = 'B'\n"
                        "WITHIN 1\n", ALTERNATING, 3)
    assert [(m["a"], m["b"]) for m in got.matches] == [((0,), (1,)), ((2,), (3,)), ((4,), (5,))]
    assert got.events == 6


def test_an_operator_pattern_reads_a_doubling_prefix():
    """``SEQ(A a, OR(B b, C c))`` within 1 (outside the count's fragment): the same
    matches; 3 lie in the first prefix tried."""
    got = first_matches("PATTERN SEQ(A a, OR(B b, C c)) WITHIN 1", ALTERNATING, 3)
    assert [(m["a"], m["b"]) for m in got.matches] == [((0,), (1,)), ((2,), (3,)), ((4,), (5,))]
    assert got.events == FIRST_PREFIX < len(ALTERNATING)


def test_kleene_match_first_prints_in_the_order_of_the_last_event(capsys, tmp_path):
    """A B A B at 0..3, ``<{a}, {b}>`` within 3: (0, 1) ends at 1, (0, 3) and (2, 3) at 3,
    ordered by their text: the first two are (0, 1) then (0, 3)."""
    (tmp_path / "e.csv").write_text("ts,type\n0,A\n1,B\n2,A\n3,B\n")
    (tmp_path / "q.ses").write_text("PATTERN <{a}, {b}>\nWHERE a.type = 'A' AND "
                                    "b.type = 'B'\nWITHIN 3\n")
    args = ("match", "--pattern", str(tmp_path / "q.ses"), "--events", str(tmp_path / "e.csv"))
    code, out, err = run_cli(capsys, *args, "--first", "2")
    assert code == 0 and out == '{"a": [0], "b": [1]}\n{"a": [0], "b": [3]}\n'
    assert "--first 2 matched the first 4 events of 4" in err
    code, out, err = run_cli(capsys, *args, "--first", "2", "--count")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    code, out, err = run_cli(capsys, *args, "--first", "0")
    assert code == 2 and out == ""
