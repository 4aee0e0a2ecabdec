"""The engine ``dsrt`` (seed 004 report Thm 41, Alg. 7, run as Alg. 1 runs an SRT):
on fully marked expressions it reports exactly the SREMO reference's matches under
both policies; anything else is refused at compile time with the reason."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.sremo_strategies import sremo_expressions
from kleene.conformance.strategies import streams
from kleene.engines.protocol import Query, claims
from kleene.engines.registry import engine
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.sremo import parse_sremo
from kleene.reference.sremo.expressions import Atom


def all_marked(e):
    """``e`` with every atom marked."""
    if isinstance(e, Atom):
        return dataclasses.replace(e, marked=True)
    changes = {}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, tuple) and v and dataclasses.is_dataclass(v[0]):
            changes[f.name] = tuple(all_marked(x) for x in v)
        elif dataclasses.is_dataclass(v) and f.name in ("body", "part", "left", "right"):
            changes[f.name] = all_marked(v)
    return dataclasses.replace(e, **changes)


EXPRESSIONS = sremo_expressions(max_depth=3, negation=False, strategies=False).map(all_marked)


@given(e=EXPRESSIONS, s=streams(min_size=1, max_size=6),
       policy=st.sampled_from(("stream", "literal")))
def test_dsrt_equals_the_reference_on_fully_marked_expressions(e, s, policy):
    expected = reference_or_reject(e, s, policy, steps=40_000)
    try:
        compiled = engine("dsrt").compile(Query.of(e, policy=policy, time_unit=s.time_unit))
    except Unsupported as err:
        assert "cap" in str(err) or "Alg. 7" in str(err), err
        reject()
    assert_same_matches(engine("dsrt"), pattern=e, stream=s, got=list(compiled.run(s)),
                        expected=expected, policy=policy)


def test_dsrt_reports_contiguous_matches_with_registers_under_a_count_window():
    # (A -> r ; B with B.ID = r.ID)[1..2] on A0 B0 A1 B0 B1: the pairs (0,1) and (2,... no:
    # position 3 has ID 0 ≠ r.ID 1 — only {0,1}); registers are copies (Algs. 3-6)
    e = parse_sremo("(mark {~.L = 'A'} -> r ; mark {~.L = 'B' AND ~.ID = r.ID})[1..2]")
    s = Stream.from_rows([{"ts": i, "L": L, "ID": x} for i, (L, x) in
                          enumerate([("A", 0), ("B", 0), ("A", 1), ("B", 0), ("B", 1)])])
    assert set(engine("dsrt").compile(Query.of(e)).run(s)) == {Match.marked({0, 1})}


@pytest.mark.parametrize("text", [
    # Thm 4.10 intersection, nested Kleene (Sec. 5.6, strict contiguity), registers
    "((mark {~.L = 'A'} -> r ; (mark {TRUE})* ; mark {~.ID = r.ID}) INTERSECT "
    "(mark {TRUE} ; (mark {TRUE})* ; mark {~.L = 'B'}))[1..4]",
    "(mark {~.L = 'A'} -> r ; (mark {~.L = 'B'} ; (mark {~.L = 'C'})*)* ; "
    "mark {~.ID = r.ID})[1..5]",
])
@given(s=streams(min_size=1, max_size=8))
def test_dsrt_equals_the_reference_on_intersection_and_nested_kleene(text, s):
    e = parse_sremo(text)
    expected = reference_or_reject(e, s, "stream", steps=40_000)
    got = list(engine("dsrt").compile(Query.of(e)).run(s))
    assert_same_matches(engine("dsrt"), pattern=e, stream=s, got=got, expected=expected,
                        policy="stream")


@pytest.mark.parametrize("text", [
    "mark {~.L = 'A'} ; {TRUE} ; mark {~.L = 'B'}",
    "(mark {~.L = 'A'} ; !({~.L = 'C'})[1..2])[1..3]",
    "ANY(mark {~.L = 'A'}, mark {~.L = 'B'})",
    "(mark {~.L = 'A'} ; mark {~.L = 'B'})[WITHIN 5]",
])
def test_what_the_output_agnostic_dsrt_cannot_report_runs_on_the_dsrt_with_marks(text):
    # unmarked atoms, negation, strategies, time windows: engines/srt/lazy_dsrt.py
    # (tests/test_srt_dsrt_time.py checks it against the reference)
    from kleene.engines.srt.lazy_dsrt import LazyDSRT

    assert isinstance(engine("dsrt").compile(Query.of(parse_sremo(text))), LazyDSRT)


def test_dsrt_claims_what_srt_claims():
    dsrt = engine("dsrt")
    assert dsrt.capabilities == engine("srt").capabilities
    assert claims(dsrt, Query.of(parse_sremo("ANY(mark {~.L = 'A'}, mark {~.L = 'B'})")))


def test_the_dsrt_cap_is_one_line_naming_it():
    from kleene.engines.srt.dsrt import compile_dsrt

    e = parse_sremo("(mark {~.L = 'A'} ; (mark {TRUE})* ; mark {~.L = 'B'})[1..8]")
    with pytest.raises(Unsupported, match=r"cap of 3|more than 3 states \(the cap\)") as err:
        compile_dsrt(e, max_states=3)
    assert "\n" not in str(err.value)


def test_a_body_that_reads_the_register_it_writes_passes_its_case(capsys):
    """Was declined (report Alg. 7's register copies were missing): the DSRT with marks
    names its copies by the elements' order (engines/srt/lazy_dsrt.py)."""
    from kleene.cli import main

    ident = ("wayeb-queries-2/a-buy-then-adjacent-buys-dearer-than-it/"
             "stream-four-single-buys-and-one-pair")
    assert main(["conform", "--backend", "dsrt", "--case", ident]) == 0
    assert "1 passed, 0 failed, 0 skipped" in capsys.readouterr().out
