"""Exact products of transfer matrices over a sliding window of the stream.

The counting engines (:mod:`kleene.engines.count.ses`) read a stream as a word of
*tie groups* (the events that share one timestamp) and each group as a matrix
``M_g`` over the states of the pattern's automaton: ``M_g[p][q]`` is the number of
ways the group's events can take the automaton from state ``p`` to ``q`` (binding
none of them is one way, from ``p`` to ``p``). The number of substitutions built
from the groups ``a..b`` is then ``start · M_a ⋯ M_b · final``, the classical count
of accepting runs of a finite automaton by matrix products.

A match window (seed 001 Def. 3) makes the range ``a..b`` slide: :class:`SlidingProduct`
keeps the product of the matrices of a window as two stacks (the suffix products of the
older half, the running product of the newer half), so pushing a group at the end and
dropping one at the front cost O(1) matrix products amortised, whatever the window's
length. A transfer matrix is pushed :class:`Sparse` (its non-zero entries row by row:
an automaton's step has few successors), so each product costs O(n × its non-zeros),
O(n²) for a deterministic automaton's. Entries are Python ints: the counts are exact
at any size.
"""

from __future__ import annotations

Matrix = list[list[int]]
#: A matrix by its non-zero entries: row ``p`` is the ``(q, count)`` pairs with ``count ≠ 0``.
Sparse = list[list[tuple[int, int]]]


def identity(n: int) -> Matrix:
    """The n × n identity."""
    return [[int(i == j) for j in range(n)] for i in range(n)]


def sparse(m: Matrix) -> Sparse:
    """``m`` by its non-zero entries."""
    return [[(j, x) for j, x in enumerate(row) if x] for row in m]


def times_sparse(a: Matrix, m: Sparse) -> Matrix:
    """The product ``a · m``."""
    n = len(m)
    out: Matrix = []
    for row in a:
        acc = [0] * n
        for k, x in enumerate(row):
            if x:
                for j, y in m[k]:
                    acc[j] += x * y
        out.append(acc)
    return out


def sparse_times(m: Sparse, a: Matrix) -> Matrix:
    """The product ``m · a``."""
    n = len(m)
    out: Matrix = []
    for entries in m:
        acc = [0] * n
        for k, x in entries:
            for j, y in enumerate(a[k]):
                if y:
                    acc[j] += x * y
        out.append(acc)
    return out


def row_times(v: list[int], b: Matrix) -> list[int]:
    """The row vector ``v · b``."""
    acc = [0] * len(b[0])
    for k, x in enumerate(v):
        if x:
            for j, y in enumerate(b[k]):
                if y:
                    acc[j] += x * y
    return acc


class SlidingProduct:
    """The product, oldest first, of the matrices of a window of groups, as a queue.

    ``push`` appends a group's matrix, ``drop`` removes the oldest, ``row(p)`` is
    ``p · product`` for a state ``p`` and ``total`` is ``start · product · final`` for row
    ``start`` (a state) and the set of final states. Two stacks: ``front`` holds, for
    each of the older groups, the product from it to the last of them (its top is the
    oldest group); ``back`` the newer groups and their running product. Dropping from an
    empty ``front`` turns ``back`` over into it.
    """

    def __init__(self, n: int, start: int, final: frozenset[int]) -> None:
        self.n, self.start, self.final = n, start, final
        self.one = identity(n)   # shared, never written: every product is a new matrix
        self.front: list[tuple[int | float, Matrix]] = []
        self.back: list[int | float] = []
        self.back_matrices: list[Sparse] = []
        self.back_product: Matrix = self.one

    def __len__(self) -> int:
        return len(self.front) + len(self.back)

    def oldest(self) -> int | float:
        """The timestamp of the oldest group held (the queue is not empty)."""
        return self.front[-1][0] if self.front else self.back[0]

    def push(self, ts: int | float, m: Sparse) -> None:
        self.back.append(ts)
        self.back_matrices.append(m)
        self.back_product = times_sparse(self.back_product, m)

    def drop(self) -> None:
        if not self.front:
            acc = self.one
            for ts, m in zip(reversed(self.back), reversed(self.back_matrices), strict=True):
                acc = sparse_times(m, acc)
                self.front.append((ts, acc))
            self.back, self.back_matrices = [], []
            self.back_product = self.one
        self.front.pop()

    def row(self, p: int) -> list[int]:
        """``p · (product of the window)``: the runs from state ``p`` over the groups held,
        by the state they reach."""
        v = self.front[-1][1][p] if self.front else self.one[p]
        return row_times(v, self.back_product)

    def total(self) -> int:
        """``start · (product of the window) · final``: the runs from the start state to
        a final state over the groups held."""
        v = self.row(self.start)
        return sum(v[j] for j in self.final)
