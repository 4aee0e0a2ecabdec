"""A generator of chemotherapy-like event streams for the experiments of seed 000 Sec. 5.

The paper's event relation (Sec. 5.1: chemotherapy events of the Department of
Haematology, Hospital Meran-Merano, W = 1322 events per τ = 264 h) is private,
so the benchmark draws a stream with the same shape from a seeded RNG:

- ``patients`` patients start their first cycle at a uniformly drawn hour of
  the first ``start_spread_days`` days;
- each patient follows a *protocol*: ``cycles`` cycles, one every
  ``cycle_days`` days, each cycle starting up to ``delay_days`` days late (the
  blood counts have not recovered yet);
- a protocol administers between ``drugs_per_cycle[0]`` and
  ``drugs_per_cycle[1]`` distinct cytostatic drugs per cycle, drawn once per
  patient from ``drugs`` (default C, D, P, V, R, L: the paper's variables
  c, d, p, v, r, l);
  P (a corticosteroid) is given once a day on days 1..``p_days`` of a cycle
  (several P per cycle: what the group variable ``p+`` binds), each other drug
  once, on one of the first ``admin_days`` days;
- supportive medications (A antiemetic, H hydration, G growth factor,
  ``support_per_cycle`` per cycle, kind ``support``) and blood counts (B, kind
  ``lab``: one on day 0 before the drugs, then every ``blood_every_days`` days
  until the next cycle) fill the stream;
- administrations happen between 08:00 and 18:00, shifted by up to
  ± ``jitter_hours`` hours; timestamps are whole hours since the stream's
  start (``time_unit = 'h'``), so ties happen, as in the hospital's hourly data.

Each event has the attributes ``L`` (label), ``K`` (kind: ``chemo``,
``support`` or ``lab``) and ``ID`` (patient). Events are sorted by time,
then patient, then label, so a seed always gives the same stream.
:func:`repeat` builds the paper's data sets D_1..D_5 (each event repeated
1..5 times) and :func:`window_size` computes W of Def. 5.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator
from dataclasses import asdict, dataclass

from kleene.reference.events import Event, Stream

#: The cytostatic drugs, in the order of the paper's variables c, d, p, v, r, l.
DRUGS = ("C", "D", "P", "V", "R", "L")
#: Supportive medications (not cytostatic: kind ``support``).
SUPPORT = ("A", "H", "G")
BLOOD = "B"
_DAY_HOURS = (8, 18)


@dataclass(frozen=True)
class ChemoConfig:
    """The generator's parameters (all stated in the bench header)."""

    seed: int = 2011
    patients: int = 30
    start_spread_days: int = 42
    cycles: int = 3
    cycle_days: int = 21
    drugs: tuple[str, ...] = DRUGS
    drugs_per_cycle: tuple[int, int] = (4, 6)
    p_days: int = 5
    admin_days: int = 2
    support_per_cycle: int = 6
    blood_every_days: int = 3
    jitter_hours: int = 2
    delay_days: int = 3

    def describe(self) -> str:
        """One line listing every parameter (for the bench header)."""
        def text(v: object) -> str:
            return "/".join(map(str, v)) if isinstance(v, tuple) else str(v)
        return ", ".join(f"{k}={text(v)}" for k, v in asdict(self).items())


def _hour(rng: random.Random, day_start: int, jitter: int) -> int:
    """An hour within the working day that starts at ``day_start``, jittered."""
    hour = rng.randint(*_DAY_HOURS) + rng.randint(-jitter, jitter)
    return day_start + max(0, min(23, hour))


def _protocol(rng: random.Random, config: ChemoConfig) -> tuple[str, ...]:
    """The drugs one patient receives in every cycle (always in the order of DRUGS)."""
    lo, hi = config.drugs_per_cycle
    chosen = set(rng.sample(config.drugs, rng.randint(lo, hi)))
    return tuple(d for d in config.drugs if d in chosen)


def _cycle(rng: random.Random, config: ChemoConfig, start: int,
           drugs: tuple[str, ...]) -> Iterator[tuple[int, str, str]]:
    """The ``(ts, label, kind)`` of one cycle starting at hour ``start`` (day 0)."""
    j = config.jitter_hours
    for day in range(0, config.cycle_days, config.blood_every_days):
        yield _hour(rng, start + 24 * day, j), BLOOD, "lab"
    for drug in drugs:
        if drug == "P":
            days: tuple[int, ...] = tuple(range(1, config.p_days + 1))
        else:
            days = (1 + rng.randrange(config.admin_days),)
        for day in days:
            yield _hour(rng, start + 24 * day, j), drug, "chemo"
    for _ in range(config.support_per_cycle):
        day = 1 + rng.randrange(config.cycle_days - 1)
        yield _hour(rng, start + 24 * day, j), rng.choice(SUPPORT), "support"


def chemo_stream(config: ChemoConfig = ChemoConfig()) -> Stream:
    """A chemotherapy-like stream drawn from ``config`` (same config, same stream)."""
    rng = random.Random(config.seed)
    rows: list[tuple[int, int, str, str]] = []
    for patient in range(1, config.patients + 1):
        drugs = _protocol(rng, config)
        start = 24 * rng.randrange(config.start_spread_days)
        for _ in range(config.cycles):
            start += 24 * rng.randint(0, config.delay_days)
            rows.extend((ts, patient, label, kind)
                        for ts, label, kind in _cycle(rng, config, start, drugs))
            start += 24 * config.cycle_days
    rows.sort()
    events = tuple(Event(i, ts, None, {"L": label, "K": kind, "ID": patient})
                   for i, (ts, patient, label, kind) in enumerate(rows))
    return Stream(events, "h")


def repeat(s: Stream, times: int) -> Stream:
    """D_times of seed 000 Sec. 5.1: every event of ``s`` repeated ``times`` times in a row."""
    events = tuple(Event(i, e.ts, e.type, e.attrs)
                   for i, e in enumerate(e for e in s for _ in range(times)))
    return Stream(events, s.time_unit)


def window_size(s: Stream, tau: int | float) -> int:
    """W of seed 000 Def. 5: the most events in a window of τ sliding event by event.

    The window is inclusive (``ts - first.ts <= τ``), as the SES automaton's expiry.
    """
    ts = [e.ts for e in s]
    return max((bisect.bisect_right(ts, t + tau) - i for i, t in enumerate(ts)), default=0)
