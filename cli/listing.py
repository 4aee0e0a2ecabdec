"""``kleene match``'s matches printed as JSON Lines in canonical order, in memory bounded
by a run of matches, not by their number (issue 33, item 5).

The engine's matches come as columns (:func:`~kleene.engines.match_columns.match_batches`:
as the engine finds them where it can, else gathered 8,192 at a time) and each batch
becomes two arrays: its matches' first positions and
their canonical JSON (:meth:`~kleene.engines.match_columns.MatchColumns.text_array`,
Arrow's string kernels); no Python object outlives its batch. Up to :data:`RUN` matches
are sorted in memory (first position, then canonical JSON: the order ``kleene match``
prints, :func:`kleene.cli.common.canonical_order`); past it each sorted run goes to a
temporary folder as an Arrow IPC file, and the runs are merged :data:`BATCH` rows of
each at a time (:func:`merged`). A match reported twice is printed once. Seq3 at 60 s
on the stock stream (12,002,544 matches): docs/memory.md gives the peak before and
after.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TextIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.cli.result_rows import text_bytes
from kleene.engines.fastest import claiming_engine
from kleene.engines.match_columns import (
    MatchColumns,
    arrow_ints,
    gathered,
    match_batches,
    spent_batches,
)
from kleene.engines.protocol import Counters, Query
from kleene.reference.budget import Budget
from kleene.reference.events import Event
from kleene.reference.match import Match, readable_name

#: Matches sorted in memory at once; more are spilled as sorted runs.
RUN = 1 << 20
#: Rows of each run read, merged and printed at a time.
BATCH = 1 << 15
#: Rows of events handed to the engine at a time: an engine may hold the matches of a
#: batch at once (the windows framework returns those of the windows a batch completes
#: as one list), so the batch bounds them too.
ENGINE_ROWS = 8192
_KEYS = [("first", "ascending"), ("text", "ascending")]


def print_matches(name: str, query: Query, events: Iterable[Event], budget: Budget,
                  out: TextIO | None) -> tuple[int, Counters]:
    """Run engine ``name`` on ``events`` within ``budget`` (one step per match, as
    :func:`~kleene.engines.fastest.run_engine`) and print its matches to ``out`` in
    canonical order, one canonical JSON line each (``None``: none, only counted); how
    many, and the run's counters. Nothing is printed unless the run ends."""
    found, counters = engine_matches(name, query, events, budget)
    return print_columns(found, out), counters


def print_found(matches: Iterable[Match], out: TextIO | None) -> int:
    """Print ``matches`` to ``out`` in canonical order, one canonical JSON line each
    (``None``: none, only counted), once they are all found; how many."""
    return print_columns(gathered(matches), out)


def print_columns(found: Iterable[MatchColumns], out: TextIO | None) -> int:
    """Print the matches ``found`` (as columns, a batch at a time) to ``out`` in canonical
    order, one canonical JSON line each (``None``: none, only counted); how many."""
    printed = 0
    with tempfile.TemporaryDirectory(prefix="kleene-matches-") as folder:
        for texts in sorted_texts(map(readable_columns, found), Path(folder)):
            if out is not None:
                out.write(text_bytes(pc.binary_join_element_wise(texts, "\n", "")).decode())
            printed += len(texts)
    return printed


def engine_matches(name: str, query: Query, events: Iterable[Event],
                   budget: Budget) -> tuple[Iterator[MatchColumns], Counters]:
    """Engine ``name``'s matches over ``events`` within ``budget`` (one step per match, as
    :func:`~kleene.engines.fastest.run_engine`, spent a batch at a time), as columns a
    batch at a time (:func:`~kleene.engines.match_columns.match_batches`: the engine's
    own where it finds them so, no match made), and the run's counters (read once the
    matches are exhausted)."""
    compiled = claiming_engine(name, query, "--engine or --policy").compile(query)
    counters = Counters()
    budget.what = f"running engine {name}"
    return spent_batches(match_batches(compiled, events, counters=counters, budget=budget),
                         budget), counters


def readable_columns(g: MatchColumns) -> MatchColumns:
    """``g`` with each variable under its printed name (:func:`readable_name`), in the
    names' order (as :class:`~kleene.reference.match.Match` sorts them)."""
    names = [readable_name(v) for v in g.variables]
    if names == list(g.variables):
        return g
    order = sorted(range(len(names)), key=names.__getitem__)
    return MatchColumns(tuple(names[i] for i in order), tuple(g.offsets[i] for i in order),
                        tuple(g.positions[i] for i in order))


def sorted_texts(found: Iterable[MatchColumns], folder: Path,
                 run: int | None = None) -> Iterator[pa.Array]:
    """The canonical JSON of the matches ``found``, in canonical order, each once, in
    arrays of about :data:`BATCH`; runs of ``run`` matches (default :data:`RUN`) spilled
    to ``folder`` when there are more."""
    for piece in sorted_rows(found, folder, run):
        yield piece["text"].combine_chunks()


def sorted_rows(found: Iterable[MatchColumns], folder: Path, run: int | None = None,
                more: Callable[[MatchColumns], dict[str, pa.Array]] | None = None
                ) -> Iterator[pa.Table]:
    """The matches ``found`` in canonical order, each once, as tables of about
    :data:`BATCH` rows: ``first`` (the first position), ``text`` (the canonical JSON)
    and the columns ``more`` gives of a batch (a column a batch does not give is null in
    its rows); runs of ``run`` matches (default :data:`RUN`) spilled to ``folder`` when
    there are more. Nothing is yielded before ``found`` is exhausted."""
    limit = RUN if run is None else run
    held: list[pa.Table] = []
    count, runs = 0, list[Path]()
    for g in found:
        if not len(g):
            continue
        held.append(pa.table({"first": arrow_ints(g.first().astype(np.int64)),
                              "text": g.text_array().cast(pa.string()),
                              **(more(g) if more is not None else {})}))
        count += len(g)
        if count >= limit:
            runs.append(_spill(_sorted(held), folder / f"run-{len(runs)}.arrow"))
            held, count = [], 0
    if not runs:
        pieces: Iterator[pa.Table] = iter(_sorted(held).to_batches(BATCH)) if held else iter(())
    else:
        if held:
            runs.append(_spill(_sorted(held), folder / f"run-{len(runs)}.arrow"))
        pieces = merged(runs)
    yield from _once(pieces)


def _sorted(held: list[pa.Table]) -> pa.Table:
    table = pa.concat_tables(held, promote_options="default")
    return table.take(pc.sort_indices(table, sort_keys=_KEYS))


def _spill(table: pa.Table, path: Path) -> Path:
    with pa.OSFile(str(path), "wb") as sink, \
            pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=BATCH)
    return path


def merged(runs: list[Path]) -> Iterator[pa.Table]:
    """The rows of the sorted ``runs`` (Arrow IPC files), in order: each step takes,
    from every run, its rows up to the least of the runs' last rows read (the frontier:
    every row after it in any run sorts after it), sorts them and yields them. Each run
    is read, not memory-mapped: a mapped run's pages stayed resident once read, so the
    merge's peak grew with the runs' size on disk (805 MB for seq3's 12 M matches at 60 s,
    docs/memory.md); read, a batch's memory goes with its last row."""
    readers = [pa.ipc.open_file(pa.OSFile(str(p))) for p in runs]
    nexts = [0] * len(readers)
    pending: list[pa.Table | None] = [None] * len(readers)

    def refill(i: int) -> None:
        while (p := pending[i]) is None or not len(p):
            if nexts[i] >= readers[i].num_record_batches:
                pending[i] = None
                return
            pending[i] = pa.Table.from_batches([readers[i].get_batch(nexts[i])])
            nexts[i] += 1

    for i in range(len(readers)):
        refill(i)
    while any(p is not None for p in pending):
        lasts = [(int(p["first"][-1].as_py()), p["text"][-1].as_py())
                 for p in pending if p is not None]
        first, text = min(lasts)
        taken = []
        for i, p in enumerate(pending):
            if p is None:
                continue
            upto = _upto(p, first, text)
            taken.append(p.slice(0, upto))
            pending[i] = p.slice(upto)
            refill(i)
        yield _sorted(taken)


def _upto(part: pa.Table, first: int, text: str) -> int:
    """How many of ``part``'s leading rows (sorted) sort at or before ``(first, text)``."""
    firsts = part["first"].to_numpy()
    below = int(np.searchsorted(firsts, first, side="left"))
    same = int(np.searchsorted(firsts, first, side="right"))
    if same == below:
        return below
    tied = part["text"].slice(below, same - below)
    return below + int(pc.sum(pc.less_equal(tied, text)).as_py() or 0)


def _once(pieces: Iterator[pa.Table | pa.RecordBatch]) -> Iterator[pa.Table]:
    """The rows of ``pieces`` (in order), a row whose text equals the one before it
    dropped."""
    last: str | None = None
    for piece in pieces:
        if isinstance(piece, pa.RecordBatch):
            piece = pa.Table.from_batches([piece])
        texts = piece["text"].combine_chunks()
        if not len(texts):
            continue
        # each text against the one before it (slices of one array: no copy)
        again = np.concatenate(([texts[0].as_py() == last], pc.equal(
            texts.slice(1), texts.slice(0, len(texts) - 1)).to_numpy(zero_copy_only=False)))
        last = texts[-1].as_py()
        kept = piece if not again.any() else piece.filter(pa.array(~again))
        if len(kept):
            yield kept
