"""Conditions and iterations over the instances of the columnar chain (:mod:`.join`).

Seed 003 Sec. 2.2 evaluates an edge's predicate on the instantiation it
creates; the chain over columns (:mod:`.join`) creates the instances of a
state all at once, as arrays of row indices into each slot's candidate
events. Two pieces work on those arrays:

- :class:`InstanceColumns`: a condition over several single-event variables,
  evaluated for every instance at once with the three-valued semantics of the
  reference (:class:`~kleene.engines.columns.ArrowColumns`, whose
  comparisons this reuses): each ``v.A`` is the column ``A`` of ``v``'s
  candidates gathered at the instances' indices. With one event per variable
  a relationship has one instantiation, so "holds" is "true" there
  (:func:`~kleene.reference.conditions.holds`);
- :func:`subsets`: the iterate edge of Sec. 4.5 ("all subsets" of the
  buffered events that fit), for every instance and every size ``l..m`` at
  once: the subsets of a contiguous range of candidates, as index arrays.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from functools import lru_cache

import numpy as np
import pyarrow as pa

from kleene.data.columnar import Columns as EventColumns
from kleene.data.timestamps import int64_array, numeric_array
from kleene.engines.columns import NUM, ArrowColumns, T, kind_code
from kleene.reference.conditions import And as CondAnd
from kleene.reference.conditions import Attr, Cmp, Condition, Const, Not, Term, Truth, holds
from kleene.reference.conditions import Or as CondOr
from kleene.reference.errors import Unsupported


def columnar(c: Condition) -> bool:
    """Whether :class:`InstanceColumns` evaluates ``c`` (comparisons of attributes and
    constants under ``AND``/``OR``/``NOT``; no ``prev``, no aggregate)."""
    if isinstance(c, Cmp):
        return all(isinstance(t, (Attr, Const)) for t in (c.left, c.right))
    if isinstance(c, (CondAnd, CondOr)):
        return all(columnar(p) for p in c.parts)
    if isinstance(c, Not):
        return columnar(c.part)
    return isinstance(c, Truth)


class Candidates:
    """One slot's candidate events as columns, and their attributes as operands."""

    def __init__(self, columns: EventColumns) -> None:
        self.arrow = ArrowColumns(columns)

    def operand(self, attr: str) -> tuple[np.ndarray, dict[int, object]]:
        return self.arrow._attribute(attr)


class InstanceColumns(ArrowColumns):
    """Conditions over the variables of ``n`` instances: ``bound[var]`` is the slot's
    :class:`Candidates` and the index of each instance's event among them."""

    def __init__(self, n: int, bound: Mapping[str, tuple[Candidates, np.ndarray]]) -> None:
        self.n = n
        self.bound = bound
        self.var = ""
        self._terms: dict[Attr, tuple[np.ndarray, dict[int, object]]] = {}

    def holds(self, c: Condition) -> np.ndarray:
        """Where ``c`` is true per instance; row by row (the reference's
        :func:`~kleene.reference.conditions.holds` on each instance's events) where the
        columns cannot decide it exactly (a text column with numbers past 2**53)."""
        try:
            return self.truth(c) == T
        except Unsupported:
            events = {v: (cands.arrow.batch, idx) for v, (cands, idx) in self.bound.items()}
            return np.fromiter((holds(c, {v: (batch[int(idx[i])],)
                                          for v, (batch, idx) in events.items()})
                                for i in range(self.n)), dtype=bool, count=self.n)

    def _arrow_term(self, t: Term) -> tuple[np.ndarray | int, dict[int, object]]:
        if isinstance(t, Const):
            code = kind_code(t.value)
            return code, {code: t.value if code == NUM else pa.scalar(t.value)}
        assert isinstance(t, Attr)
        if t not in self._terms:
            cands, idx = self.bound[t.var]
            kinds, values = cands.operand(t.attr)
            take = int64_array(idx)
            self._terms[t] = (kinds[idx], {k: _take(v, idx, take) for k, v in values.items()})
        return self._terms[t]


def _take(values: np.ndarray | pa.Array, idx: np.ndarray, take: pa.Array) -> object:
    if isinstance(values, np.ndarray):
        return numeric_array(values[idx])
    return values.take(take)


@lru_cache(maxsize=256)
def _combinations(k: int, j: int) -> np.ndarray:
    """Every ``j``-subset of ``range(k)``, increasing, one per row."""
    rows = list(itertools.combinations(range(k), j))
    return np.array(rows, dtype=np.int64).reshape(len(rows), j)


def count_subsets(lo: np.ndarray, hi: np.ndarray, low: int, high: int) -> int:
    """How many subsets :func:`subsets` would enumerate (checked against the budget first)."""
    sizes, times = np.unique(np.maximum(hi - lo, 0), return_counts=True)
    return sum(int(n) * sum(math.comb(int(k), j) for j in range(low, min(int(k), high) + 1))
               for k, n in zip(sizes, times, strict=True))


def subsets(lo: np.ndarray, hi: np.ndarray, low: int, high: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """For instance ``r``, every subset of ``low..high`` candidates among ``lo[r]..hi[r]-1``:
    ``(rows, chosen)``, the instance of each subset and its candidate indices
    (``-1``-padded to ``high`` columns, increasing)."""
    k = np.maximum(hi - lo, 0)
    rows_out: list[np.ndarray] = []
    chosen_out: list[np.ndarray] = []
    for size in np.unique(k):
        if size < low:
            continue
        which = np.flatnonzero(k == size)
        for j in range(low, min(int(size), high) + 1):
            combos = _combinations(int(size), j)
            rows = np.repeat(which, len(combos))
            picked = lo[rows][:, None] + np.tile(combos, (len(which), 1))
            pad = np.full((len(rows), high), -1, dtype=np.int64)
            pad[:, :j] = picked
            rows_out.append(rows)
            chosen_out.append(pad)
    if not rows_out:
        return np.zeros(0, dtype=np.int64), np.zeros((0, high), dtype=np.int64)
    return np.concatenate(rows_out), np.concatenate(chosen_out)
