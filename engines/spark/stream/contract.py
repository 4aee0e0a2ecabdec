"""When a match is final on an unbounded stream, decided before the query starts.

Issue 14, item 2: "a match is emitted once, when no later event can change it
under the policy". The pruning answer of the pattern's language
(:attr:`kleene.reference.languages.Language.pruning`, for SES patterns
:mod:`kleene.reference.ses.pruning`) already bounds what a verdict reads: its
``reach`` ``(L, A)`` says the verdict on a match reads only events with ``ts``
in ``[first.ts − L·τ, first.ts + A·τ]`` (the same bound that makes the batch
runner's time slices sound, :mod:`kleene.engines.spark.plan`). So on a stream
whose event-time watermark is ``W`` (every event with ``ts < W`` has arrived):

- a match whose first event has ``first.ts + A·τ < W`` is **final**: every event
  its verdict reads has arrived, and so has every event of it (a match spans at
  most τ, and ``A ≥ 1``); it is emitted now, once (:meth:`Finality.frontier`);
- the events a later match can still read are those with
  ``ts ≥ frontier − L·τ`` (:meth:`Finality.keep_from`): the state is bounded by
  the window and the watermark delay, not by the stream.

For ``any`` (and every SES policy but ``next-literal``) ``(L, A) = (0, 1)``:
final when the watermark passes ``first.ts + τ``. A query without a reach
(no window in timestamp units, or a language whose pruning is not worked out,
:func:`kleene.reference.pruning.whole_stream`) has matches a later event can
still change at any time: it is refused before the query starts, saying which
and why (:func:`finality`). Everything here is pure Python.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from kleene.engines.protocol import Engine, Query
from kleene.engines.spark.plan import Plan, plan_for
from kleene.reference.durations import Duration, reach_before
from kleene.reference.errors import KleeneError, PatternError, Unsupported


class StreamSetupError(KleeneError):
    """A streaming query refused before it starts (one line)."""

    code = "usage"


@dataclass(frozen=True)
class Finality:
    """The emission rule of one (engine, pattern, policy): ``reach`` ``(L, A)``,
    ``tau`` and the watermark ``delay``, both in timestamp units."""

    plan: Plan
    reach: tuple[int, int]
    tau: int | float
    delay: int | float

    def watermark(self, previous: float, max_ts: float | None) -> float:
        """The event-time watermark after seeing events up to ``max_ts``: it never
        goes back (``max ts − delay``, as Spark's ``withWatermark``); integer timestamps
        stay integers (nanoseconds since 1970 are above 2^53: a float would round them)."""
        if max_ts is None:
            return previous
        return max(previous, max_ts - self.delay)

    def frontier(self, watermark: float) -> float:
        """Matches whose first event has ``ts`` below this are final: the smaller of
        ``W − A·τ`` and the exact ``reach_before(W, τ, A)`` (a first event below it
        reaches no event at or after ``W`` in ``A`` window steps: ``fits`` decides)."""
        if not math.isfinite(watermark):
            return watermark
        return min(watermark - self.reach[1] * self.tau,
                   reach_before(watermark, self.tau, self.reach[1]))

    def keep_from(self, frontier: float) -> float:
        """Events with ``ts`` from here on can still be read by a match not yet final
        (the smaller of ``frontier − L·τ`` and ``reach_before(frontier, τ, L)``)."""
        if not math.isfinite(frontier):
            return frontier
        return min(frontier - self.reach[0] * self.tau,
                   reach_before(frontier, self.tau, self.reach[0]))

    def explain(self, unit: str | None = None) -> list[str]:
        """What a continuous run does, one line each: the plan's notes that hold for it
        (the Thm 1 filter, applied in the micro-batch's Spark job), when a match is
        final and what the state keeps. The batch plan's partitions and time slices
        are not among them: a micro-batch's settled events are matched in one group
        on the driver (:mod:`.step`); the reach decides finality instead."""
        def span(x: int | float) -> str:
            return f"{x:g}{f' {unit}' if unit else ''}"

        back, ahead = self.reach
        return [*(n for n in self.plan.notes if n.startswith("filter")),
                f"final: a match once the watermark (largest ts − {span(self.delay)}) passes "
                f"its first event's ts + {ahead}τ (τ = {span(self.tau)})",
                f"state: the events with ts ≥ the watermark, and those the filter keeps "
                f"with ts ≥ the watermark − {back + ahead}τ"]


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_duration(text: str | int | float, time_unit: str | None) -> int | float:
    """``'500 ms'``, ``'2s'`` or a bare number (timestamp units) in timestamp units."""
    if isinstance(text, (int, float)):
        return text
    m = _DURATION.match(text)
    if m is None:
        raise StreamSetupError(f"cannot read the watermark {text!r}; write a number of "
                               "timestamp units or one with a unit, such as '500 ms'")
    value = float(m.group(1)) if "." in m.group(1) else int(m.group(1))
    try:
        return Duration(value, m.group(2) or None).in_units_of(time_unit)
    except PatternError as err:
        raise StreamSetupError(f"watermark {text!r}: {err}") from None


def window_of(query: Query) -> int | float | None:
    """τ in timestamp units from the language's ``window`` (``None``: none, or the
    language reports none, as SREMO, whose window the pruning answer carries)."""
    window = query.lang.window(query.pattern)
    if window is None:
        return None
    if not hasattr(window, "in_units_of"):
        raise StreamSetupError(f"the pattern's window {window} is not a time window; a "
                               "continuous run needs one in time (or timestamp) units")
    return window.in_units_of(query.time_unit)   # a unit without --time-unit: one PatternError


def finality(engine: Engine, query: Query, *,
             watermark: str | int | float | None) -> Finality:
    """The emission rule, or one line saying why the matches of ``query`` cannot be
    decided before the stream ends, or why the watermark is too short (a watermark
    shorter than the window is refused: issue 14, "Bad input"; it defaults to the
    window)."""
    lang, policy, time_unit = query.lang, query.policy, query.time_unit
    plan = plan_for(engine, query, tau=window_of(query))
    if plan.by_position:
        raise StreamSetupError(f"the pattern's window [1..{plan.tau}] counts positions; a "
                               "continuous run needs one in time (or timestamp) units, "
                               "which the watermark can bound")
    tau = plan.tau      # the language's window, or the one its pruning answer counts in
    if tau is None or plan.reach is None:
        slices = "; ".join(n for n in plan.notes if "slices" in n)
        if plan.whole and plan.notes and "does not claim" in plan.notes[0]:
            why = f"engine {engine.name!r} does not claim it"
        elif tau is None:
            why = (f"the {lang.name} pattern has no time window bounding what a match reads"
                   f"{f' ({slices})' if slices else ''}, so an event arbitrarily later can "
                   "still complete, extend or veto a match")
        else:
            why = (f"no bound is worked out (reference/pruning.py) on how far after its "
                   f"first event a later event can change a {lang.name} match under it")
        raise Unsupported(f"policy {policy!r} cannot be decided before the stream ends: "
                          f"{why}")
    delay = tau if watermark is None else parse_duration(watermark, time_unit)
    if delay < tau:
        raise StreamSetupError(f"the watermark ({watermark}) is shorter than the pattern's "
                               f"window ({tau} in timestamp units): events out of order by "
                               "less than one match's span would be dropped as late; give "
                               f"--watermark {tau} or more")
    return Finality(plan, plan.reach, tau, delay)


__all__ = ["Finality", "StreamSetupError", "finality", "parse_duration", "window_of"]
