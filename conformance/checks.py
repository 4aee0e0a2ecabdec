"""Checkers for the conformance tests of the reference's own pruning
definitions (seed 001 Sec. 4): the ``check`` kinds other than ``matches``.

Engines skip these; they pin what :mod:`kleene.reference.ses` computes for the
paper's worked examples. Each checker takes the parsed pattern, the stream
and the test's JSON object, and returns the list of disagreements (empty when
the test passes). The fields of each kind are documented in
``conformance/CASES.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kleene.reference.events import Event, Stream
from kleene.reference.match import matches_from_json
from kleene.reference.ses.filtering import filtered, filtered_matches
from kleene.reference.ses.necessary import is_candidate_window, necessary_conditions
from kleene.reference.ses.partitioning import partitioned_window, partitioning_attributes
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.statistics import (
    PaperStatistics,
    SummaryStatistics,
    event_bits,
    replay,
    set_masks,
    statistics_bits,
    summary_statistics,
)
from kleene.reference.ses.windows import window_at, window_matches, window_of

Check = Callable[[SESPattern, Stream, Mapping[str, Any]], list[str]]


def positions(events: Sequence[Event]) -> list[int]:
    """The stream positions of ``events``."""
    return [e.position for e in events]


def _differs(what: str, got: object, expected: object) -> list[str]:
    return [] if got == expected else [f"{what}: expected {expected!r}, computed {got!r}"]


def _window(pattern: SESPattern, s: Stream, t: Mapping[str, Any]) -> tuple[Event, ...]:
    """W_start (Def. 3) over the stream or, with ``filtered``, the filtered stream (Thm 1)."""
    events = filtered(pattern, s) if t.get("filtered") else s.events
    index = positions(events).index(t["start"])
    return tuple(window_at(events, index, window_of(pattern, s)))


def _conditions(t: Mapping[str, Any]) -> dict[int, bool]:
    return {int(k): v for k, v in t["conditions"].items()}


def check_candidate_window(pattern: SESPattern, s: Stream, t: Mapping[str, Any]) -> list[str]:
    """Thm 2: the window's conditions 4–7 and whether it is a candidate for A."""
    w = _window(pattern, s, t)
    out = _differs("window", positions(w), t["window"])
    out += _differs("conditions 4-7", necessary_conditions(pattern, w), _conditions(t))
    out += _differs("candidate", is_candidate_window(pattern, w), t["candidate"])
    if "window_matches" in t:
        out += _differs("A(P, W)", window_matches(pattern, w, time_unit=s.time_unit),
                        matches_from_json(t["window_matches"]))
    return out


def check_summary_statistics(pattern: SESPattern, s: Stream, t: Mapping[str, Any]) -> list[str]:
    """Def. 5 counters, Thm 3's conditions, the Sec. 5 bit vectors, the update trace."""
    w = [s[p] for p in t["window"]]
    out = _differs("counters", summary_statistics(pattern, w), t["counters"])
    if "conditions" in t:
        out += _differs("conditions 4-7", necessary_conditions(pattern, w), _conditions(t))
    if "bits" in t:
        bits = t["bits"]
        out += _differs("event bits", [event_bits(pattern, e) for e in w], bits["events"])
        out += _differs("statistics bits", statistics_bits(t["counters"]), bits["statistics"])
        out += _differs("set masks", list(set_masks(pattern)), bits["masks"])
    if "trace" in t:
        steps = [(op, s[p]) for step in t["trace"] for op, p in step.items()]
        exact = SummaryStatistics(pattern)
        out += _differs("counters after the trace", replay(exact, steps), t["counters"])
        out += _differs("window after the trace", positions(exact.window), t["window"])
        if "paper_counters" in t:
            out += _differs("the paper's update rule", replay(PaperStatistics(pattern), steps),
                            t["paper_counters"])
    return out


def check_partitions(pattern: SESPattern, s: Stream, t: Mapping[str, Any]) -> list[str]:
    """Def. 6: the partitioning attributes and the partitions of a window."""
    w = _window(pattern, s, t)
    out = _differs("window", positions(w), t["window"])
    out += _differs("attributes", list(partitioning_attributes(pattern)), t["attributes"])
    got = {tuple(positions(part)) for part in partitioned_window(pattern, w)}
    return out + _differs("partitions", got, {tuple(part) for part in t["partitions"]})


def check_filter(pattern: SESPattern, s: Stream, t: Mapping[str, Any]) -> list[str]:
    """Thm 1: which events pass the filter, and the matches on the filtered stream."""
    out = _differs("passes", positions(filtered(pattern, s)), t["passes"])
    if "filtered_matches" in t:
        out += _differs("matches after filtering",
                        filtered_matches(pattern, s, t.get("policy", "any")),
                        matches_from_json(t["filtered_matches"]))
    return out


#: The checker of each pruning check kind.
PRUNING_CHECKS: dict[str, Check] = {
    "candidate_window": check_candidate_window,
    "summary_statistics": check_summary_statistics,
    "partitions": check_partitions,
    "filter": check_filter,
}
