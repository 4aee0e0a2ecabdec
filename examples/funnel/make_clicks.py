"""Generate ``clicks.csv``: a deterministic click log for the funnel example.

10,000 rows ``ts,user,action,page`` with ISO timestamps, one every few
seconds from 2024-03-01 09:00 UTC; 60 users browse (``view``), a few put
something in the cart (``cart``) and fewer buy (``purchase``). Run
``python examples/funnel/make_clicks.py`` to write it again (same bytes).
"""

from __future__ import annotations

import csv
import datetime as dt
import random
import sys
from pathlib import Path

ROWS = 10_000
USERS = 60
PAGES = ("home", "search", "product", "deals", "help")


def rows(n: int = ROWS, seed: int = 11) -> list[dict[str, str]]:
    """The click rows, sorted by time."""
    rng = random.Random(seed)
    moment = dt.datetime(2024, 3, 1, 9, 0, tzinfo=dt.UTC)
    out = []
    for _ in range(n):
        moment += dt.timedelta(seconds=rng.randint(1, 6))
        roll = rng.random()
        action = "purchase" if roll < 0.004 else "cart" if roll < 0.03 else "view"
        out.append({"ts": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "user": f"u{rng.randrange(USERS):03d}", "action": action,
                    "page": rng.choice(PAGES)})
    return out


def main(path: str = str(Path(__file__).with_name("clicks.csv"))) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["ts", "user", "action", "page"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows())


if __name__ == "__main__":
    main(*sys.argv[1:])
