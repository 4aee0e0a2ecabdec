"""Matches as columns: a batch of matches that bind the same variables.

The canonical match (:class:`~kleene.reference.match.Match`, docs/architecture.md,
"The shared core") is one Python object per match. Where an engine reports
tens of thousands of matches at once — a Spark task over a slice of the stock
stream ×10 reports ~23 k — every step after the engine (which slice owns the
match, its positions in the whole stream, its id, its output rows) cost a few
microseconds of Python per match: 0.9 s for 94 k matches, more than the
engine's 0.6 s (issue 14, ``local[1]`` within 2× of one process). A
:class:`MatchColumns` holds, per variable, each match's positions as a slice of
one flat array (``offsets``, as Arrow's list arrays), so those steps are
array operations; :meth:`MatchColumns.matches` gives the canonical matches
back, and :meth:`MatchColumns.texts` the same canonical JSON as
:meth:`Match.dumps <kleene.reference.match.Match.dumps>` (tested against it),
from which :func:`digest` makes the match id.

Engines that find their matches as arrays (the lazy chain over columns,
:mod:`kleene.engines.nfa.join`) give them so (``run_columns``); any other
engine's matches are gathered by :func:`match_batches`.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from kleene.engines.protocol import Counters
from kleene.reference.budget import Budget
from kleene.reference.match import Match, plain_name

#: Matches gathered per batch from an engine that reports them one by one.
CHUNK = 8192


def offsets_of(lengths: Any) -> np.ndarray:
    """The offsets (``n + 1``, from 0) of ``n`` runs of these lengths in one flat array."""
    return np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)


def arrow_ints(values: np.ndarray) -> Any:
    """The integers ``values`` as an Arrow array over the same memory: ``pyarrow.array``
    of a NumPy array imports ``numpy.ma`` (0.1 s, outside ``kleene match``'s startup
    floor: tests/test_cli_imports.py)."""
    import pyarrow as pa

    a = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(a.dtype), len(a), [None, pa.py_buffer(a)])


def digest(text: str) -> str:
    """The id of a match from its canonical JSON: 128 bits of BLAKE2b, in hex."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


@dataclass(frozen=True)
class MatchColumns:
    """``n`` matches binding exactly ``variables`` (sorted, as :class:`Match` keeps
    them): match ``k`` binds ``variables[v]`` to
    ``positions[v][offsets[v][k]:offsets[v][k + 1]]`` (ascending, never empty)."""

    variables: tuple[str, ...]
    offsets: tuple[np.ndarray, ...]
    positions: tuple[np.ndarray, ...]

    @classmethod
    def of(cls, matches: Iterable[Match]) -> list[MatchColumns]:
        """The matches as columns, one :class:`MatchColumns` per set of variables bound."""
        found = list(matches)
        bindings = [m.bindings for m in found]
        if not bindings:
            return []
        if len(set(map(len, bindings))) == 1:
            # Every match binds as many variables (the usual case): read all bindings in
            # one pass of C loops (no Python step per match), one group if the names agree.
            k, n = len(bindings[0]), len(bindings)
            items = list(itertools.chain.from_iterable(bindings))
            names = list(map(operator.itemgetter(0), items))
            parts = list(map(operator.itemgetter(1), items))
            if all(len(set(names[v::k])) == 1 for v in range(k)):
                lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
                flat = np.fromiter(itertools.chain.from_iterable(parts), dtype=np.int64,
                                   count=int(lengths.sum()))
                owner = np.repeat(np.tile(np.arange(k), n), lengths)
                return [cls(tuple(names[:k]),
                            tuple(offsets_of(lengths[v::k]) for v in range(k)),
                            tuple(flat[owner == v] for v in range(k)))]
        groups: dict[tuple[str, ...], list[Match]] = {}
        for m in found:
            groups.setdefault(m.variables, []).append(m)
        out = []
        for variables, ms in groups.items():
            offsets, positions = [], []
            for v in range(len(variables)):
                parts_ = [m.bindings[v][1] for m in ms]
                offsets.append(offsets_of([len(p) for p in parts_]))
                positions.append(np.fromiter(itertools.chain.from_iterable(parts_),
                                             dtype=np.int64, count=int(offsets[-1][-1])))
            out.append(cls(variables, tuple(offsets), tuple(positions)))
        return out

    @classmethod
    def from_rows(cls, ids: Any, variables: Any, positions: Any,
                  name: Callable[[str], str] = str) -> list[MatchColumns]:
        """Matches given one row per bound event, as the Spark runner's match rows are
        (``ids[i]``: row ``i``'s match, ``variables[i]``: its variable, under ``name``'s
        name, ``positions[i]``: its event; Arrow or NumPy arrays), one
        :class:`MatchColumns` per set of variables bound, with no Python step per match.
        A row given twice counts once, so a match given twice is one match (matches are
        values: :class:`Match`)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        rows = pa.table({"m": ids, "v": variables, "p": positions})
        rows = rows.group_by(["m", "v", "p"]).aggregate([]).combine_chunks()
        if not rows.num_rows:
            return []
        match = pc.dictionary_encode(rows.column("m").chunk(0)).indices.to_numpy()
        codes = pc.dictionary_encode(rows.column("v").chunk(0))
        given = [name(v) for v in codes.dictionary.to_pylist()]
        names = sorted(set(given))
        var = np.array([names.index(v) for v in given], np.int64)[codes.indices.to_numpy()]
        pos = rows.column("p").to_numpy().astype(np.int64)
        order = np.lexsort((pos, match))   # each match's rows together, by position
        match, var, pos = match[order], var[order], pos[order]
        held = np.zeros((int(match.max()) + 1, len(names)), dtype=bool)
        held[match, var] = True
        signatures, group = np.unique(held, axis=0, return_inverse=True)
        group = group.reshape(-1)
        out = []
        for g, signature in enumerate(signatures):
            members = np.flatnonzero(group == g)
            in_group = group[match] == g
            offsets, flat = [], []
            bound = np.flatnonzero(signature)
            for v in bound:
                chosen = in_group & (var == v)
                offsets.append(offsets_of(np.bincount(match[chosen],
                                                      minlength=len(held))[members]))
                flat.append(pos[chosen])
            out.append(cls(tuple(names[v] for v in bound), tuple(offsets), tuple(flat)))
        return out

    def __len__(self) -> int:
        return len(self.offsets[0]) - 1 if self.offsets else 0

    def lengths(self, v: int) -> np.ndarray:
        """How many positions each match binds to ``variables[v]``."""
        return np.diff(self.offsets[v])

    def first(self) -> np.ndarray:
        """Each match's first position (:attr:`Match.first`)."""
        firsts = [p[o[:-1]] for o, p in zip(self.offsets, self.positions, strict=True)]
        return np.minimum.reduce(firsts) if firsts else np.zeros(0, dtype=np.int64)

    def contiguous(self) -> np.ndarray:
        """Whether each match binds every position from its first to its last (seed 003
        Sec. 2, the ``contiguous`` policy), as a boolean mask."""
        if not self.variables:
            return np.zeros(0, dtype=bool)
        lasts = [p[o[1:] - 1] for o, p in zip(self.offsets, self.positions, strict=True)]
        bound = np.add.reduce([self.lengths(v) for v in range(len(self.variables))])
        return np.maximum.reduce(lasts) - self.first() + 1 == bound

    def take(self, keep: np.ndarray) -> MatchColumns:
        """The matches where ``keep`` (a boolean mask) holds, in order."""
        offsets, positions = [], []
        for v, p in enumerate(self.positions):
            lengths = self.lengths(v)
            offsets.append(offsets_of(lengths[keep]))
            positions.append(p[np.repeat(keep, lengths)])
        return MatchColumns(self.variables, tuple(offsets), tuple(positions))

    def mapped(self, origin: np.ndarray) -> MatchColumns:
        """The matches with position ``p`` read as ``origin[p]`` (``origin`` ascending:
        from a renumbered group's positions back to the stream's)."""
        return MatchColumns(self.variables, self.offsets,
                            tuple(np.asarray(origin)[p] for p in self.positions))

    def matches(self) -> Iterator[Match]:
        """The canonical matches, in order."""
        columns = []
        for var, o, p in zip(self.variables, self.offsets, self.positions, strict=True):
            flat = p.tolist()
            if len(flat) == len(self):
                columns.append([(var, (x,)) for x in flat])
            else:
                bounds = o.tolist()
                columns.append([(var, tuple(flat[a:b])) for a, b in
                                zip(bounds, bounds[1:], strict=False)])
        return map(Match, zip(*columns, strict=True))

    def texts(self) -> list[str]:
        """Each match's canonical JSON, as :meth:`Match.dumps` writes it (built by
        Arrow's string kernels; by :meth:`Match.dumps` when a variable's name would
        need escaping)."""
        return self.text_array().to_pylist()

    def text_array(self) -> Any:
        """:meth:`texts` as an Arrow string array (sorted, joined without Python strings)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if not len(self):
            return pa.array([], pa.string())
        if not all(plain_name(v) for v in self.variables):
            return pa.array([m.dumps() for m in self.matches()], pa.string())
        parts: list[Any] = []
        for k, (var, o, p) in enumerate(zip(self.variables, self.offsets, self.positions,
                                            strict=True)):
            cells = arrow_ints(p).cast(pa.string())
            if len(p) != len(self):   # some match binds the variable to several positions
                cells = pc.binary_join(pa.ListArray.from_arrays(arrow_ints(o.astype(np.int32)),
                                                                cells), ", ")
            parts += [("{" if k == 0 else "], ") + f'"{var}": [', cells]
        return pc.binary_join_element_wise(*parts, "]}", "")

    def ids(self) -> list[str]:
        """Each match's id (:func:`digest` of its canonical JSON)."""
        return [digest(t) for t in self.texts()]


def gathered(matches: Iterable[Match]) -> Iterator[MatchColumns]:
    """Matches reported one by one, as columns :data:`CHUNK` at a time."""
    found = iter(matches)
    while chunk := list(itertools.islice(found, CHUNK)):
        yield from MatchColumns.of(chunk)


def match_batches(compiled: Any, events: Any, *, counters: Counters | None = None,
                  budget: Budget | None = None) -> Iterator[MatchColumns]:
    """The matches of a compiled engine over ``events`` as columns: its own
    ``run_columns`` where it has one, else its ``run`` :func:`gathered` (counted into
    ``counters``, within ``budget``, as :meth:`~kleene.engines.protocol.Compiled.run`)."""
    columnar = getattr(compiled, "run_columns", None)
    if columnar is not None:
        return columnar(events, counters=counters, budget=budget)
    return gathered(compiled.run(events, counters=counters, budget=budget))


def spent_batches(batches: Iterable[MatchColumns], budget: Budget) -> Iterator[MatchColumns]:
    """``batches`` of matches, one step of ``budget`` per match (as
    :func:`~kleene.engines.fastest.spent` spends them one by one), a batch at a time:
    past the budget, :class:`~kleene.reference.errors.BudgetExceeded`."""
    for batch in batches:
        budget.spend(len(batch))
        yield batch
