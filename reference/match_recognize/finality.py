"""When an output row of a recognition is final on a partition that keeps growing.

A stream delivers a partition's rows in ``ORDER BY`` order, and every row it has
delivered so far is a prefix ``P`` (rows ``0 … n − 1``) of the partition the stream will
have made when it ends. **Definition (finality).** An output row of the recognition of
``P`` is *final* when the recognition of every partition that begins with ``P`` (``P``
itself, if no row follows, or ``P`` followed by any rows) outputs it, at the same place:
no later row can change it. ISO/IEC 9075-2 §7.6 and TR 19075-5 define the output of a
whole partition only; the streaming engines read it so: Flink's "Detecting Patterns in
Tables" (streaming ``MATCH_RECOGNIZE``) orders each partition by its event-time
attribute, emits a match once the watermark shows the rows it depends on complete, and
refuses a greedy quantifier on the pattern's last variable (FLINK-10587) because no row
ever ends it; its ``WITHIN`` is what bounds the state (the same page: the clause "does
not use a configured state retention time … use the ``WITHIN`` clause").

The recognition of a partition is a sequence of searches (:meth:`.semantics.Recognizer.steps`,
TR §4.5): from the first row, the most preferred matching at a start row, then ``AFTER
MATCH SKIP``. Each search is a function of the rows it reads, so a search that reads no
row at or past ``n``, nor asks whether row ``n`` exists, does the same on ``P`` and on
every partition beginning with ``P``; so do the searches before it, and its output rows
are final. :func:`settle` runs the searches from a cursor and stops at the first that
*reads past* ``P``:

1. a branch tried before the winner asks for row ``n`` (:class:`.matchings.Observer`'s
   ``no_row``): a greedier continuation (``A+`` at ``P``'s end), or a matching not yet
   complete. Under ``WITHIN`` not when ``floor`` (no later row sorts below it on the first
   ``ORDER BY`` key) already lies outside the interval of the search's first row: then
   every later row fails the bound, as the missing row does (Flink's time constraint);
2. a ``DEFINE`` condition evaluated at row ``r`` with ``r + ahead ≥ n``, ``ahead`` the
   largest ``NEXT`` offset of the conditions (:func:`reach`);
3. the pattern holds ``$`` and the matching ends at ``n`` (``$`` holds there on ``P``
   alone, not on a longer partition);
4. the output reads past ``P``: a ``MEASURES`` ``NEXT`` from the match's last row.

Rules 2–4 are conservative (a ``NEXT`` may land inside ``P``, a matching ending at ``n``
may not pass ``$``): they wait for a row that was not needed, never emit one that a
later row changes. The property (``tests/test_mr_finality.py``): the rows :func:`settle`
calls final on a prefix are the first rows of the recognition of every longer prefix
and of the whole partition, and on the whole partition, ended, everything is final.

The state a search still needs is the rows from ``cursor.pos − back`` on (``back`` the
largest ``PREV`` offset): :func:`settle` takes those rows with the partition index of
the first, ``base``; the rows before it are gone, and a row of NULLs stands in front of
them so that ``^`` (the partition's first row) is never met again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kleene.reference.budget import Budget
from kleene.reference.match_recognize.ast import (
    Anchor,
    Expr,
    MatchRecognize,
    Navigation,
    RowPattern,
)
from kleene.reference.match_recognize.checks import pattern_parts
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.matchings import Observer
from kleene.reference.match_recognize.semantics import (
    Cursor,
    Recognizer,
    Row,
    _row_value,
    within_bound,
)
from kleene.reference.match_recognize.table import Table


@dataclass(frozen=True)
class Reach:
    """How far from the rows a search maps its reads go: ``back`` rows before (the
    largest ``PREV`` offset), ``define`` and ``measures`` rows after (the largest ``NEXT``
    offset of the conditions, of the measures), and whether the pattern holds ``$``."""

    back: int
    define: int
    measures: int
    end_anchor: bool


def _largest(exprs: Sequence[Expr], kind: str) -> int:
    return max((x.offset for e in exprs for x in walk(e)
                if isinstance(x, Navigation) and x.kind == kind), default=0)


def reach(clause: MatchRecognize) -> Reach:
    """The :class:`Reach` of ``clause`` (module docstring)."""
    defines = [d.condition for d in clause.defines]
    measures = [m.expr for m in clause.measures]
    return Reach(back=_largest(defines + measures, "PREV"), define=_largest(defines, "NEXT"),
                 measures=_largest(measures, "NEXT"),
                 end_anchor=_has_end_anchor(clause.pattern))


def _has_end_anchor(pattern: RowPattern) -> bool:
    return any(isinstance(p, Anchor) and p.kind == "$" for p in pattern_parts(pattern))


class _Watch(Observer):
    """Whether the search from ``start`` over ``n`` rows read past them (rules 1, 2)."""

    def __init__(self, recognizer: Recognizer, rows: Sequence[Row], n: int, ahead: int,
                 floor: object) -> None:
        self.recognizer, self.rows, self.n, self.ahead, self.floor = \
            recognizer, rows, n, ahead, floor
        self.start, self.past = 0, False

    def take(self, pos: int) -> None:
        pass

    def choose(self, pos: int, node: RowPattern, done: int | None, count: int) -> None:
        pass

    def test(self, start: int, variables: Sequence[str], ok: bool) -> None:
        if self.ahead and start + len(variables) - 1 + self.ahead >= self.n:
            self.past = True

    def no_row(self, pos: int, var: str) -> None:
        if not self._expired():
            self.past = True

    def _expired(self) -> bool:
        """Every later row lies outside the ``WITHIN`` interval of the search's first row."""
        r, within = self.recognizer, self.recognizer.clause.within
        if within is None or self.floor is None:
            return False
        first = _row_value(r.clause.order_by[0].expr, self.rows[self.start], r.columns)
        return not within_bound(within, first, self.floor)


@dataclass(frozen=True)
class Settled:
    """What :func:`settle` found final: the output ``rows``, in order, and the ``cursor``
    after them (partition indexes)."""

    rows: tuple[Row, ...]
    cursor: Cursor


def settle(clause: MatchRecognize, names: Sequence[str], rows: Sequence[Row], *,
           base: int = 0, cursor: Cursor | None = None, floor: object = None,
           ended: bool = False, budget: Budget | None = None) -> Settled:
    """The output rows final on the partition whose rows from index ``base`` on are
    ``rows`` (columns ``names``), from ``cursor`` on (partition indexes, ``cursor.pos −
    base`` at least the clause's ``reach().back`` unless ``base`` is 0), and the cursor
    after them; ``floor``: no later row sorts below it on the first ``ORDER BY`` key
    (``None``: unknown); ``ended``: no row follows (every row is final). The module
    docstring states the rule."""
    budget = budget or Budget(what="recognizing a row pattern")
    cursor = cursor or Cursor()
    pad = 1 if base else 0
    held = ((None,) * len(names),) * pad + tuple(rows)
    shift = base - pad                        # partition index = held index + shift
    r = Recognizer(clause, Table(tuple(names), held), budget)
    the = reach(clause)
    n = len(held)
    watch = _Watch(r, held, n, the.define, floor)
    r.observe = watch
    out: list[Row] = []
    at = Cursor(cursor.pos - shift, cursor.number, max(cursor.covered - shift, 0))
    steps = r.steps(held, at)
    while True:
        watch.start, watch.past = at.pos, False
        step = next(steps, None)
        if step is None or (watch.past and not ended):
            break
        m = step.match
        if not ended and m is not None and m.variables and ((the.end_anchor and m.end == n) or (
                the.measures and m.end - 1 + the.measures >= n)):
            break
        out.extend(step.rows)
        at = step.cursor
    return Settled(tuple(out), Cursor(at.pos + shift, at.number, at.covered + shift))


__all__ = ["Reach", "Settled", "reach", "settle"]
