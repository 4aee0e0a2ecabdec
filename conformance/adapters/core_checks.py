"""The CEQL queries ``make peers`` runs through CORE and Kleene, and their section of
docs/peers.md (:func:`section`).

The queries are written here (CORE's own query files are GPL and stay out of the
repository): each construct of the fragment (``LIKE`` too) on a small stream of stock
ticks whose complex events can be listed by hand (tests/test_ceql.py,
tests/test_ceql_selection.py and tests/test_like.py list them), every selection
strategy Kleene reads (CORE is said to evaluate each as ``ALL``), the consumption
policies and ``LIMIT``, and CORE-like queries on the first 3,000 ticks of the bundled
stock stream.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

from kleene.conformance.adapters.core import CLASSES, PYTHON, Verdict, compare
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.reference.events import Stream

#: The heading of the section.
HEADING = "## CORE (CEQL queries)"

#: SELL INTC, BUY RIMM, BUY QQQ at ts 0, 1, 2; BUY RIMM, BUY QQQ at ts 5, 6.
TICKS = Stream.from_rows([
    {"ts": ts, "type": kind, "name": name, "price": price}
    for kind, ts, name, price in (("SELL", 0, "INTC", 27.5), ("BUY", 1, "RIMM", 117.0),
                                  ("BUY", 2, "QQQ", 36.0), ("BUY", 5, "RIMM", 118.5),
                                  ("BUY", 6, "QQQ", 36.5))])

_ABC = ("SELECT {} * FROM S WHERE (SELL as a; BUY as b; BUY as c) FILTER a[name = 'INTC'] "
        "AND b[name = 'RIMM'] AND c[name = 'QQQ'] WITHIN {}")

#: Queries over :data:`TICKS`.
SMALL = [_ABC.format("", w) for w in ("6 [ts]", "7 [ts]", "2 [ts]", "3 [ts]", "4 EVENTS",
                                       "2 EVENTS")] + [
    "SELECT * FROM S WHERE SELL : BUY : BUY",
    "SELECT * FROM S WHERE BUY : BUY",
    "SELECT * FROM S WHERE SELL ; BUY+ WITHIN 10 [ts]",
    "SELECT * FROM S WHERE SELL ; BUY:+ WITHIN 10 [ts]",
    "SELECT * FROM S WHERE (SELL ; BUY) OR BUY FILTER BUY[price > 100]",
    "SELECT * FROM S WHERE BUY as x ; BUY as y FILTER x[name IN {'RIMM'}] OR "
    "y[price IN RANGE(36, 36.5)]",
    "SELECT * FROM S WHERE BUY ; BUY PARTITION BY [name]",
    # LIKE: RE2's partial match (docs/ceql.md, "LIKE"); % is a plain character
    "SELECT * FROM S WHERE BUY as b FILTER b[name LIKE 'IM']",
    "SELECT * FROM S WHERE BUY as b FILTER b[name LIKE '^Q.Q$']",
    "SELECT * FROM S WHERE BUY as b FILTER b[name LIKE 'R%']",
    "SELECT * FROM S WHERE BUY as b FILTER b[NOT name LIKE 'M{2}$']",
    "SELECT * FROM S WHERE (SELL as a; BUY as b) FILTER a[name LIKE 'N.C'] AND "
    "b[name LIKE 'Q|RI(M+)'] WITHIN 5 [ts]",
] + [_ABC.format(s, "100 [ts]") for s in ("ALL", "LAST", "MAX", "NEXT", "STRICT")] + [
    _ABC.format("", "100 [ts] CONSUME BY ANY"),
    _ABC.format("", "100 [ts] LIMIT 1"),
]

#: BUY X, BUY Y, BUY X, BUY Y, BUY Y at ts 0..4 (tests/test_ceql_selection.py lists the
#: complex events of each query by hand).
NAMES = Stream.from_rows([{"ts": ts, "type": "BUY", "name": n} for ts, n in enumerate("XYXYY")])

#: Consumption, limits and strategies with a choice, over :data:`NAMES`.
CONSUMING = [
    "SELECT * FROM S WHERE BUY ; BUY CONSUME BY ANY",
    "SELECT * FROM S WHERE BUY ; BUY CONSUME BY PARTITION",
    "SELECT * FROM S WHERE BUY ; BUY PARTITION BY [name] CONSUME BY ANY",
    "SELECT * FROM S WHERE BUY ; BUY PARTITION BY [name] CONSUME BY PARTITION",
    "SELECT * FROM S WHERE BUY ; BUY+ CONSUME BY ANY LIMIT 1",
    "SELECT * FROM S WHERE BUY ; BUY LIMIT 2",
    "SELECT LAST * FROM S WHERE BUY ; BUY+",
    "SELECT NEXT * FROM S WHERE BUY ; BUY+",
    "SELECT MAX * FROM S WHERE BUY ; BUY+",
]

#: CORE-like queries over the stock prefix.
STOCK = [
    "SELECT * FROM S WHERE (SELL as a; BUY as b; BUY as c) FILTER a[name = 'INTC'] AND "
    "b[name = 'RIMM'] AND c[name = 'QQQ'] WITHIN 10000 [ts]",
    "SELECT * FROM S WHERE (SELL as m; (BUY OR SELL) as o; BUY as c) FILTER m[name = 'MSFT'] "
    "AND o[name = 'ORCL'] AND c[name = 'CSCO'] WITHIN 5000 [ts]",
    "SELECT * FROM S WHERE (BUY as a; BUY as b) FILTER a[name = 'INTC'] AND b[name = 'DELL'] "
    "PARTITION BY [volume] WITHIN 30000 [ts]",
    "SELECT NEXT * FROM S WHERE (SELL as a; BUY as b; BUY as c) FILTER a[name = 'INTC'] AND "
    "b[name = 'RIMM'] AND c[name = 'QQQ'] WITHIN 10000 [ts]",
    "SELECT * FROM S WHERE (SELL as a; BUY as b; BUY as c) FILTER a[name = 'INTC'] AND "
    "b[name = 'RIMM'] AND c[name = 'QQQ'] WITHIN 10000 [ts] CONSUME BY ANY",
    "SELECT * FROM S WHERE (SELL as m; (BUY OR SELL) as o; BUY as c) FILTER m[name = 'MSFT'] "
    "AND o[name = 'ORCL'] AND c[name = 'CSCO'] PARTITION BY [volume] WITHIN 10000 [ts] "
    "CONSUME BY PARTITION",
    "SELECT * FROM S WHERE (SELL as a; BUY as b; BUY as c) FILTER a[name = 'INTC'] AND "
    "b[name = 'RIMM'] AND c[name = 'QQQ'] WITHIN 10000 [ts] LIMIT 3",
    "SELECT * FROM S WHERE (SELL as a; BUY as b) FILTER a[name LIKE '^MS'] AND "
    "b[name LIKE 'SC|^OR'] WITHIN 3000 [ts]",
    "SELECT * FROM S WHERE (BUY as a; BUY as b) FILTER a[name LIKE 'T.$'] AND "
    "b[NOT name LIKE '[A-M]'] PARTITION BY [volume] WITHIN 30000 [ts]",
]


#: Triage of the differences no class explains: (text of the query) → what was found,
#: from runs of pycer 0.1.6 (docs/ceql.md, "CORE as a peer").
FINDINGS = {
    "SELL ; BUY:+": "CORE outputs every choice of BUYs, as for `BUY+`: after `;` its `:+` "
                    "skips events (Kleene: CEL's `φ ∪ φ : φ:+`, contiguous runs only)",
    "x[name IN {'RIMM'}]": "CORE's `IN` over strings holds on no event (its `=` does): "
                           "an engine bug",
}


def stock_prefix(n: int = 3000) -> Stream:
    """The first ``n`` ticks of the bundled stock stream (ts = stock_time, ms)."""
    return load_events(bundled("stocks.stream.gz"), limit=n)


def _cell(ms: frozenset[tuple[int, ...]]) -> str:
    shown = ", ".join("{" + ",".join(map(str, m)) + "}" for m in sorted(ms)[:4])
    return f"{len(ms)}: {shown}" + (", …" if len(ms) > 4 else "")


def section(run: Callable[[str, Stream], Verdict] = compare) -> list[str]:
    """The section of docs/peers.md: each query, CORE's and Kleene's complex events (on
    the stock prefix, their number), the class of a difference and the tally."""
    out = [HEADING, ""]
    if not PYTHON.exists():
        return out + [f"Not run: `{PYTHON}` is missing (pycer needs CPython 3.13; "
                      "`make peers` says why it did not install it).", ""]
    start = time.time()
    verdicts: list[tuple[str, Verdict]] = []
    for name, stream, queries in (("ticks", TICKS, SMALL), ("names", NAMES, CONSUMING),
                                  ("stocks", stock_prefix(), STOCK)):
        verdicts += [(name, run(q, stream)) for q in queries]
    tally = Counter(v.klass for _, v in verdicts)
    out += [f"{len(verdicts)} CEQL queries through pycer's offline server and Kleene's "
            f"reading (docs/ceql.md), {time.time() - start:.0f} s: "
            + ", ".join(f"{n} × {k}" for k, n in tally.most_common()) + ".", ""]
    out += [f"- **{k}**: {why}" for k, why in CLASSES.items() if k in tally] + [""]
    out += ["| stream | query | CORE | Kleene | class |", "| --- | --- | --- | --- | --- |"]
    for name, v in verdicts:
        query = v.query.replace("|", "\\|")
        note = next((f": {why}" for text, why in FINDINGS.items()
                     if v.klass == "differ" and text in v.query), "")
        out.append(f"| {name} | `{query}` | {_cell(v.core)} | {_cell(v.kleene)} | "
                   f"{v.klass}{note} |")
    return out + [""]
