"""A CSV file's splits typed on their own and agreed (engines/spark/csv_splits.py, issue 33):
split at every byte boundary, the rows, values and column types equal what one reader of
the whole file gives — the single-process loader (``load_events``), each column given the
one type the Spark path gives a column (``bigint`` when every cell is a 64-bit integer,
``double`` when every cell is a number, else ``string``) — or the splits decline, and
then the loader refuses the file or the file holds a ``"``. No Spark runs here."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kleene.data.loaders import load_events
from kleene.data.textvalues import text_value
from kleene.engines.spark.csv_splits import agree, header, parse, split_stats, typed, typed_text
from kleene.engines.spark.text_splits import Splits, read_split
from kleene.reference.errors import StreamError

EVERY = 3
Typed = tuple[dict[str, str], dict[str, list[object]]]


def whole_file(path: Path) -> Typed | None:
    """The expected types and values: the loader's stream, each column of one Spark type
    by the rule above (cells typed one by one by ``text_value``); ``None`` when the loader
    refuses the file."""
    try:
        s = load_events(path)
    except StreamError:
        return None
    assert s.columns is not None
    names = header(path.read_bytes())
    assert names is not None
    values: dict[str, list[object]] = {}
    types: dict[str, str] = {}
    for name in names:
        if name == "ts":
            values[name] = s.columns.ts.to_pylist()
            types[name] = "double" if any(isinstance(v, float) for v in values[name]) \
                else "bigint"
            continue
        raw = s.columns.attrs.column(name).to_pylist()
        cells = [None if c is None else text_value(c) if isinstance(c, str) else c for c in raw]
        present = [c for c in cells if c is not None]
        if all(isinstance(c, int) and -(2**63) <= c < 2**63 for c in present):
            types[name], values[name] = "bigint", cells
        elif all(isinstance(c, (int, float)) for c in present):
            types[name] = "double"
            values[name] = [None if c is None else float(c) for c in cells]
        else:
            types[name] = "string"
            values[name] = [None if c is None else str(c) if not isinstance(c, str) else c
                            for c in raw]
    return types, values


def in_splits(path: Path, cuts: list[int]) -> Typed | None:
    """The types and values the splits ``[0, c1), [c1, c2), ...`` agree on, each split
    parsed and typed on its own; ``None`` when they decline."""
    size = path.stat().st_size
    edges = [0, *cuts, size]
    splits = Splits(str(path), tuple(zip(edges, edges[1:], strict=False)), False)
    names = header(path.read_bytes())
    if names is None:
        return None
    found = []
    for part in range(len(splits.ranges)):
        found.append(split_stats(parse(read_split(splits, part), names, part == 0),
                                 names, "ts", EVERY))
    agreed = agree([s for s, _ in found], names, "ts")
    if agreed is None:
        return None
    tables = []
    for part, (_, kept) in enumerate(found):
        assert kept is not None
        table = typed(kept, agreed)
        if table is None:
            parsed = parse(read_split(splits, part), names, part == 0)
            assert parsed is not None
            table = typed_text(parsed, agreed, "ts")
        tables.append(table)
    whole = pa.concat_tables(tables)
    return agreed.types, {n: whole.column(n).to_pylist() for n in names}


CELLS = {
    "int": st.integers(-999, 999).map(str),
    "spaced int": st.integers(-99, 99).map(lambda i: f" {i} "),
    "float": st.sampled_from(["1.5", "-0.25", "1e3", ".5", "7.", "2.0E-2"]),
    "big int": st.sampled_from([str(2**70), str(-(2**64))]),
    "word": st.sampled_from(["a", "x1", "nan", "inf", "1_000", "0x1F", " ", "b c"]),
    "empty": st.just(""),
}


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    n = draw(st.integers(0, 14))
    stamps = draw(st.sampled_from(["int", "float", "iso", "iso zoned"]))
    start = draw(st.integers(0, 50))
    steps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    ts = []
    at = start
    for i, step in enumerate(steps):
        at += step
        ts.append({"int": str(at), "float": f"{at}.5" if i % 2 else str(at),
                   "iso": f"2024-03-01T09:{at // 60 % 60:02d}:{at % 60:02d}",
                   "iso zoned": f"2024-03-01 10:{at // 60 % 60:02d}:{at % 60:02d}+01:00"}[stamps])
    kinds = [draw(st.lists(st.sampled_from(sorted(CELLS)), min_size=1, max_size=3, unique=True))
             for _ in range(2)]
    rows = [",".join([t, *(draw(st.one_of(*[CELLS[k] for k in kinds[c]])) for c in range(2))])
            for t in ts]
    if n and draw(st.integers(0, 9)) == 0:      # a hostile row: a quote, a width, a gap, order
        i = draw(st.integers(0, n - 1))
        rows[i] = draw(st.sampled_from([rows[i] + ',"q"', rows[i] + ",9", ",1,2", "",
                                        f'{ts[i]},"a,b",1', "-5,1,2"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    # (a header alone with no newline is refused by the loader, read by Spark as no rows)
    text = newline.join(["ts,a,b", *rows]) + (newline if not rows or draw(st.booleans()) else "")
    bom = b"\xef\xbb\xbf" if draw(st.integers(0, 5)) == 0 else b""
    return bom + text.encode()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=csv_files())
# found by this test (28 Nov): an empty cell of a column typed as numbers by a cell past
# 2**64 read NaN in the split where the loader reads a missing value
@example(data=b'\xef\xbb\xbfts,a,b\n0,,1180591620717411303424\n'
              b'0,1180591620717411303424,1180591620717411303424')
def test_splits_at_every_byte_agree_with_the_whole_file(tmp_path, data):
    path = tmp_path / "e.csv"
    path.write_bytes(data)
    expected = whole_file(path)
    for cut in range(1, len(data)):
        for cuts in ([cut], [cut, (cut + len(data)) // 2]):
            got = in_splits(path, sorted(set(cuts)))
            if got is None:
                assert expected is None or b'"' in data, (data, cuts)
            else:
                assert got == expected, (data, cuts)
