"""Every SES policy on the stock stream: the engine ``kleene match`` picks for it, its
throughput and its ratio to the engine of ``any`` in the same run (issue 32 item 3,
target ≥ 100,000 events/s per policy).

For each pattern and policy the fastest engine that claims the query
(:func:`~kleene.engines.registry.fastest_engine`) runs over the loaded stream (its
columns, as ``kleene match`` reads it); throughput is events per CPU second of the run
(loading and compiling excluded); ``next-literal`` (``ses-next-literal``) finds each
variable's usable events in the same reading, which is counted. The patterns: a sequence of
three tickers (``SEQ3``), a 4-variable set pattern (``P4``), and a rising run of one
ticker partitioned by name (``RUN``: Def. 6 finds ``name``; its ``b`` and ``c`` have no
property, so no event is filtered). Not seed 001's ``<{a, b+, c}>`` over three tickers:
under ``any`` its group variable makes a match per subset of a window's MSFT events,
and the earliest-maximal search enumerates those that start at the earliest one.
"""

from __future__ import annotations

from bench.measure import measure
from bench.report import Table, emit, ratio
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.registry import fastest_engine
from kleene.reference.query import Query
from kleene.reference.ses.policies import POLICIES
from kleene.reference.ses.text import parse_ses

PATTERNS = {
    "SEQ3": ("PATTERN <{a}, {b}, {c}> WHERE a.name = 'INTC' AND b.name = 'MSFT' "
             "AND c.name = 'CSCO' WITHIN 500 ms"),
    "P4": ("PATTERN <{a, b, c, d}> WHERE a.name = 'INTC' AND b.name = 'MSFT' "
           "AND c.name = 'CSCO' AND d.name = 'ORCL' WITHIN 500 ms"),
    "RUN": ("PATTERN <{a}, {b+}, {c}> WHERE a.name = 'INTC' AND a.name = b.name "
            "AND b.name = c.name AND a.price < b.price AND prev(b.price) < b.price "
            "AND c.price < b.price WITHIN 500 ms"),
}

#: The policies measured: every SES policy (each has an engine).
MEASURED = POLICIES
TARGET_EVENTS_PER_S = 100_000


def run(quick: bool) -> Table:
    limit = 20_000 if quick else None
    s = load_events(str(bundled("stocks.stream.gz")), limit=limit)
    table = Table("Every SES policy on the stock stream", [
        "pattern", "policy", "engine", "events/s", "× any", "matches", "≥ target"])
    table.header.append(f"{len(s):,} events; throughput per CPU second; × any: over the "
                        f"engine of policy any on the same pattern in this run")
    for key, text in PATTERNS.items():
        pattern = parse_ses(text)
        base = float("nan")
        for policy in MEASURED:
            choice = fastest_engine(Query.of(pattern, policy=policy, time_unit=s.time_unit))
            if choice is None:
                table.add(key, policy, "(reference)", "n/a", "n/a", "n/a", "no")
                continue
            m = measure(choice.name, pattern, s, policy=policy, keep_matches=False)
            if policy == "any":
                base = m.throughput
            table.add(key, policy, choice.name, f"{m.throughput:,.0f}",
                      f"{ratio(m.throughput, base):.2f}", m.found,
                      "yes" if m.throughput >= TARGET_EVENTS_PER_S else "NO")
    emit(table, "ses_policies")
    return table
