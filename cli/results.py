"""Match sets as files: ``--output FILE.{jsonl,csv,parquet}`` in two layouts.

``long`` (the default): one row per (match, variable, event), with the match's
number, the variable, the event's position and timestamp, and the event
attributes named by ``--columns``. ``wide``: one row per match (SQL's
MATCH_RECOGNIZE ``ONE ROW PER MATCH`` with ``MEASURES``): the match's number,
its first and last timestamps, and one column per ``var.attr`` of
``--columns`` (a list for a group variable), named ``var_attr``; without
``--columns``, one column per variable with its positions.

Column names are ones SQL engines take without quoting (:func:`column_name`:
``v.user`` is ``v_user``, any character but an ASCII letter, digit or ``_``
becomes ``_``); two ``--columns`` that would give one name, or a name of the
layout's own columns (``match``, ``first_ts``, ...), are refused in one line
before any work (docs/outputs.md, "Columns").

Matches are numbered in canonical order (first position, then canonical JSON),
as ``kleene match`` prints them. Timestamps go back in their input type: when
the input's were datetimes (ISO text in CSV or JSON Lines, a Parquet timestamp
column), ISO 8601 text in UTC in JSON Lines and CSV and a timestamp column in
Parquet; otherwise the numbers they were. A ``--columns`` of ``ts`` (``v.ts``) is written
as the layout's own timestamps are: one unit per output. A file that
exists is an error unless ``--overwrite`` is given, and so is a target that is, or
links to, the input; both are checked before any work (docs/architecture.md, "Bad
input"). The file is written through a temporary file renamed into place
(:mod:`kleene.data.outputs`): a failure leaves the previous output as it was.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.cli import listing, result_rows
from kleene.cli.result_cells import Column, iso_text, json_default, text_value
from kleene.data.outputs import OutputError, refuse_inputs, replacing
from kleene.data.plausible import nearest
from kleene.engines.match_columns import MatchColumns, arrow_ints
from kleene.reference.events import Event
from kleene.reference.match import Match, readable_name
from kleene.reference.query import Query

#: Output formats by file extension.
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv",
           ".parquet": "parquet", ".pq": "parquet"}

LAYOUTS = ("long", "wide")


def output_format(path: str) -> str:
    """The format of ``path`` from its extension; an :class:`OutputError` otherwise."""
    if not path:
        raise OutputError("--output needs a path: FILE.jsonl, FILE.csv or FILE.parquet")
    suffix = Path(path.rstrip("/")).suffix.lower()
    if suffix not in FORMATS:
        raise OutputError(f"--output {path}: unknown extension {suffix or '(none)'!r}; use "
                          ".jsonl, .csv or .parquet")
    return FORMATS[suffix]


def check_output(path: str, overwrite: bool, inputs: Sequence[str]) -> str:
    """Check ``path`` before any work: a known extension, not one of ``inputs`` (the files
    the command reads) nor a link to one, a writable folder, and no existing file unless
    ``overwrite``. Returns the format."""
    fmt = output_format(path)
    refuse_inputs(path, inputs, option="--output")
    target = Path(path)
    if target.exists() and not overwrite:
        raise OutputError(f"--output {path} exists; give --overwrite to replace it")
    if target.is_dir() and overwrite and any(target.iterdir()) and not _spark_output(target):
        raise OutputError(f"--output {path} is a folder that is not a previous output; "
                          "remove it or choose another path")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"--output {path}: the folder {parent} does not exist")
    return fmt


def _spark_output(folder: Path) -> bool:
    return all(p.name.startswith(("part-", "_", ".")) for p in folder.iterdir())


def parse_columns(text: str, layout: str, variables: Sequence[str]) -> list[tuple[str, str]]:
    """``--columns``: ``var.attr`` pairs for ``wide``, attribute names (``attr`` or
    ``var.attr``, read as ``attr``) for ``long``; an unknown variable is an error."""
    out: list[tuple[str, str]] = []
    for item in (c.strip() for c in text.split(",")):
        if not item:
            continue
        var, dot, attr = item.rpartition(".")
        if layout == "wide" and not dot:
            raise OutputError(f"--columns {item!r}: the wide layout needs var.attr, e.g. "
                              f"{variables[0] if variables else 'v'}.{item}")
        if dot and var not in variables:
            raise OutputError(f"--columns {item!r}: no variable {var!r} in the pattern "
                              f"(variables: {', '.join(variables)})")
        out.append((var, attr))
    column_names(layout, out, variables)   # a collision is refused before any work
    return out


#: The columns each layout writes before those of ``--columns``.
FIXED = {"long": ("match", "variable", "position", "ts"),
         "wide": ("match", "first_ts", "last_ts")}


def column_name(*parts: str) -> str:
    """A column name SQL engines take without quoting: ``parts`` joined by ``_``, every
    character but an ASCII letter, digit or ``_`` replaced by ``_``, and a ``_`` in front
    of a leading digit (``column_name("v", "user")`` is ``v_user``)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", "_".join(parts))
    return f"_{name}" if name[:1].isdigit() or not name else name


def column_names(layout: str, columns: Sequence[tuple[str, str]],
                 variables: Sequence[str]) -> list[str]:
    """The names of the columns after :data:`FIXED` in ``layout``, in order: one per
    attribute (``long``), per ``var.attr`` (``wide``), per variable (``wide`` without
    ``--columns``). Two sources of one name, or a fixed column's name, are an
    :class:`OutputError`."""
    if layout == "long":
        sources = {f"{a}": column_name(a) for _, a in columns}
    elif columns:
        sources = {f"{v}.{a}": column_name(v, a) for v, a in columns}
    else:
        sources = {v: column_name(v) for v in variables}
    taken: dict[str, str] = {name: f"the {layout} layout's own column" for name in FIXED[layout]}
    for source, name in sources.items():
        if name in taken:
            raise OutputError(f"--columns {source} would be the column {name}, which is "
                              f"{taken[name]}; leave one out")
        taken[name] = f"--columns {source}'s"
    return list(sources.values())


def check_columns(columns: Sequence[tuple[str, str]], present: Collection[str], *,
                  allow_missing: bool = False) -> list[str]:
    """Refuse the first ``--columns`` attribute no event has (an :class:`OutputError`
    naming the nearest of the columns ``present``), as the pattern's own attributes are
    refused; with ``allow_missing``, the warnings to say instead (each writes an empty
    column)."""
    out = []
    for var, attr in dict.fromkeys(columns):
        if attr in present:
            continue
        near = nearest(attr, present)
        hint = f"the nearest: {', '.join(near)}" if near else \
            f"the columns: {', '.join(sorted(present))}"
        item = f"{var}.{attr}" if var else attr
        if not allow_missing:
            raise OutputError(f"--columns {item}: the events have no attribute {attr!r}; "
                              f"{hint} (--allow-missing writes it as an empty column)")
        out.append(f"--columns {item}: the events have no attribute {attr!r}, so its "
                   f"column is empty; {hint}")
    return out


def repeated_variables(query: Query) -> frozenset[str]:
    """The variables of ``query``'s pattern that bind several events (the language's
    ``repeated``), named as outputs name them (:func:`readable_name`)."""
    found = query.lang.repeated(query.pattern) if query.lang.repeated else frozenset()
    return frozenset(readable_name(v) for v in found)


def match_rows(found: Iterable[Match] | Sequence[MatchColumns],
               stream: Sequence[Event] | Mapping[int, Event], layout: str,
               columns: Sequence[tuple[str, str]], variables: Sequence[str],
               datetimes: bool, repeated: frozenset[str] = frozenset()) -> list[Column]:
    """The output rows of ``found`` (matches, or matches as columns) over ``stream`` in
    ``layout``, as Arrow columns (:mod:`kleene.cli.result_rows`); ``repeated``: the
    variables that bind several events (a list in every row of their wide columns)."""
    given = list(found)
    groups = [g for g in given if isinstance(g, MatchColumns)]
    if len(groups) < len(given):
        groups = MatchColumns.of(m for m in given if isinstance(m, Match))
    m = result_rows.ordered(groups, variables)
    events = result_rows.EventCells(stream, datetimes)
    named = column_names(layout, columns, variables)
    if layout == "long":
        attrs = list(dict.fromkeys(a for _, a in columns))
        return result_rows.long_columns(m, events, named, attrs)
    return result_rows.wide_columns(m, events, named, columns, variables, repeated)


def row_count(cols: Sequence[Column]) -> int:
    """How many rows ``cols`` hold."""
    return len(cols[0].cells) if cols else 0


def sorted_rows(found: Iterable[MatchColumns], folder: Path,
                stream: Sequence[Event] | Mapping[int, Event], layout: str,
                columns: Sequence[tuple[str, str]], variables: Sequence[str],
                datetimes: bool, repeated: frozenset[str] = frozenset()
                ) -> Iterator[list[Column]]:
    """The rows of :func:`match_rows`, a batch of matches at a time, from matches given
    a batch at a time (an engine's, :func:`~kleene.engines.match_columns.gathered`):
    sorted and spilled to ``folder`` as ``kleene match`` sorts what it prints
    (:func:`kleene.cli.listing.sorted_rows`, the positions of each variable carried as a
    list column), so memory holds a run of matches, not all (issue 33 item 5). A
    variable that binds other than one event in some match is a list in every batch's
    wide columns; at least one batch (empty when nothing matched)."""
    several: set[str] = set()      # bound to other than one event in some match
    seen: set[str] = set()

    def lists(g: MatchColumns) -> dict[str, pa.Array]:
        seen.update(g.variables)
        several.update(v for v in variables if v not in g.variables)
        out = {}
        for i, v in enumerate(g.variables):
            if (g.lengths(i) != 1).any():
                several.add(v)
            out[_LIST + v] = pa.LargeListArray.from_arrays(arrow_ints(g.offsets[i]),
                                                           arrow_ints(g.positions[i]))
        return out

    events = result_rows.EventCells(stream, datetimes)
    named = column_names(layout, columns, variables)
    start, given = 0, False
    for piece in chain(listing.sorted_rows(map(listing.readable_columns, found), folder,
                                           more=lists), [None]):
        if piece is None and given:
            return
        given = True
        names = list(variables) + sorted(seen - set(variables))
        m = _ordered(piece, names)
        if layout == "long":
            yield result_rows.long_columns(m, events, named,
                                           list(dict.fromkeys(a for _, a in columns)), start)
        else:
            yield result_rows.wide_columns(m, events, named, columns, variables,
                                           repeated | several, start)
        start += len(m)


#: The prefix of a variable's column of positions in :func:`sorted_rows`'s tables.
_LIST = "positions of "


def _ordered(piece: pa.Table | None, names: Sequence[str]) -> result_rows.Ordered:
    """The matches of a sorted table of :func:`sorted_rows` (``None``: none)."""
    lengths, positions = [], []
    for v in names:
        if piece is None or _LIST + v not in piece.column_names:
            n = 0 if piece is None else piece.num_rows
            lengths.append(np.zeros(n, np.int64))
            positions.append(np.zeros(0, np.int64))
            continue
        lists = piece[_LIST + v].combine_chunks()
        lengths.append(pc.fill_null(pc.list_value_length(lists), 0)
                       .to_numpy(zero_copy_only=False).astype(np.int64))
        positions.append(lists.flatten().to_numpy(zero_copy_only=False).astype(np.int64))
    return result_rows.Ordered(tuple(names), tuple(lengths), tuple(positions))


def write_matches(batches: Iterable[Sequence[Column]], path: str,
                  fmt: str) -> tuple[int, int]:
    """Write match rows, a batch at a time (:func:`match_rows`, :func:`sorted_rows`), to
    ``path`` as ``fmt`` (``jsonl``, ``csv`` or ``parquet``), through a temporary file
    renamed into place (:func:`kleene.data.outputs.replacing`); how many matches and
    rows (the matches numbered from 0 on, the last number plus one)."""
    written = [0, 0]

    def tallied() -> Iterator[Sequence[Column]]:
        for cols in batches:
            if row_count(cols):
                written[0] = int(cols[0].cells.typed()[-1].as_py()) + 1
                written[1] += row_count(cols)
            yield cols

    with replacing(path, option="--output", over_folder=True) as temporary:  # checked
        try:
            with open(temporary, "wb") as out:  # a file, not a path: pyarrow removes a
                result_rows.write_to(tallied(), out, fmt)  # path it fails to write (/dev/full)
        except OutputError as err:
            raise OutputError(f"cannot write --output {path}: {err}") from None
        except (ValueError, TypeError) as err:
            kind = type(err).__name__
            raise OutputError(f"cannot write --output {path}: {kind}: {err}") from None
    return written[0], written[1]


def write(rows_: list[dict[str, Any]], path: str, fmt: str, header: Sequence[str]) -> None:
    """Write ``rows_`` to ``path`` as ``fmt`` (``jsonl``, ``csv`` or ``parquet``), through a
    temporary file renamed into place (:func:`kleene.data.outputs.replacing`)."""
    with replacing(path, option="--output", over_folder=True) as temporary:  # checked
        try:
            _write(rows_, temporary, fmt, header)
        except (ValueError, TypeError) as err:
            kind = type(err).__name__
            raise OutputError(f"cannot write --output {path}: {kind}: {err}") from None


def _write(rows_: list[dict[str, Any]], path: str, fmt: str, header: Sequence[str]) -> None:
    if fmt == "jsonl":
        with open(path, "w", encoding="utf-8") as f:
            for r in rows_:
                f.write(json.dumps({k: iso_text(v) for k, v in r.items()},
                                   ensure_ascii=False, default=json_default) + "\n")
    elif fmt == "csv":
        with open(path, "w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(header))
            writer.writeheader()
            for r in rows_:
                writer.writerow({k: text_value(v) for k, v in r.items()})
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist(rows_) if rows_ else \
            pa.table({name: pa.array([], pa.null()) for name in header})
        with open(path, "wb") as out:   # a file, not a path: pyarrow removes a path it
            pq.write_table(table, out)     # fails to write (/dev/full, as root, say)


def header(layout: str, columns: Sequence[tuple[str, str]], variables: Sequence[str]) -> list[str]:
    """The column names of ``layout``."""
    return [*FIXED[layout], *column_names(layout, columns, variables)]


def _parquet_datetimes(path: str, field: str) -> bool:
    try:
        import pyarrow as pa
        import pyarrow.dataset as ds

        schema = ds.dataset(path, format="parquet").schema
    except Exception:  # unreadable here: the loader has said why already
        return False
    index = schema.get_field_index(field)
    return index >= 0 and (pa.types.is_timestamp(schema.field(index).type)
                           or pa.types.is_date(schema.field(index).type))


def input_has_datetimes(path: str, ts: str | None) -> bool:
    """Whether the input's timestamps are datetimes (then outputs write them back as
    datetimes): a Parquet timestamp column, or an ISO datetime in the first row of a
    CSV or JSON Lines file."""
    import gzip

    name = path.lower()
    if name.endswith((".parquet", ".pq")):
        return _parquet_datetimes(path, ts or "ts")
    opener: Callable[..., Any] = gzip.open if name.endswith(".gz") else open
    field = ts or "ts"
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline="") as f:
            if ".csv" in name:
                first = next(csv.DictReader(f), None)
            elif ".jsonl" in name or ".ndjson" in name or name.endswith((".json", ".json.gz")):
                line = f.readline()
                first = json.loads(line) if line.strip() else None
            else:
                return False
    except (OSError, ValueError, UnicodeDecodeError, csv.Error):
        return False
    value = first.get(field) if isinstance(first, dict) else None
    if not isinstance(value, str):
        return False
    try:
        float(value)
        return False
    except ValueError:
        return True
