"""One ``MATCH_RECOGNIZE`` clause compiled, run over an Arrow table.

:class:`CompiledRecognition` holds the clause's program (:mod:`.program`) and which
``DEFINE`` conditions are row-local (:mod:`.conditions`). :meth:`~CompiledRecognition.
recognize` reads an Arrow table and answers one, the reference's output table
(:func:`kleene.reference.match_recognize.semantics.recognize`, then
:func:`kleene.data.sql.arrow_of` as the statement runner converts it):

1. the rows ordered and cut into partitions by Arrow's stable sort (:mod:`.order`);
2. each row-local condition evaluated on whole columns, ``PREV``/``NEXT`` as columns
   shifted within partitions (:func:`.conditions.column_truth`), the others left to the
   reference's evaluator, row by row as the run reaches them, but for the rows their
   leading row-local conjuncts make FALSE (:func:`.conditions.refuted`);
3. where the pattern cannot match without a row, the rows where no match can begin by
   its first two rows (no variable the pattern can begin with, or no variable that can
   follow it at the next row) are never start rows: matching jumps from one candidate to
   the next (:func:`first_tests`, :func:`second_tests`);
4. per partition, the match at each start row by :class:`.vm.Matcher`, then ``AFTER MATCH
   SKIP``, the measures and the output rows by the reference's own
   :class:`~kleene.reference.match_recognize.semantics.Recognizer` (measures are read at
   a match's rows only: a few per match, not the bottleneck), the rows read lazily from
   the Arrow columns a measure or an output column names (:class:`Rows`); where the
   compiled loop ran every partition and every measure is read off the matches'
   variables, the output is built from the input's columns as Arrow, with no Python row
   (:mod:`.output`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from kleene.data.sql import arrow_of
from kleene.engines.match_recognize import kernel, output
from kleene.engines.match_recognize.measures import (
    Matches,
    Picked,
    Reader,
    column_reader,
    reader,
)
from kleene.engines.match_recognize.order import Sorted, sort
from kleene.engines.match_recognize.program import (
    Program,
    Test,
    TooManyStates,
    compile_pattern,
    loose_reach,
    reach,
)
from kleene.engines.match_recognize.rows import Columns, RowCondition, Rows
from kleene.engines.match_recognize.vm import Accept, Matcher, PastHorizon
from kleene.engines.protocol import Counters, Transition
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.match_recognize.ast import MatchRecognize, Subquery
from kleene.reference.match_recognize.evaluation import Scope, evaluate, holds, row_local
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.features import expressions_of
from kleene.reference.match_recognize.matchings import Matching
from kleene.reference.match_recognize.semantics import Cursor, Recognizer, within_bound
from kleene.reference.match_recognize.table import Table


def first_tests(program: Program) -> tuple[frozenset[int], bool]:
    """The ``Test`` addresses a run may reach before mapping any row, and whether it may
    reach ``Done`` so (a matching with no row: then every row is a start)."""
    try:
        tests, empty = reach(program, 0, (0,) * program.slots)
    except TooManyStates:
        return loose_reach(program, 0)
    return frozenset(pc for pc, _ in tests), empty


def second_tests(program: Program) -> dict[int, tuple[frozenset[int], bool]]:
    """For each first ``Test`` (:func:`first_tests`), the ``Test`` addresses a run may
    reach after it maps the first row and before it maps the second, and whether it may
    reach ``Done`` so (a one-row match); with counters ignored where following them
    visits too many states (:func:`~.program.loose_reach`: a superset, so no start row is
    skipped that a match begins at)."""
    try:
        firsts, _ = reach(program, 0, (0,) * program.slots)
        out: dict[int, tuple[frozenset[int], bool]] = {}
        for pc, counts in firsts:
            tests, done = reach(program, pc + 1, counts)
            before, was_done = out.get(pc, (frozenset(), False))
            out[pc] = (before | {at for at, _ in tests}, was_done or done)
        return out
    except TooManyStates:
        return {pc: loose_reach(program, pc + 1) for pc in loose_reach(program, 0)[0]}


class Run(NamedTuple):
    """A partition's run from a cursor: its output ``rows``, the ``cursor`` after them, and
    whether it ``stopped`` at the search there, which reached the horizon; or its output
    as columns (``block``, :mod:`.output`; ``rows`` empty), where the caller asked for
    them and the compiled loop's measures read them."""

    rows: list[tuple[object, ...]]
    cursor: Cursor
    stopped: bool
    block: output.Block | None = None


class CompiledRecognition:
    """A ``MATCH_RECOGNIZE`` clause compiled (module docstring)."""

    def __init__(self, clause: MatchRecognize, *, memo: bool = True,
                 compiled: bool = True) -> None:
        if any(isinstance(x, Subquery) and x.values is None
               for e in expressions_of(clause) for x in walk(e)):
            raise Unsupported("the engine match-recognize compiles a clause whose subqueries "
                              "DuckDB has evaluated (kleene.data.sql.with_subqueries, as "
                              "kleene conform --sqllogictest --engine runs it); the reference "
                              "answers this one")
        self.clause = clause
        self.program = compile_pattern(clause.pattern)
        self.subsets = {u.name.upper(): frozenset(v.upper() for v in u.vars)
                        for u in clause.subsets}
        self.defines = {d.var.upper(): d.condition for d in clause.defines}
        self.local = {v: row_local(c, v, self.subsets) for v, c in self.defines.items()}
        self.starts, self.empty = first_tests(self.program)
        self.seconds = second_tests(self.program)
        self.memo = memo and clause.within is None and all(self.local.values())
        simple_skip = clause.after_match.kind in ("PAST LAST ROW", "TO NEXT ROW")
        self.encoded = kernel.encode(self.program) if compiled and self.memo and simple_skip \
            else None

    # --- what a picture reads ----------------------------------------------------------

    @property
    def initial(self) -> frozenset[int]:
        return self.program.initial

    @property
    def accepting(self) -> frozenset[int]:
        return self.program.accepting

    def iter_transitions(self) -> Iterator[Transition]:
        return self.program.iter_transitions()

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        raise Unsupported("match_recognize answers tables: use recognize(arrow_table)")

    # --- the run -----------------------------------------------------------------------

    def recognize(self, table: pa.Table, *, budget: Budget | None = None,
                  counters: Counters | None = None, ordered: Sorted | None = None,
                  ) -> pa.Table:
        """The output table of the clause over ``table`` (module docstring); what the run
        did counted into ``counters`` (``matches``, ``compiled_partitions``,
        ``events_read``). ``ordered``: ``table`` already sorted by :func:`.order.sort` for
        this clause (the door's check sorted it), else sorted here."""
        budget = budget or Budget(what="recognizing a row pattern")
        counters = counters if counters is not None else Counters()
        names = tuple(table.column_names)
        reference = Recognizer(self.clause, Table(names, ()), budget)
        ordered = ordered if ordered is not None else sort(self.clause, table)
        ranks = ordered.frame.partition
        truth = self._truths(ordered)
        gates = self._gates(ordered)
        columns = Columns(ordered)
        bounds = np.flatnonzero(np.diff(ranks)) + 1
        edges = [0, *bounds.tolist(), len(ranks)] if len(ranks) else [0]
        parts: list[output.Block | list[tuple[object, ...]]] = []
        for lo, hi in zip(edges, edges[1:], strict=False):
            run = self._partition(reference, Rows(columns, lo, hi), truth, gates, lo,
                                  budget, counters, Cursor(), None, columnar=True)
            parts.append(run.block if run.block is not None else run.rows)
        counters.events_read = table.num_rows
        blocks = [p for p in parts if isinstance(p, output.Block)]
        if blocks and all(isinstance(p, output.Block) or not p for p in parts):
            return output.table(reference.names(), blocks, columns, table.schema)
        out = [row for p in parts
               for row in (p.rows(columns) if isinstance(p, output.Block) else p)]
        return arrow_of(Table(reference.names(), tuple(out)), like=table.schema)

    def _truths(self, ordered: Sorted) -> dict[str, np.ndarray | None]:
        """Each row-local condition over every row (``None``: row by row, or not local)."""
        if self.clause.within is not None:
            return {}
        return {v: ordered.truth(v, c) for v, c in self.defines.items() if self.local[v]}

    def _gates(self, ordered: Sorted) -> dict[str, np.ndarray]:
        """For each condition that is not row-local, the rows where it may hold: those its
        leading row-local conjuncts do not make FALSE (:func:`.conditions.refuted`; seq3's
        ``Z AS type = 'BUY' AND name = 'QQQ' AND price > X.price ...``: the reference's
        evaluator asked at one row in a hundred). None under ``WITHIN``, whose bound the
        reference checks first."""
        if self.clause.within is not None:
            return {}
        out = {}
        for v, c in self.defines.items():
            false = None if self.local[v] else ordered.refuted(v, c, self.subsets)
            if false is not None:
                out[v] = ~false
        return out

    def run_from(self, ordered: Sorted, at: Cursor, horizon: int | None, *,
                 budget: Budget) -> Run:
        """The searches of one partition (``ordered``: its rows in the clause's order,
        one partition rank) from cursor ``at`` on, up to the first that tests a row at or
        past ``horizon`` (``None``: to the end), where the run stops
        (:mod:`.settling`: a stream's buffered rows)."""
        names = tuple(ordered.table.column_names)
        reference = Recognizer(self.clause, Table(names, ()), budget)
        rows = Rows(Columns(ordered), 0, ordered.table.num_rows)
        return self._partition(reference, rows, self._truths(ordered), self._gates(ordered),
                               0, budget, Counters(), at, horizon)

    def _partition(self, ref: Recognizer, rows: Rows, truth: dict[str, np.ndarray | None],
                   gates: dict[str, np.ndarray], lo: int, budget: Budget, counters: Counters,
                   at: Cursor, horizon: int | None, *, columnar: bool = False) -> Run:
        """The searches of one partition, ``rows``, from ``at`` (to ``horizon``); its output
        as a :class:`.output.Block` where ``columnar`` and the compiled loop reads it so."""
        n = len(rows)
        slices: dict[str, np.ndarray | RowCondition | None] = {}
        for ins in self.program.code:
            if isinstance(ins, Test) and ins.var.upper() not in slices:
                slices[ins.var.upper()] = self._mask(ins.var.upper(), rows, truth, lo)
        if self.encoded is not None and all(isinstance(m, np.ndarray) for m in slices.values()):
            return self._scanned(ref, rows, slices, budget, counters, at, horizon, columnar)
        lists: dict[str, Any] = {v: _indexable(m) if isinstance(m, np.ndarray) else m
                                 for v, m in slices.items()}
        masks: list[Sequence[bool] | None] = [
            lists[ins.var.upper()] if isinstance(ins, Test) else None
            for ins in self.program.code]
        gate_lists = {v: _indexable(g[lo:lo + n]) for v, g in gates.items()}
        may = [gate_lists.get(ins.var.upper()) if isinstance(ins, Test) and mask is None
               else None for ins, mask in zip(self.program.code, masks, strict=True)]
        number = [at.number]
        readers = self._readers(ref)
        accept = self._accept(rows, number)
        matcher = Matcher(self.program, n, masks, accept, budget, memo=self.memo, gates=may,
                          horizon=horizon)
        can = self._start_rows(slices, n, horizon)
        candidates = None if can is None else np.flatnonzero(can).tolist()
        mode = self.clause.rows_per_match
        out: list[tuple[object, ...]] = []
        pos, _, covered = at
        while pos < n:
            if candidates is not None:
                nxt = candidates[bisect.bisect_left(candidates, pos)] \
                    if candidates and candidates[-1] >= pos else n
                if nxt > pos:
                    if mode == "ALL WITH UNMATCHED":
                        out += [ref.output(rows[r], None) for r in range(max(pos, covered), nxt)]
                    pos = nxt
                    continue
            try:
                found = matcher.first(pos)
            except PastHorizon:
                return Run(out, Cursor(pos, number[0], covered), True)
            if found is None:
                if mode == "ALL WITH UNMATCHED" and pos >= covered:
                    out.append(ref.output(rows[pos], None))
                pos += 1
                continue
            number[0] += 1
            m = Matching(pos, tuple(found[0]), frozenset(i for i, e in enumerate(found[1]) if e))
            final = self._emit(ref, rows, m, number[0], out, counters, readers)
            if not m.variables:
                pos += 1
                continue
            covered = max(covered, m.end)
            pos = ref.resume(m, final)
        return Run(out, Cursor(pos, number[0], covered), False)

    def _emit(self, ref: Recognizer, rows: Rows, m: Matching, number: int,
              out: list[tuple[object, ...]], counters: Counters,
              readers: list[Reader] | None) -> Scope:
        """The output rows of match ``m`` (the reference's rules); its final scope."""
        counters.matches += 1
        variables = m.variables
        final = Scope(rows, ref.columns, m.start, variables, len(variables), number,
                      ref.subsets)
        mode = self.clause.rows_per_match
        if not variables:
            if mode != "ALL OMIT":
                out.append(ref.output(rows[m.start], final))
        elif not ref.all_rows:
            if readers is None:
                out.append(ref.output(rows[m.end - 1], final))
            else:
                upper = [v.upper() for v in variables]
                out.append(tuple([rows.value(m.end - 1, i) for i in ref.by] + [
                    read(rows.value, m.start, variables, upper, number) for read in readers]))
        else:
            out += [ref.output(rows[m.start + i], Scope(
                rows, ref.columns, m.start, variables, i + 1, number, ref.subsets))
                for i in range(len(variables)) if i not in m.excluded]
        return final

    def _readers(self, ref: Recognizer) -> list[Reader] | None:
        """Every measure as a :data:`.measures.Reader`, or ``None`` if one is not."""
        readers = [reader(m.expr, ref.columns, ref.subsets) for m in self.clause.measures]
        return None if any(r is None for r in readers) else [r for r in readers if r]

    def _scanned(self, ref: Recognizer, rows: Rows,
                 slices: dict[str, np.ndarray | RowCondition | None], budget: Budget,
                 counters: Counters, at: Cursor, horizon: int | None,
                 columnar: bool = False) -> Run:
        """A partition by the compiled loop (:mod:`.kernel`) from ``at`` (to ``horizon``,
        :meth:`run_from`): its matches, then their output in the reference's order
        (unmatched rows among them); as columns where ``columnar`` and every measure is
        read off the matches' variables (:func:`.measures.column_reader`)."""
        assert self.encoded is not None
        if at.pos >= len(rows):
            return Run([], at, False)
        counters.compiled_partitions += 1
        readers = self._readers(ref)
        n = len(rows)
        masks = np.empty((len(self.encoded.variables), n), dtype=bool)
        for i, v in enumerate(self.encoded.variables):
            masks[i] = slices[v]
        next_row = self.clause.after_match.kind == "TO NEXT ROW"
        can = self._two_rows(slices, n, horizon)
        can[:at.pos] = False
        starts, lengths, pcs, steps, _, stop = kernel.scan(
            self.encoded, masks, n, next_row, budget.limit - budget.used, can, horizon)
        budget.spend(steps)  # raises when the run ran out of steps
        ends = (starts + lengths)[lengths > 0]
        end = Cursor(n if stop < 0 else stop, at.number + len(starts),
                     max(at.covered, int(ends.max(initial=0))))
        code = self.program.code
        tests = [(ins.var, ins.excluded) if isinstance(ins, Test) else ("", False)
                 for ins in code]
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        if not ref.all_rows and len(starts) and lengths.min() > 0:
            vectors = [column_reader(m.expr, ref.columns, ref.subsets)
                       for m in self.clause.measures]
            if all(v is not None for v in vectors):
                counters.matches += len(starts)
                counters.measured_as_columns += len(starts)
                upper = np.array([v.upper() for v, _ in tests], dtype=object)
                written = np.array([v for v, _ in tests], dtype=object)
                flat_matches = Matches(upper[pcs], written[pcs], offsets[:-1], starts,
                                       rows.lo, at.number)
                last = rows.lo + starts + lengths - 1
                block = output.Block(tuple([Picked(i, last) for i in ref.by] + [
                    v(flat_matches) for v in vectors if v is not None]), len(starts))
                if columnar:
                    return Run([], end, stop >= 0, block)
                return Run(block.rows(rows.columns), end, stop >= 0)
        matches: dict[int, Matching] = {}
        flat, offsets = pcs.tolist(), offsets.tolist()
        for i, start in enumerate(starts.tolist()):
            path = [tests[pc] for pc in flat[offsets[i]:offsets[i + 1]]]
            matches[start] = Matching(start, tuple(v for v, _ in path),
                                      frozenset(j for j, (_, e) in enumerate(path) if e))
        out: list[tuple[object, ...]] = []
        if self.clause.rows_per_match != "ALL WITH UNMATCHED":
            for number, m in enumerate(matches.values(), at.number + 1):
                self._emit(ref, rows, m, number, out, counters, readers)
            return Run(out, end, stop >= 0)
        pos, number, covered = at
        while pos < end.pos:
            found = matches.get(pos)
            if found is None:
                if pos >= covered:
                    out.append(ref.output(rows[pos], None))
                pos += 1
                continue
            number += 1
            self._emit(ref, rows, found, number, out, counters, readers)
            covered = max(covered, found.end)
            pos = pos + 1 if not found.variables or next_row else found.end
        return Run(out, end, stop >= 0)

    def _mask(self, var: str, rows: Rows, truth: dict[str, np.ndarray | None],
              lo: int) -> np.ndarray | RowCondition | None:
        """How the ``Test`` of ``var`` decides a row of this partition (``None``: by the
        reference over the match so far)."""
        if self.clause.within is not None:
            return None
        if var not in self.defines:
            return np.ones(len(rows), dtype=bool)  # no DEFINE: every row (TR §4.14)
        if not self.local[var]:
            return None
        column = truth.get(var)
        if column is not None:
            return column[lo:lo + len(rows)]
        return RowCondition(self.defines[var], var, rows, self._columns(rows), self.subsets)

    def _two_rows(self, slices: dict[str, Any], n: int,
                  horizon: int | None = None) -> np.ndarray:
        """The compiled loop's start rows (:meth:`_start_rows`; every condition there is a
        column). Profiling the V shape: nine start rows in ten fail at their second row,
        and trying one cost more than half the loop's time."""
        can = self._start_rows(slices, n, horizon)
        return np.ones(n, dtype=bool) if can is None else can

    def _start_rows(self, slices: dict[str, np.ndarray | RowCondition | None], n: int,
                    horizon: int | None = None) -> np.ndarray | None:
        """The rows where a match may start, by its first two rows (``None``: any row, as
        where the pattern can match the empty string or a first condition is not a
        column): a row that satisfies a first ``Test`` whose run can end there or whose
        next row may satisfy a ``Test`` that can follow it (:func:`second_tests`; a
        condition that is not a column may hold). Every other row has no match: the run
        skips it, the same output (seq3: ``Z`` reads ``X``, so the run is the VM's, and
        nine in ten of its ``X`` rows are followed by no ``Y``). Before a ``horizon``
        every row from the one before it is tried: its second row may lie past it."""
        if self.empty:
            return None
        can = np.zeros(n, dtype=bool)
        for pc in self.starts:
            first = slices[self._var(pc)]
            if not isinstance(first, np.ndarray):
                return None
            then, done = self.seconds[pc]
            if done:
                can |= first
                continue
            for second in then:
                follows = slices[self._var(second)]
                can[:-1] |= first[:-1] & follows[1:] if isinstance(follows, np.ndarray) \
                    else first[:-1]
        if horizon is not None:
            can[max(horizon - 1, 0):] = True
        return can

    def _var(self, pc: int) -> str:
        ins = self.program.code[pc]
        assert isinstance(ins, Test)
        return ins.var.upper()

    def _columns(self, rows: Rows) -> dict[str, int]:
        return {name.upper(): i for i, name in enumerate(rows.columns.table.column_names)}

    def _accept(self, rows: Rows, number: list[int]) -> Accept:
        clause, columns, subsets = self.clause, self._columns(rows), self.subsets
        within, defines = clause.within, self.defines
        key = clause.order_by[0].expr if within is not None and clause.order_by else None

        def key_at(row: int) -> object:
            assert key is not None
            return evaluate(key, Scope(rows, columns, row, (), 0, 0, {}, pinned=row))

        def accept(start: int, variables: Sequence[str]) -> bool:
            row = start + len(variables) - 1
            if within is not None and key is not None and not within_bound(
                    within, key_at(start), key_at(row)):
                return False
            scope = Scope(rows, columns, start, variables, len(variables), number[0] + 1,
                          subsets)
            return holds(defines.get(variables[-1].upper()), scope)

        return accept


def _indexable(truths: np.ndarray) -> Sequence[Any]:
    """Row truths the matcher reads one at a time: a ``memoryview`` over a boolean array
    (no copy; its items are Python ``bool``s, read faster than a list's), else a list.
    The matcher reads only the rows it tries, a few thousand of 2.2 M for seq3, where
    ``tolist`` copied every row (0.02 s a mask)."""
    if truths.dtype == np.bool_:
        return np.ascontiguousarray(truths).data
    return list(truths.tolist())
