"""``python -m bench match-recognize --peers``: Kleene, pandas-match-recognize and Flink SQL
on the same ``MATCH_RECOGNIZE`` statements over the same file (issue 26, "Performance";
issue 30, item 4).

The stock stream (224,473 rows; the first 20,000 with ``--quick``) is written once per file
format, before anything is timed, by DuckDB (``id``, ``name``, ``volume``, ``price``,
``type``, ``stock_time``): CSV with a header line, JSON Lines and Parquet (:data:`FORMATS`;
``--format`` picks some, by default all three). Each engine reads each format it reads
natively (:data:`NATIVE`: the peers CSV and JSON Lines; Parquet neither, said in the table),
with the same column types (BIGINT ``id``, ``volume``, ``stock_time``; DOUBLE ``price``;
text ``name``, ``type``): Kleene's DuckDB sniffs them (the bench checks the types it read are
the written table's), pandas-match-recognize is given them as dtypes, Flink declares them.
Each query of :data:`bench.match_recognize.QUERIES` then runs end to end from the file, per
format:

- Kleene: ``kleene.match_recognize(path, sql)`` in this process (DuckDB reads the file, a
  CSV file by Arrow under DuckDB's sniffed types where that reads the same,
  :mod:`kleene.data.csvfast`; the ``match-recognize`` engine recognizes, DuckDB runs the
  ``SELECT``), and apart, to say where the time goes, the load alone (to Arrow), the recognition
  alone (the compiled engine over that Arrow table) and the door's "silent zero" check
  (:func:`kleene.engines.tables.never_true`, which orders and reads the rows in Python);
  ``kleene (no check)`` is the same statement through :func:`kleene.data.sql.run_over`
  with the engine's recognizer, the door without that check;
- pandas-match-recognize (``.peers/pmr``): its worker reads the file with
  ``pandas.read_csv`` or ``pandas.read_json`` and runs the statement text as written;
- Flink SQL (``.peers/flink``, PyFlink, batch mode, parallelism 1): its worker declares the
  file as a ``filesystem`` table (format ``csv`` or ``json``; for CSV the same file without
  its header line, :func:`headerless`: Flink's CSV format has no option to skip one) and
  runs the statement, in which the first ``ORDER BY`` key, ``stock_time``, reads
  ``kleene_rt``, the time attribute Flink orders a recognition by
  (``TO_TIMESTAMP_LTZ(stock_time, 3)``, the same order): the one rewrite.

Every engine first runs each query on the first 1,000 rows, not counted (Kleene's compiled
loop and DuckDB loaded; the peer's imports, Flink's JVM and environment started, their
seconds said). Seconds are wall seconds (the peers run in processes of their own), the least
of :data:`~bench.match_recognize.REPEATS` runs for Kleene and of :data:`PEER_REPEATS` for
each peer. The rows out are compared order-insensitively (a multiset of rows, floats to 9
significant digits); a peer that differs is said with the first differing row, one that
refuses the statement as a documented limitation (:data:`~kleene.conformance.adapters.
native.DECLINES`) as *declined*, any other error as *failed*. Without a
peer installed, one line says how to install it and Kleene's part runs alone.
"""

from __future__ import annotations

import math
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from bench.match_recognize import QUERIES, REPEATS, stock_table
from bench.report import Table, emit, ratio
from kleene.conformance.adapters.base import PEERS, MRBackend
from kleene.conformance.adapters.engines import flink, pmr
from kleene.conformance.adapters.native import DECLINES, sql_type
from kleene.conformance.sqllogictest.runner import engine_recognizer
from kleene.data.sql import read_table, run_over
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.tables import match_recognize, never_true
from kleene.reference.match_recognize.parser import parse_statement

#: Runs of each peer per query (the least is reported: the machine is shared).
PEER_REPEATS = 2
#: Rows of the first, uncounted run of every engine.
WARM_ROWS = 1_000
#: The peers: name, factory of the worker, where its Python is.
PEER_FACTORIES: dict[str, Callable[[], MRBackend]] = {"pmr": pmr, "flink": flink}
#: The one line that says how to install the peers.
INSTALL = "bash scripts/peers.sh --install-only"
#: Flink's time attribute (the first ORDER BY key of every query is ``stock_time``).
FLINK_TIME = ["kleene_rt", "TO_TIMESTAMP_LTZ(stock_time, 3)"]
#: The file formats: name → DuckDB's ``COPY`` options (the file is ``stocks.<name>``).
FORMATS = {"csv": "FORMAT CSV, HEADER", "jsonl": "FORMAT JSON", "parquet": "FORMAT PARQUET"}
#: The formats each peer reads natively, and why not the others.
NATIVE = {"pmr": {"csv", "jsonl"}, "flink": {"csv", "jsonl"}}
NOT_NATIVE = {
    "pmr": "no Parquet reader in its environment (pandas.read_parquet needs pyarrow or "
           "fastparquet)",
    "flink": "no Parquet format in the PyFlink wheel (lib/ ships flink-csv and flink-json "
             "only)"}

Row = tuple[object, ...]


def write_file(table: pa.Table, path: Path) -> Path:
    """``table`` as a file at ``path`` in the format its suffix names (:data:`FORMATS`;
    DuckDB's writer)."""
    connection = duckdb.connect()
    connection.register("stocks", table)
    options = FORMATS[path.suffix[1:]]
    connection.execute(f"COPY (SELECT * FROM stocks) TO '{path}' ({options})")
    connection.close()
    return path


def headerless(path: Path) -> Path:
    """The CSV file Flink reads beside ``path``: the same lines but the header (written once,
    before anything is timed)."""
    bare = path.with_name(f"{path.stem}.headerless.csv")
    if not bare.exists():
        with path.open("rb") as source, bare.open("wb") as target:
            source.readline()
            target.writelines(source)
    return bare


def read_file(path: Path) -> pa.Table:
    """The file as Kleene's door reads it (:func:`kleene.data.sql.read_table`: DuckDB's
    reader for its suffix, or a CSV file by Arrow under DuckDB's sniffed types)."""
    return read_table(path)


def flink_sql(sql: str) -> str:
    """The statement as Flink runs it: its first ``ORDER BY stock_time`` ordered by the time
    attribute :data:`FLINK_TIME` instead (the module docstring)."""
    return re.sub(r"ORDER BY stock_time\b", f"ORDER BY {FLINK_TIME[0]}", sql, count=1)


def normal(value: object) -> object:
    """A value as rows are compared: floats to 9 significant digits, integral floats as
    integers (a peer may hand an integer over as a float), text and integers as they are."""
    if isinstance(value, float) and math.isfinite(value):
        return int(value) if value.is_integer() else float(f"{value:.9g}")
    return value


def rows_of(table: pa.Table) -> list[Row]:
    """The rows of an Arrow table, each a tuple in column order."""
    columns = [c.to_pylist() for c in table.columns]
    return list(zip(*columns, strict=True)) if columns else []


def difference(expected: Sequence[Row], got: Sequence[Row]) -> str | None:
    """``None`` when ``got`` holds the rows of ``expected`` (order-insensitive, values by
    :func:`normal`), else the counts and the first differing row (in sorted order)."""
    want = Counter(tuple(map(normal, r)) for r in expected)
    have = Counter(tuple(map(normal, r)) for r in got)
    if want == have:
        return None
    missing, extra = sorted(want - have, key=repr), sorted(have - want, key=repr)
    first = (f"first missing row {missing[0]}" if missing and (
        not extra or repr(missing[0]) <= repr(extra[0])) else f"first extra row {extra[0]}")
    return (f"{sum(have.values())} rows for {sum(want.values())}; {len(missing)} missing, "
            f"{len(extra)} extra; {first}")


def timed(run: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The least wall seconds of ``repeats`` runs of ``run`` and the last run's result."""
    best, out = math.inf, None
    for _ in range(repeats):
        began = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - began)
    return best, out


def kleene_parts(path: Path, sql: str) -> dict[str, float]:
    """Seconds of Kleene's load alone (:func:`read_file`, to Arrow), of the
    recognition alone (the compiled engine over that table) and of the door's silent-zero
    check over it, each the least of :data:`REPEATS`."""
    load_s, arrow = timed(partial(read_file, path), REPEATS)
    clause = parse_statement(sql).recognitions[0].clause
    match_s, _ = timed(partial(CompiledRecognition(clause).recognize, arrow), REPEATS)
    check_s, _ = timed(partial(never_true, clause, arrow), REPEATS)
    return {"load": load_s, "match": match_s, "check": check_s}


def without_check(path: Path, sql: str) -> pa.Table:
    """The statement over the file by the engine, as the door runs it but for the
    silent-zero check."""
    return run_over(path, parse_statement(sql), recognize=engine_recognizer("match-recognize",
                                                                            None))


def peer_message(name: str, sql: str, path: Path, schema: pa.Schema) -> dict[str, Any]:
    """The worker's ``table`` request: the statement over the file ``path`` of ``schema``."""
    if name == "flink" and path.suffix == ".csv":
        path = headerless(path)
    message: dict[str, Any] = {
        "cmd": "table", "name": "stocks", "path": str(path), "format": path.suffix[1:],
        "sql": flink_sql(sql) if name == "flink" else sql,
        "columns": [[f.name, sql_type(f.type)] for f in schema]}
    if name == "flink":
        message["time"] = FLINK_TIME
    return message


def peer_run(backend: MRBackend, message: dict[str, Any]) -> tuple[list[Row], dict[str, float]]:
    """The peer's rows and its own seconds (``KeyError``-free: a failure raises)."""
    answer = backend.ask(message)
    if "error" in answer:
        raise RuntimeError(" ".join(str(answer["error"]).split())[:300])
    return [tuple(r) for r in answer["rows"]], answer["seconds"]


def installed() -> tuple[dict[str, MRBackend], list[str]]:
    """The peers whose virtual environment exists, started; and the missing ones."""
    found, missing = {}, []
    for name, factory in PEER_FACTORIES.items():
        if (PEERS / name / "bin" / "python").exists():
            found[name] = factory()
        else:
            missing.append(name)
    return found, missing


def run(quick: bool, formats: Sequence[str] = tuple(FORMATS)) -> None:
    """Print the table (module docstring) for each of ``formats`` and write it to
    ``out/bench/``."""
    stocks = stock_table(20_000 if quick else None)
    peers, missing = installed()
    if missing:
        print(f"(peers {', '.join(missing)} not installed: `{INSTALL}` installs them; "
              "Kleene's part runs alone)\n")
    report = Table("MATCH_RECOGNIZE end to end from the file: Kleene and its peers (wall s)",
                   ["format", "query", "engine", "rows out", "same rows", "seconds",
                    "/ kleene", "/ kleene (no check)", "where the time goes"],
                   header=[f"{stocks.num_rows:,} stock rows per file; Kleene: the least of "
                           f"{REPEATS} runs, each peer: the least of {PEER_REPEATS}; "
                           "ratios within one format"])
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for form in formats:
                path = write_file(stocks, Path(tmp) / f"stocks.{form}")
                warm = write_file(stocks.slice(0, WARM_ROWS), Path(tmp) / f"warm.{form}")
                for written in (path, warm) if form == "csv" else ():
                    headerless(written)  # Flink's copy, written before anything is timed
                read = read_file(path).schema
                if read != stocks.schema:
                    raise AssertionError(f"DuckDB read {form} as {read}, not {stocks.schema}")
                for query, sql in QUERIES.items():
                    _query(report, form, query, sql, path, warm, stocks.schema, peers)
    finally:
        for backend in peers.values():
            backend.close()
    report.notes += [
        "seconds: end to end from the file to the rows out, in a warm process (a first run "
        f"of each engine on {WARM_ROWS:,} rows of the same format not counted; its seconds "
        "below)",
        "Kleene's parts: load = the door's reader to Arrow, match = the compiled engine over "
        "that table, check = the door's silent-zero check (never_true), each measured apart "
        "(the least of its runs); rest = the whole less the parts (the output, the SELECT "
        "around; negative when the machine's load made the parts' runs slower)",
        "the peers' parts are their workers' own clocks: pmr load = pandas.read_csv or "
        "read_json, match = match_recognize to Python rows; Flink ddl = the table declared, "
        "job = read, match and collect (one pipeline)",
        *(f"best format: {line}" for line in best_formats(report)),
        "aims (issue 26): Kleene >= 10x pandas-match-recognize, faster than Flink SQL"]
    emit(report, "match_recognize_peers")


def best_formats(report: Table) -> list[str]:
    """Per query, each engine's fastest format and the peers' ratio to Kleene's fastest
    (each engine on the format that suits it best)."""
    best: dict[tuple[str, str], tuple[float, str]] = {}
    for form, query, engine, _rows, _same, seconds, *_ in report.rows:
        key = (str(query), str(engine))
        if engine != "kleene (no check)" and isinstance(seconds, float) \
                and seconds < best.get(key, (math.inf, ""))[0]:
            best[key] = (seconds, str(form))
    lines = []
    for query in dict.fromkeys(q for q, _ in best):
        kleene = best.get((query, "kleene"))
        if kleene is None:
            continue
        said = [f"{engine} {form} {s:.2f} s"
                + ("" if engine == "kleene" else f" ({ratio(s, kleene[0]):.1f}x)")
                for (q, engine), (s, form) in best.items() if q == query]
        lines.append(f"{query}: {', '.join(said)}")
    return lines


def _query(report: Table, form: str, query: str, sql: str, path: Path, warm: Path,
           schema: pa.Schema, peers: dict[str, MRBackend]) -> None:
    """The rows of ``query`` over the file ``path`` in the report: Kleene's, then each
    peer's."""
    kleene_warm, _ = timed(partial(match_recognize, warm, sql), 1)
    seconds, out = timed(partial(match_recognize, path, sql), REPEATS)
    expected = rows_of(out)
    parts = kleene_parts(path, sql)
    report.add(form, query, "kleene", len(expected), True, seconds, None, None,
               ", ".join(f"{k} {v:.2f}" for k, v in parts.items())
               + f", rest {seconds - sum(parts.values()):.2f} (first run, {WARM_ROWS:,} rows: "
               f"{kleene_warm:.2f})")
    bare_s, bare = timed(partial(without_check, path, sql), REPEATS)
    differs = difference(expected, rows_of(bare))
    report.add(form, query, "kleene (no check)", bare.num_rows,
               True if differs is None else f"DIFFER: {differs}", bare_s,
               ratio(bare_s, seconds), None, "")
    for name, backend in peers.items():
        if form not in NATIVE[name]:
            report.add(form, query, name, None, f"not run: {NOT_NATIVE[name]}", None, None,
                       None, "")
            continue
        try:
            first, _ = timed(partial(peer_run, backend, peer_message(name, sql, warm, schema)),
                             1)
            peer_s, (got, parts) = timed(
                partial(peer_run, backend, peer_message(name, sql, path, schema)),
                PEER_REPEATS)
        except (RuntimeError, OSError, ValueError) as err:
            verdict = "declined" if DECLINES.search(str(err)) else "failed"
            report.add(form, query, name, None, f"{verdict}: {str(err)[:160]}", None, None,
                       None, "")
            continue
        differs = difference(expected, got)
        report.add(form, query, name, len(got),
                   True if differs is None else f"DIFFER: {differs}",
                   peer_s, ratio(peer_s, seconds), ratio(peer_s, bare_s),
                   ", ".join(f"{k} {v:.2f}" for k, v in parts.items())
                   + f" (first run, {WARM_ROWS:,} rows: {first:.2f})")
