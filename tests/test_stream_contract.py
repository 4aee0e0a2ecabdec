"""When a streamed match is final, and what is refused before a query starts (issue 14).

Pure Python: the emission rule of :mod:`kleene.engines.spark.stream.contract`
(expected values by hand from seed 001's pruning reach, reference/ses/pruning.py)
and the state's metadata round trip."""

from __future__ import annotations

import math
import random

import pytest

from kleene.engines.registry import engine
from kleene.engines.spark.stream.contract import StreamSetupError, finality, parse_duration
from kleene.engines.spark.stream.replay import cuts
from kleene.engines.spark.stream.store import Meta
from kleene.reference.errors import Unsupported
from kleene.reference.languages import detect_language
from kleene.reference.query import Query

SEQ = "PATTERN <{a}, {b}> WHERE a.type = 'A' AND b.type = 'B' WITHIN 10"


def parse(text: str):
    return detect_language(text).parse(text, "<test>")


def test_any_is_final_when_the_watermark_passes_first_plus_tau():
    fin = finality(engine("windows+ses"), Query.of(parse(SEQ), policy="any"), watermark=15)
    assert (fin.reach, fin.tau, fin.delay) == ((0, 1), 10, 15)
    assert fin.watermark(-math.inf, 100) == 85          # max ts − delay
    assert fin.watermark(90.0, 100) == 90.0             # never goes back
    assert fin.watermark(90.0, None) == 90.0            # an empty batch
    assert fin.frontier(85) == 75                       # first.ts + τ < 85
    assert fin.keep_from(75) == 75                      # L = 0: nothing before the frontier
    assert fin.frontier(math.inf) == math.inf           # the end: everything is final


def test_nanosecond_timestamps_stay_exact():
    # 2^53 < 1.7e18: as floats, 1_700_000_000_000_000_001 − 15 rounds to a multiple of 256.
    fin = finality(engine("windows+ses"), Query.of(parse(SEQ), policy="any"), watermark=15)
    ts = 1_700_000_000_000_000_001
    assert fin.watermark(-math.inf, ts) == 1_699_999_999_999_999_986
    assert fin.frontier(fin.watermark(-math.inf, ts)) == 1_699_999_999_999_999_976
    meta = Meta(watermark=1_699_999_999_999_999_986, frontier=1_699_999_999_999_999_976)
    back = Meta.loads(meta.dumps())
    assert (back.watermark, back.frontier) == (1_699_999_999_999_999_986,
                                               1_699_999_999_999_999_976)
    assert Meta.loads(Meta().dumps()).watermark == -math.inf


def test_next_uses_the_default_watermark_tau():
    fin = finality(engine("ses-automaton"), Query.of(parse(SEQ), policy="next"), watermark=None)
    assert fin.reach == (0, 1) and fin.delay == 10      # the default watermark is τ
    assert fin.frontier(100) == 90 and fin.keep_from(90) == 90


def test_a_policy_the_engine_does_not_claim_is_refused():
    with pytest.raises(Unsupported, match=r"policy 'next-literal' cannot be decided before "
                                          r"the stream ends: engine 'ses-automaton' does not"):
        finality(engine("ses-automaton"), Query.of(parse(SEQ), policy="next-literal"),
                 watermark=None)


def test_watermark_with_a_unit():
    text = "PATTERN <{a}, {b}> WHERE a.type = 'A' AND b.type = 'B' WITHIN 2 s"
    fin = finality(engine("windows+ses"), Query.of(parse(text), policy="any", time_unit="ms"),
                   watermark="2.5 s")
    assert (fin.tau, fin.delay) == (2000, 2500)
    assert parse_duration("500 ms", "ms") == 500 and parse_duration(7, None) == 7


def test_a_watermark_shorter_than_the_window_is_refused():
    with pytest.raises(StreamSetupError, match=r"watermark \(5\) is shorter than the "
                                               r"pattern's window \(10"):
        finality(engine("windows+ses"), Query.of(parse(SEQ), policy="any"), watermark=5)


def test_an_unreadable_watermark_is_one_line():
    with pytest.raises(StreamSetupError, match="cannot read the watermark 'soon'"):
        parse_duration("soon", None)


def test_a_pattern_without_a_window_cannot_be_decided_before_the_end():
    expr = parse("mark {~.type = 'B'} ; {TRUE}* ; mark {~.type = 'S'}")
    with pytest.raises(Unsupported, match=r"policy 'stream' cannot be decided before the "
                                          r"stream ends: the sremo pattern has no time window"):
        finality(engine("srt"), Query.of(expr, policy="stream"), watermark=None)


def test_meta_round_trips_with_infinite_watermarks():
    meta = Meta().advanced(3, watermark=math.inf, next_position=7, add={"late": 2})
    again = Meta.loads(meta.dumps())
    assert again == meta and again.frontier == -math.inf and again.counts == {"late": 2}
    assert again.advanced(4, add={"late": 1}).counts == {"late": 3}


def test_cuts_are_distinct_and_inside():
    rng = random.Random(0)
    at = cuts(10, 4, rng)
    assert len(at) == 3 and at == sorted(set(at)) and all(0 < c < 10 for c in at)
    assert cuts(2, 5, rng) == [1]


def test_explain_says_what_a_continuous_run_does_not_the_batch_plan():
    # SEQ under 'any': reach (0, 1) (seed 001 Thm 3, reference/ses/pruning.py); the batch
    # plan's notes also speak of partitions and time slices, which streaming does not use.
    fin = finality(engine("windows+ses"), Query.of(parse(SEQ), policy="any", time_unit="ms"),
                   watermark=15)
    assert any(n.startswith(("partitions", "time slices")) for n in fin.plan.notes)
    assert fin.explain("ms") == [
        "filter (Thm 1): applied, 'any' is filter-invariant",
        "final: a match once the watermark (largest ts − 15 ms) passes its first event's "
        "ts + 1τ (τ = 10 ms)",
        "state: the events with ts ≥ the watermark, and those the filter keeps with "
        "ts ≥ the watermark − 1τ"]
