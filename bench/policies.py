"""Every (language, policy) pair on the stock stream, so that a cliff shows (issue 33 item 4).

One workload, the issue's seq3 (an INTC sell, then a RIMM buy, then a QQQ buy dearer than
the sell, within 500 ms), written in each language that can say it: SES
(:func:`bench.peers.pattern_text`), operators (:data:`bench.seed003_stock.WORKLOADS`) and
SREMO (seed 004 Def. 44: ``mark`` atoms joined by gaps, the price compared through a
register); CEQL's filters are unary, so its row drops the price comparison and is said so.
For each pair the engine ``kleene match`` picks (:func:`~kleene.engines.registry.
fastest_engine`) runs over the loaded stream (its columns, as ``kleene match`` reads it);
throughput is events per CPU second of the run (loading and compiling excluded), beside the
same language's ``any`` (or ``stream``) row of the same run. A pair first runs on the first
:data:`PROBE` events; the whole stream only when that rate says it ends within
:data:`MOST_SECONDS`, else the row keeps the probe's figure and says so. A pair no engine
claims says so (the reference semantics are not a backend here).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.measure import measure
from bench.peers import pattern_text
from bench.report import Table, emit, ratio
from bench.seed003_stock import WORKLOADS
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.registry import fastest_engine
from kleene.reference.ceql.parser import parse_ceql
from kleene.reference.events import Stream
from kleene.reference.operators.policies import POLICIES as OPERATOR_POLICIES
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query
from kleene.reference.ses.policies import POLICIES as SES_POLICIES
from kleene.reference.ses.text import parse_ses
from kleene.reference.sremo.streaming import POLICIES as SREMO_POLICIES
from kleene.reference.sremo.text import parse_sremo

#: Events of the first run of each pair, and the longest a whole-stream run may be
#: expected to take (CPU s) for it to be made.
PROBE = 20_000
MOST_SECONDS = 60.0
#: Below this many events per CPU second a row is marked a cliff (the SES policies' aim).
CLIFF = 100_000

SREMO_SEQ3 = ("(mark {~.type = 'SELL' AND ~.name = 'INTC'} -> x ; {TRUE}* ; "
              "mark {~.type = 'BUY' AND ~.name = 'RIMM'} ; {TRUE}* ; "
              "mark {~.type = 'BUY' AND ~.name = 'QQQ' AND ~.price > x.price})[WITHIN 500 ms]")
CEQL_SEQ3 = ("SELECT * FROM S WHERE (SELL as x; BUY as y; BUY as z) FILTER x[name = 'INTC'] "
             "AND y[name = 'RIMM'] AND z[name = 'QQQ'] WITHIN 500 [ts]")

#: language → (its parser, the workload, its policies, the policy the others are read
#: against).
LANGUAGES: dict[str, tuple[Callable[[str], Any], str, tuple[str, ...], str]] = {
    "ses": (parse_ses, pattern_text("seq3", 500), tuple(SES_POLICIES), "any"),
    "operator": (parse_operator, WORKLOADS["seq3"], tuple(OPERATOR_POLICIES), "any"),
    "sremo": (parse_sremo, SREMO_SEQ3, tuple(SREMO_POLICIES), "stream"),
    "ceql": (parse_ceql, CEQL_SEQ3, ("stream",), "stream"),
}


def _row(table: Table, language: str, policy: str, pattern: Any, s: Stream, first: Stream,
         base: float | None) -> float | None:
    """Measure one pair and add its row; its events/s (``None``: not run)."""
    choice = fastest_engine(Query.of(pattern, policy=policy, time_unit=s.time_unit))
    if choice is None:
        table.add(language, policy, "(none claims it)", "–", "–", "–", "–", "not run")
        return None
    probe = measure(choice.name, pattern, first, policy=policy, keep_matches=False)
    if probe.error is not None:
        table.add(language, policy, choice.name, "–", "–", "–", "–", probe.error[:80])
        return None
    rate = probe.events / max(probe.seconds, 1e-9)
    whole = len(s) / rate if rate else float("inf")
    run, note = probe, f"first {PROBE:,} events"
    if len(s) > len(first) and whole <= MOST_SECONDS:
        run, note = measure(choice.name, pattern, s, policy=policy, keep_matches=False), ""
        rate = run.events / max(run.seconds, 1e-9)
    elif len(s) > len(first):
        note = f"first {PROBE:,} events; the whole stream would take ~{whole:,.0f} CPU s"
    table.add(language, policy, choice.name, f"{run.events:,}", f"{rate:,.0f}",
              f"{ratio(rate, base):.2f}" if base else "–", run.found,
              ("CLIFF " if rate < CLIFF else "") + note)
    return rate


def run(quick: bool = False) -> Table:
    """Print and return the table (``quick``: the first :data:`PROBE` events only)."""
    s = load_events(str(bundled("stocks.stream.gz")), limit=PROBE if quick else None)
    first = load_events(str(bundled("stocks.stream.gz")), limit=PROBE)
    table = Table("every (language, policy) pair on the stock stream: the issue's seq3",
                  ["language", "policy", "engine", "events", "events/s", "× base",
                   "matches", "notes"])
    table.header.append(f"{len(s):,} events; events per CPU second after load; × base: "
                        "over the same language's any (SREMO: stream) row of this run; "
                        f"CLIFF: under {CLIFF:,} events/s")
    for language, (parse, text, policies, base_policy) in LANGUAGES.items():
        pattern = parse(text)
        base = _row(table, language, base_policy, pattern, s, first, None)
        for policy in policies:
            if policy != base_policy:
                _row(table, language, policy, pattern, s, first, base)
    table.notes.append("ceql: its filters are unary, so its seq3 has no price "
                       "comparison; its complex events are SREMO's streaming matches "
                       "(docs/ceql.md)")
    emit(table, "policies")
    return table
