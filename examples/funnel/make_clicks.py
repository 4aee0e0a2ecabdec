"""Generate a deterministic click log for the funnel example (``clicks.csv``).

Rows ``ts,user,action,page`` with ISO timestamps from 2024-03-01 09:00 UTC;
users browse (``view``), a few put something in the cart (``cart``) and fewer
buy (``purchase``). Each user clicks at the same rate whatever ``--users``:
with the default 60 users a row comes every 1–6 seconds (whole seconds), with
U users every 1–6 × 60/U seconds (timestamps in milliseconds unless U divides
60), so a 30-minute funnel finds as many candidates per user in any log
(ties included: rows may share a millisecond). ``--rows N`` writes the first
N rows of any longer log of the same users and seed. With no option it writes
the committed ``clicks.csv`` again, byte for byte (10,000 rows, 60 users)::

    python examples/funnel/make_clicks.py

Larger logs for benchmarks (issue 29's 1 M-row, 50,000-user log is 52 MB:
never commit it)::

    python examples/funnel/make_clicks.py --rows 1000000 --users 50000 --output /tmp/clicks-1m.csv
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
from collections.abc import Iterator
from pathlib import Path

ROWS = 10_000
USERS = 60
SEED = 11
PAGES = ("home", "search", "product", "deals", "help")
DEFAULT_OUTPUT = Path(__file__).with_name("clicks.csv")
HEADER = "ts,user,action,page\n"


def lines(n: int = ROWS, users: int = USERS, seed: int = SEED) -> Iterator[str]:
    """The click rows as CSV lines (no header), sorted by time. A user is ``u`` and a
    number of at least three digits, as wide as the largest one."""
    rng = random.Random(seed)
    start = dt.datetime(2024, 3, 1, 9, 0, tzinfo=dt.UTC)
    width = max(3, len(str(users - 1)))
    whole = USERS % users == 0   # a step of 1-6 x 60/U seconds is whole seconds
    steps = 0
    for _ in range(n):
        steps += rng.randint(1, 6)
        roll = rng.random()
        action = "purchase" if roll < 0.004 else "cart" if roll < 0.03 else "view"
        user = rng.randrange(users)
        page = rng.choice(PAGES)
        moment = start + dt.timedelta(milliseconds=round(steps * USERS * 1000 / users))
        ts = (f"{moment:%Y-%m-%dT%H:%M:%S}Z" if whole else
              f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z")
        yield f"{ts},u{user:0{width}d},{action},{page}\n"


def write(path: str | Path = DEFAULT_OUTPUT, n: int = ROWS, users: int = USERS,
          seed: int = SEED) -> None:
    """Write the header and :func:`lines` to ``path``."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        f.write(HEADER)
        f.writelines(lines(n, users, seed))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=ROWS, help=f"rows (default {ROWS:,})")
    parser.add_argument("--users", type=int, default=USERS, help=f"users (default {USERS})")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT),
                        help="the CSV file to write (default: the committed clicks.csv)")
    args = parser.parse_args(argv)
    if args.rows < 0 or args.users < 1:
        parser.error("--rows must be >= 0 and --users >= 1")
    write(args.output, args.rows, args.users, args.seed)


if __name__ == "__main__":
    main()
