"""The reference's finality over a stream's buffered rows, by the engine's run.

:func:`kleene.reference.match_recognize.finality.settle` defines which output rows of a
partition's prefix ``P`` (its ``n`` rows so far) no later row can change: it runs the
searches from a cursor and stops at the first that *reads past* ``P`` (a row at or past
``n`` asked for; a ``DEFINE`` ``NEXT`` at a row within its offset of ``n``; ``$`` at the
end of a match ending at ``n``; a ``MEASURES`` ``NEXT`` past the match's last row), a
row at a time, in Python. :meth:`Settler.settle` answers the same (the same rows, the same
cursor after them) in two parts:

1. the engine (:meth:`.recognition.CompiledRecognition.run_from`, the compiled loop or the
   VM) runs the searches from the cursor with a **horizon** ``h = n − ahead`` (``ahead``
   the largest ``NEXT`` offset of the ``DEFINE`` and ``MEASURES`` conditions, at least 1
   if the pattern holds ``$``) and stops at the first search that tests a row at or past
   ``h`` (:class:`.vm.PastHorizon`; every row from ``h − 1`` on is tried as a start row);
   the rows of the searches before it are output;
2. the reference's :func:`~kleene.reference.match_recognize.finality.settle` goes on from
   that search's cursor (the last few rows: the searches still open at ``P``'s end).

Why it is the same: a search the engine completes before the horizon is a function of
rows before ``h`` alone, and trips none of the reference's rules: asking for row ``n`` or
testing a row within a ``DEFINE`` ``NEXT`` of it tests a row at or past ``h``; a match
ending at ``n`` (``$``) or whose last row a ``MEASURES`` ``NEXT`` reads past ``n`` tested
its last row, at or past ``h``; ``$`` met before row ``n`` fails on ``P`` as on every
longer partition. The engine
searches in the reference's order of preference and leaves out only (a) a state searched
before without a matching (its memo: such a subtree failed and, the run stopping at the
first search that reaches the horizon, never reached it) and (b) a start row where no
match can begin by its first two rows (whose search reads those two rows alone, so it
reads past ``P`` only when it starts at ``h − 1`` or later, which the engine tries).
So every search the reference calls past ``P`` the engine stops at, or one before it,
which the reference then searches again itself: the answer is the reference's, and only
the searches the engine cannot call final (at most those the reference reads past ``P``
with, plus ones it stops at only because they near the horizon) run row by row.
``tests/test_mr_settling.py`` checks it on drawn clauses and tables cut at every row:
the rows and the cursor equal the reference's.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from kleene.data.sql import table_of
from kleene.engines.match_recognize.order import Sorted
from kleene.engines.match_recognize.recognition import CompiledRecognition, Run
from kleene.reference.budget import Budget
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.finality import Settled, reach, settle
from kleene.reference.match_recognize.semantics import Cursor


class Settler:
    """:func:`~kleene.reference.match_recognize.finality.settle` for ``clause`` over rows
    of the Arrow ``schema`` (module docstring), its program compiled once (``compiled``:
    the compiled loop where it applies, else the VM)."""

    def __init__(self, clause: MatchRecognize, schema: pa.Schema, *,
                 compiled: bool = True) -> None:
        self.clause, self.schema = clause, schema
        self.names = tuple(schema.names)
        self.engine = CompiledRecognition(clause, compiled=compiled)
        the = reach(clause)
        self.ahead = max(the.define, the.measures, 1 if the.end_anchor else 0)
        self.back = the.back
        self.nulls = pa.table([pa.nulls(1, f.type) for f in schema], schema=schema)

    def settle(self, rows: pa.Table, *, base: int = 0, cursor: Cursor | None = None,
               floor: object = None, ended: bool = False,
               budget: Budget | None = None) -> Settled:
        """What :func:`~kleene.reference.match_recognize.finality.settle` answers with the
        same arguments, the rows as Arrow (of this schema), computed as the module
        docstring says; the reference reads, as Python rows, the rows from the stopped
        search's less the ``PREV`` reach alone (the rows a stream's state keeps)."""
        budget = budget or Budget(what="recognizing a row pattern")
        cursor = cursor or Cursor()
        pad = 1 if base else 0          # the reference's row of NULLs: ``^`` never again
        shift = base - pad
        held = pa.concat_tables([self.nulls, rows]) if pad else rows
        at = Cursor(cursor.pos - shift, cursor.number, max(cursor.covered - shift, 0))
        run = self.run(held, at, None if ended else held.num_rows - self.ahead,
                       budget=budget)
        done = Cursor(run.cursor.pos + shift, run.cursor.number, run.cursor.covered + shift)
        if not run.stopped:
            return Settled(tuple(run.rows), done)
        keep = max(base, done.pos - self.back)
        tail = table_of(rows.slice(keep - base)).rows
        rest = settle(self.clause, self.names, tail, base=keep, cursor=done, floor=floor,
                      ended=ended, budget=budget)
        # the reference reads ``covered`` below its first row as that row less its pad's
        # (the same for every search after); a match there ends past it: keep ours else
        lowest = keep - (1 if keep else 0)
        covered = rest.cursor.covered if rest.cursor.covered > lowest else done.covered
        return Settled((*run.rows, *rest.rows), rest.cursor._replace(covered=covered))

    def run(self, table: pa.Table, at: Cursor, horizon: int | None, *,
            budget: Budget | None = None) -> Run:
        """The engine's run over ``table``, one partition's rows in order, from ``at``
        to ``horizon`` (:meth:`.recognition.CompiledRecognition.run_from`)."""
        one = np.zeros(table.num_rows, dtype=np.int64)   # one partition, in order already
        ordered = Sorted(table, None, one, one)
        return self.engine.run_from(ordered, at, horizon,
                                    budget=budget or Budget(what="recognizing a row pattern"))


__all__ = ["Settler"]
