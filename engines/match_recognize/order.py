"""Partitions and order of a ``MATCH_RECOGNIZE`` input, by Arrow's stable sort.

The reference's rules (:mod:`kleene.reference.match_recognize.semantics`, 1 and 2):
partitions are the rows with equal ``PARTITION BY`` keys (NULLs equal), in the order of
their first row in the input; within one, rows in ``ORDER BY`` order, NULLs above every
value unless ``NULLS FIRST/LAST`` says otherwise (last ascending, first descending), and
rows tied on every key in input order. Here: each key column dictionary-encoded (codes in
order of first appearance, NULL a code of its own), the partitions ranked by their first
row, then one stable ``sort_indices`` over (partition rank, for each ``ORDER BY`` key
whether it is NULL and the key itself). An ``ORDER BY`` item that is not a column falls
back to the reference's own ordering of the rows. Where every ``ORDER BY`` key is an integer
or float column with no NULL and no NaN, the same order is ``numpy.lexsort``'s (stable, as
Arrow's sort is; a descending key negated), which profiling found three times faster than
Arrow's sort over several keys, taken as a ``lexsort`` by the ``ORDER BY`` keys, then a
radix sort by partition (:func:`_stable_sort`), and no sort at all where the rows are
already in order (checked in one pass: a stream written in time order); one ``PARTITION
BY`` key with no NULL is ranked by its dictionary codes alone (Arrow numbers a dictionary
in order of first appearance).

:class:`Sorted` is the input in that order, computed once per recognition and shared by
the door's silent-zero check (:func:`kleene.engines.tables.never_true`) and the engine's
run, with each row-local condition's column of truth values (:mod:`.conditions`), also
computed once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.engines.match_recognize.conditions import Frame, column_truth, refuted, row_local
from kleene.reference.match_recognize.ast import Column, Expr, MatchRecognize, Navigation
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.semantics import partitions
from kleene.reference.match_recognize.table import Table


def column(table: pa.Table, name: str) -> pa.Array:
    """The column ``name`` (case-insensitive; the reference's error otherwise)."""
    i = Table(tuple(table.column_names), ()).index(name)
    return table.column(i).combine_chunks()


def _codes(array: pa.Array) -> np.ndarray:
    encoded = pc.dictionary_encode(array)
    missing = len(encoded.dictionary)
    return np.asarray(pc.fill_null(encoded.indices.cast(pa.int64()), missing).to_numpy(),
                      dtype=np.int64)


def partition_ranks(clause: MatchRecognize, table: pa.Table) -> np.ndarray:
    """Each input row's partition, numbered in order of the partitions' first rows."""
    n = table.num_rows
    if not clause.partition_by or n == 0:
        return np.zeros(n, dtype=np.int64)
    keys = []
    nulls = False
    for e in clause.partition_by:
        assert isinstance(e, Column)  # the reference's Recognizer refuses any other key
        values = column(table, e.name)
        nulls = nulls or values.null_count > 0
        keys.append(_codes(values))
    if len(keys) == 1 and not nulls:
        return keys[0]  # codes in order of first appearance: the ranks (module docstring)
    codes = keys[0] if len(keys) == 1 else np.stack(keys, axis=1)
    _, first, inverse = np.unique(codes, axis=0 if len(keys) > 1 else None, return_index=True,
                                  return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[np.asarray(inverse).reshape(-1)]


def ordered(clause: MatchRecognize, table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """The input rows' order (indices into ``table``) and each ordered row's partition
    rank (non-decreasing)."""
    indices, ranks = _ordered(clause, table)
    return indices, ranks[indices]


def _ordered(clause: MatchRecognize, table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """The input rows' order and each input row's partition rank."""
    ranks = partition_ranks(clause, table)
    if not all(isinstance(k.expr, Column) for k in clause.order_by):
        return _reference_order(clause, table, ranks)[0], ranks
    fast = _lexsorted(clause, table, ranks)
    if fast is not None:
        return fast, ranks
    arrays: list[pa.Array] = [pa.array(ranks)]
    keys: list[tuple[str, str]] = [("rank", "ascending")]
    for i, k in enumerate(clause.order_by):
        assert isinstance(k.expr, Column)
        values = column(table, k.expr.name)
        nulls_first = k.descending if k.nulls_first is None else k.nulls_first
        arrays += [pc.is_null(values), values]
        keys += [(f"null{i}", "descending" if nulls_first else "ascending"),
                 (f"key{i}", "descending" if k.descending else "ascending")]
    names = ["rank"] + [n for i in range(len(clause.order_by)) for n in (f"null{i}", f"key{i}")]
    return pc.sort_indices(pa.table(arrays, names=names), sort_keys=keys).to_numpy(), ranks


def _reference_order(clause: MatchRecognize, table: pa.Table,
                     ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reference's partitions and order over the rows, each row carrying its index."""
    names = (*table.column_names, "__kleene_row__")
    rows = zip(*[c.to_pylist() for c in table.columns], range(table.num_rows), strict=True)
    found = partitions(clause, Table(names, tuple(rows)))
    indices = np.array([row[-1] for part in found for row in part], dtype=np.int64)
    return indices, ranks[indices]


def _lexsorted(clause: MatchRecognize, table: pa.Table, ranks: np.ndarray) -> np.ndarray | None:
    """The order of :func:`ordered` by ``numpy.lexsort`` where every key is a number column
    without NULL or NaN (module docstring), else ``None``."""
    keys: list[np.ndarray] = []
    for k in clause.order_by:
        assert isinstance(k.expr, Column)
        values = column(table, k.expr.name)
        if values.null_count or not (pa.types.is_integer(values.type)
                                     or pa.types.is_floating(values.type)):
            return None
        array = values.to_numpy()
        if pa.types.is_floating(values.type) and np.isnan(array).any():
            return None
        if k.descending:
            if pa.types.is_unsigned_integer(values.type) or (
                    pa.types.is_integer(values.type)
                    and array.min(initial=0) == np.iinfo(array.dtype).min):
                return None  # no negation in its type
            array = -array
        keys.append(array)
    if _in_order([ranks, *keys]):
        return np.arange(len(ranks))  # a stable sort of rows already in order: none moves
    return _stable_sort(ranks, keys)


def _stable_sort(ranks: np.ndarray, keys: list[np.ndarray]) -> np.ndarray:
    """``numpy.lexsort`` by ``ranks``, then ``keys`` (rows tied on all in input order), in
    two steps: the rows by ``keys`` (none moved where they are in that order already),
    then stably by their partition ranks, as 16-bit numbers where there are fewer than
    65,536 partitions (numpy sorts those by radix). ``lexsort`` itself is stable sorts
    from the last key to the first, so the two steps give its order; profiling the V
    shape ×10 (10 partitions), ``lexsort`` by (rank, ``stock_time``, ``id``) took 0.11
    CPU s, by (``stock_time``, ``id``) 0.03 and the ranks' radix sort 0.014."""
    # np.lexsort sorts by the last key first
    inner = None if _in_order(keys) else np.lexsort(keys[::-1])
    by = ranks if inner is None else ranks[inner]
    if _in_order([by]):
        return np.arange(len(ranks)) if inner is None else inner
    if by.max(initial=0) < 1 << 16:
        by = by.astype(np.uint16)
    outer = np.argsort(by, kind="stable")
    return outer if inner is None else inner[outer]


def _in_order(keys: list[np.ndarray]) -> bool:
    """Whether each row's ``keys`` are no greater than the next row's, compared
    lexicographically (the first key first): the rows are then in the order a stable sort
    by them gives (a stream written in time order, seq3's ``ORDER BY stock_time, id``).
    No key: in order."""
    if not keys:
        return True
    tied = np.ones(max(len(keys[0]) - 1, 0), dtype=bool)   # pairs equal on the keys so far
    for key in keys:
        before, after = key[:-1], key[1:]
        if (tied & (after < before)).any():
            return False
        tied &= after == before
    return True


class Sorted:
    """The input of one recognition in its partitions and order (module docstring): the
    input ``table`` as given, ``order`` (its rows' indices in sorted order; ``None``: the
    input is in order already), each sorted row's ``partition`` rank, and each row-local
    condition's truth over every sorted row, computed when first asked (:meth:`truth`).

    No row is moved before it is read: a column is taken in sorted order when a
    condition's kernels first read it (:attr:`frame`), and the engine reads a measure's or
    an output column's values at a match's rows through ``order`` (:mod:`.rows`).
    Profiling the V shape: taking all six columns of the ×10 stock stream cost more than
    the compiled loop; the run reads one whole column (``price``)."""

    def __init__(self, table: pa.Table, order: np.ndarray | None, partition: np.ndarray,
                 input_partition: np.ndarray) -> None:
        self.table, self.order, self.partition = table, order, partition
        self.truths: dict[tuple[str, int], np.ndarray | None] = {}
        names = {n.upper(): i for i, n in enumerate(table.column_names)}
        self.frame = Frame(_Columns(names, self.column), partition)
        self._input = Frame(_Columns(names, self._combined), input_partition)
        self._taken: dict[int, pa.Array] = {}

    def column(self, j: int) -> pa.Array:
        """Column ``j`` in sorted order (taken once)."""
        if j not in self._taken:
            whole = self._combined(j)
            self._taken[j] = whole if self.order is None else whole.take(pa.array(self.order))
        return self._taken[j]

    def _combined(self, j: int) -> pa.Array:
        return self.table.column(j).combine_chunks()

    def truth(self, var: str, condition: Expr) -> np.ndarray | None:
        """:func:`~.conditions.column_truth` of ``var``'s row-local ``condition``, once."""
        key = (var, id(condition))
        if key not in self.truths:
            self.truths[key] = self._rows(condition, column_truth)
        return self.truths[key]

    def refuted(self, var: str, condition: Expr,
                subsets: Mapping[str, frozenset[str]]) -> np.ndarray | None:
        """:func:`~.conditions.refuted` of ``var``'s ``condition``: the rows its leading
        row-local conjuncts make FALSE."""
        def local(c: Expr) -> bool:
            return row_local(c, var, subsets)
        return self._rows(condition, lambda e, frame: refuted(e, frame, local))

    def _rows(self, condition: Expr, over: Callable[[Expr, Frame], np.ndarray | None],
              ) -> np.ndarray | None:
        """``over(condition, frame)`` for every sorted row: a condition without
        ``PREV``/``NEXT`` reads its own row alone, so it is evaluated over the input as it
        is and the result put in sorted order (no column moved)."""
        if self.order is None or any(isinstance(x, Navigation) for x in walk(condition)):
            return over(condition, self.frame)
        found = over(condition, self._input)
        return None if found is None else found[self.order]


class _Columns(Mapping[str, pa.Array]):
    """Columns by upper-case name, each read by ``read(index)`` when first asked."""

    def __init__(self, names: dict[str, int], read: Callable[[int], pa.Array]) -> None:
        self.names, self.read = names, read

    def __getitem__(self, name: str) -> pa.Array:
        return self.read(self.names[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def sort(clause: MatchRecognize, table: pa.Table) -> Sorted:
    """``table`` in the clause's partitions and order (:func:`ordered`), no column moved
    yet (:class:`Sorted`)."""
    indices, ranks = _ordered(clause, table)
    moved = len(indices) and bool((indices[1:] <= indices[:-1]).any())  # else the identity
    return Sorted(table, indices if moved else None, ranks[indices], ranks)
