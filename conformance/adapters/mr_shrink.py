"""Shrinking a peer's disagreement with the reference (``make peers --parts mr``): the rows of
a failing recognition dropped while it still fails (a wrong answer stays wrong, an error
stays the same error), the rows left the reproduction the page shows.

The rows go by delta debugging (Zeller and Hildebrandt, *Simplifying and Isolating
Failure-Inducing Input*, IEEE TSE 28(2), 2002, ``ddmin`` on complements): the table is cut
into ``k`` parts (two at first) and each part dropped in turn; the first smaller table that
still fails is kept and ``k`` lowered by one (at least two), else ``k`` doubled, until the
parts are single rows and none can be dropped: a table no one row of which can go, as
dropping one row a round gave, in about ``log n`` rounds of ``k`` candidates where that took
``n`` rounds of ``n`` (a record of DuckDB's files has hundreds of rows, and every candidate
is one reference run and one request to the peer). Each round's candidates of every
failure are judged at once (:func:`~.mr_generated.run`: Flink runs them ten to a job).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyarrow as pa

from kleene.conformance.adapters.mr_generated import Drawn, Judged, expected_of, run
from kleene.conformance.generated_tables import NO_COLUMN
from kleene.data.sql import ArrowRecognizer

#: Rounds a shrink may take (each one batch of requests to the peer): enough for twelve
#: rows to reach one, and for a few hundred to reach a handful.
ROUNDS = 16


def without_rows(one: Drawn, start: int, stop: int) -> Drawn | None:
    """``one`` over its table without the rows ``start`` to ``stop - 1``, with the
    reference's answer there (``None``: over the reference's budget)."""
    keep = [i for i in range(one.table.num_rows) if not start <= i < stop]
    table = one.table.take(pa.array(keep, type=pa.int64()))
    expected = expected_of(one.clause, table)
    return None if expected is None else Drawn(one.clause, table, expected, one.features,
                                               one.flink)


def parts(rows: int, k: int) -> list[tuple[int, int]]:
    """``range(rows)`` cut into ``k`` runs of consecutive rows as equal as can be
    (``(start, stop)`` each, none empty)."""
    bounds = [rows * j // k for j in range(k + 1)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if a < b]


def shrink(recognizer: ArrowRecognizer, failed: Sequence[Judged], rounds: int = ROUNDS,
           say: Callable[[str], None] = lambda s: None) -> list[Judged]:
    """Each of ``failed`` with rows dropped while it still fails the same way (the module
    docstring), up to ``rounds`` rounds; each round's candidates of every failure are sent
    at once."""
    current = list(failed)
    k = {i: min(2, j.drawn.table.num_rows) for i, j in enumerate(current)}
    active = [i for i, j in enumerate(current) if j.drawn.table.num_rows > 0]
    for r in range(rounds):
        if not active:
            break
        candidates: dict[int, list[Drawn]] = {}
        for i in active:
            one = current[i].drawn
            candidates[i] = [c for a, b in parts(one.table.num_rows, k[i])
                             if (c := without_rows(one, a, b)) is not None]
        judged = run(recognizer, [c for cs in candidates.values() for c in cs])
        at, still, shrank = 0, [], 0
        for i in active:
            mine = judged[at:at + len(candidates[i])]
            at += len(candidates[i])
            kind = _kind(current[i].reason)
            rows = current[i].drawn.table.num_rows
            smaller = next((j for j in mine if j.status == "failed" and _kind(j.reason) == kind),
                           None)
            if smaller is not None:
                shrank += 1
                current[i] = smaller
                rows = smaller.drawn.table.num_rows
                k[i] = min(max(k[i] - 1, 2), rows)
            elif k[i] < rows:
                k[i] = min(2 * k[i], rows)
            else:
                continue   # no single row can go: done
            if rows > 0:
                still.append(i)
        say(f"peers: shrink round {r + 1}: {len(active)} tried, {shrank} shrank")
        active = still
    return current


def wrong_answer(reason: str) -> bool:
    """Whether a failure's ``reason`` is a wrong answer (a table other than the
    reference's), not an error or no answer."""
    return _kind(reason) == "wrong" and NO_COLUMN not in reason


def _kind(reason: str) -> str:
    """What a failure is, for shrinking: an error's first words, else a wrong answer."""
    if reason.startswith(("the backend reported error", "no answer in time")):
        return reason.split(":", 1)[0]
    return "wrong"
