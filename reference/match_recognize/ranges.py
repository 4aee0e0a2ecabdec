"""A partition's recognition computed in ranges of its rows, exactly (issue 30: a
``MATCH_RECOGNIZE`` without ``PARTITION BY`` in several Spark tasks; docs/benchmarks.md,
"seq3 split into ranges of rows").

The single process recognizes an ordered partition as a sequence of searches
(:meth:`.semantics.Recognizer.steps`, ISO/IEC TR 19075-5:2016 §4.5): from row ``pos``, the
most preferred match at ``pos`` (:meth:`~.semantics.Recognizer.first_match`); none, and
the next search is at ``pos + 1``; a match ``m``, and it is output and the next search is
at ``resume(m)`` (``AFTER MATCH SKIP``: past its last row, the row after its first, or its
first / last row of a variable, always after ``m``'s first row).

**Bounds** (:func:`bounds`). Let every matching of the pattern map at least one row and at
most ``span`` rows (no ``*``, ``+`` or ``{n,}``; no matching without a row), the
``DEFINE`` and ``MEASURES`` expressions read at most ``back`` rows before a row of the
match (``PREV`` offsets, added along a nesting) and ``ahead`` rows after one (``NEXT``);
a logical navigation (``FIRST``, ``LAST``), an aggregate and ``CLASSIFIER`` read the
match's own rows. Refused: ``MATCH_NUMBER()`` (it counts the matches before), ``WITH
UNMATCHED ROWS`` (it outputs the rows no match covers), ``^`` and ``$`` (they ask where
the partition starts and ends).

**Lemma 1 (locality).** Under the bounds, the search at ``s`` reads only the rows
``s − back … s + span − 1 + ahead`` (those of the partition): its candidate match, the
match's output rows and its resume point are those of the same search over any run of
the partition's consecutive rows that holds them, clipped only where the partition
itself ends (where a navigation past the end is NULL in both).

**Lemma 2 (selection).** The single process outputs the candidate at ``s`` iff there is
one and ``s ≥ r``, ``r`` the resume point of the last candidate it output before ``s``
(``0`` before the first). For every row from ``r`` on is searched, in order, until one has
a match; that one is output and sets the next ``r``.

So (:func:`recognize_in_ranges`): cut the partition into ranges of ``size`` rows; for
each range, the candidate at each of its start rows, searched over the range widened by
``back`` rows before and ``span − 1 + ahead`` after (:func:`candidates`); then one pass
over all candidates in row order (:func:`kept`) keeps exactly the single process's
matches, in its order. A data exception (a condition's division by zero; a skip to the
match's first row, or to a variable it does not map) is raised only where the single
process makes the search that raises it: a search from a row it skips raises nothing.
Checked against :func:`.semantics.recognize` on drawn tables and clauses, ranges of one
row to more rows than the table (``tests/test_mr_ranges.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import (
    Alt,
    Anchor,
    Concat,
    Empty,
    Exclude,
    Expr,
    MatchNumber,
    MatchRecognize,
    Navigation,
    Permute,
    Quantified,
    RowPattern,
    Var,
)
from kleene.reference.match_recognize.evaluation import Scope
from kleene.reference.match_recognize.expressions import children, walk
from kleene.reference.match_recognize.scalars import DataError
from kleene.reference.match_recognize.semantics import (
    Recognizer,
    Row,
    partitions,
)
from kleene.reference.match_recognize.table import Table

#: How :func:`bounds` begins a refusal.
SPLIT_REFUSED = "not split into ranges of rows"


@dataclass(frozen=True)
class Bounds:
    """The most rows a match maps (``span``), and how far its expressions read before
    (``back``) and after (``ahead``) a row of it (module docstring)."""

    span: int
    back: int
    ahead: int

    @property
    def before(self) -> int:
        """Rows a range needs before its first start row."""
        return self.back

    @property
    def after(self) -> int:
        """Rows a range needs after its last start row."""
        return self.span - 1 + self.ahead


def _lengths(p: RowPattern) -> tuple[int, int | None]:
    """The fewest and most rows a matching of ``p`` maps (``None``: no most)."""
    if isinstance(p, Var):
        return 1, 1
    if isinstance(p, (Empty, Anchor)):
        return 0, 0
    if isinstance(p, Exclude):
        return _lengths(p.body)
    if isinstance(p, (Concat, Permute)):
        parts = [_lengths(i) for i in p.items]
        highs = [h for _, h in parts]
        return (sum(lo for lo, _ in parts),
                None if None in highs else sum(h for h in highs if h is not None))
    if isinstance(p, Alt):
        parts = [_lengths(i) for i in p.items]
        highs = [h for _, h in parts]
        return (min(lo for lo, _ in parts),
                None if None in highs else max(h for h in highs if h is not None))
    assert isinstance(p, Quantified)
    lo, hi = _lengths(p.body)
    if p.high is None:
        return lo * p.low, None if hi != 0 else 0
    return lo * p.low, None if hi is None else hi * p.high


def _reach(e: Expr, kind: str) -> int:
    """The most rows ``e`` reads before (``PREV``) or after (``NEXT``) its row."""
    own = e.offset if isinstance(e, Navigation) and e.kind == kind else 0
    return own + max((_reach(c, kind) for c in children(e)), default=0)


def bounds(clause: MatchRecognize) -> Bounds:
    """The clause's :class:`Bounds`; :class:`Unsupported` says why a clause has none."""
    def refuse(why: str) -> Unsupported:
        return Unsupported(f"{SPLIT_REFUSED}: {why}")

    if clause.rows_per_match == "ALL WITH UNMATCHED":
        raise refuse("WITH UNMATCHED ROWS outputs the rows no match covers")
    exprs = [d.condition for d in clause.defines] + [m.expr for m in clause.measures]
    if any(isinstance(x, MatchNumber) for e in exprs for x in walk(e)):
        raise refuse("MATCH_NUMBER() counts the matches before")
    parts = [clause.pattern]
    while parts:
        p = parts.pop()
        if isinstance(p, Anchor):
            raise refuse(f"{p.kind} asks where the partition "
                         f"{'starts' if p.kind == '^' else 'ends'}")
        if isinstance(p, (Concat, Alt, Permute)):
            parts.extend(p.items)
        elif isinstance(p, (Quantified, Exclude)):
            parts.append(p.body)
    low, high = _lengths(clause.pattern)
    if low == 0:
        raise refuse("the pattern can match no row (an empty match)")
    if high is None:
        raise refuse("an unbounded quantifier (*, + or {n,}): a match can span any rows")
    return Bounds(high, max((_reach(e, "PREV") for e in exprs), default=0),
                  max((_reach(e, "NEXT") for e in exprs), default=0))


@dataclass(frozen=True)
class Candidate:
    """The search at row ``start`` of the partition, where it finds a match: the match's
    output ``rows`` and the row its ``AFTER MATCH SKIP`` resumes at; or the data exception
    the search, the output or the skip raises (``error``), raised only if the single
    process makes that search."""

    start: int
    rows: tuple[Row, ...] = ()
    resume: int = 0
    error: DataError | None = None


def candidates(r: Recognizer, rows: Sequence[Row], lo: int, hi: int, b: Bounds
               ) -> list[Candidate]:
    """The search at each start row ``lo … hi − 1`` of the ordered partition ``rows``
    that finds a match or raises, each over rows ``lo − b.before … hi − 1 + b.after``
    alone (Lemma 1)."""
    base = max(lo - b.before, 0)
    window = rows[base:min(hi + b.after, len(rows))]
    r.searched = set() if r.local else None   # its memory is of this window's rows
    out = []
    for s in range(lo, min(hi, len(rows))):
        try:
            m = r.first_match(window, s - base, 1)
            if m is None:
                continue
            assert m.variables, "bounds() refuses empty matches"
            final = Scope(window, r.columns, m.start, m.variables, len(m.variables), 1,
                          r.subsets)
            out.append(Candidate(s, tuple(r.emitted(window, m, final)),
                                 r.resume(m, final) + base))
        except DataError as err:
            out.append(Candidate(s, error=err))
    return out


def kept(found: Sequence[Candidate]) -> list[Candidate]:
    """The candidates (in row order) the single process outputs (Lemma 2); the first
    data exception of a search it makes, raised."""
    out = []
    resume = 0
    for c in found:
        if c.start < resume:
            continue
        if c.error is not None:
            raise c.error
        out.append(c)
        resume = c.resume
    return out


def recognize_in_ranges(clause: MatchRecognize, table: Table, size: int, *,
                        budget: Budget | None = None) -> Table:
    """The output of ``clause`` over ``table`` (:func:`.semantics.recognize`'s), each
    partition recognized in ranges of ``size`` rows (module docstring)."""
    b = bounds(clause)
    r = Recognizer(clause, table, budget or Budget(what="recognizing a row pattern"))
    out: list[Row] = []
    for rows in partitions(clause, table):
        found = [c for lo in range(0, len(rows), size)
                 for c in candidates(r, rows, lo, lo + size, b)]
        out.extend(row for c in kept(found) for row in c.rows)
    return Table(r.names(), tuple(out))
