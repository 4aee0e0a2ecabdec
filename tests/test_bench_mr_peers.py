"""``python -m bench match-recognize --peers`` (bench/match_recognize_peers.py) without the
peers: the rows compared order-insensitively with the first differing row, Flink's one
rewrite, the requests, the install line, Kleene's part on a tiny file in each format, and
the workers' readers of each format (pandas's with the types the others read).

Never checks a time or a ratio (performance is measured, not asserted)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pytest

from bench import match_recognize_peers as mrp
from bench.__main__ import BENCHMARKS, WITH_PEERS, main
from bench.match_recognize import QUERIES
from bench.report import Table
from kleene.conformance.adapters import flink_worker, pmr_worker


def test_rows_compare_as_multisets_with_the_first_difference() -> None:
    assert mrp.difference([(1, "a"), (2, "b")], [(2, "b"), (1.0, "a")]) is None
    assert mrp.difference([(1, 0.1 + 0.2)], [(1, 0.3)]) is None
    said = mrp.difference([(1, "a"), (2, "b")], [(1, "a"), (3, "b")])
    assert said == "2 rows for 2; 1 missing, 1 extra; first missing row (2, 'b')"
    assert mrp.difference([(1,), (1,)], [(1,)]) == (
        "1 rows for 2; 1 missing, 0 extra; first missing row (1,)")


def test_flink_orders_by_the_time_attribute_and_nothing_else_changes() -> None:
    for sql in QUERIES.values():
        assert "ORDER BY stock_time, id" in sql
        rewritten = mrp.flink_sql(sql)
        assert "ORDER BY kleene_rt, id" in rewritten
        assert rewritten.replace("kleene_rt", "stock_time") == sql
    schema = pa.schema([("stock_time", pa.int64()), ("name", pa.string())])
    flink = mrp.peer_message("flink", QUERIES["seq3"], Path("s.jsonl"), schema)
    pmr = mrp.peer_message("pmr", QUERIES["seq3"], Path("s.jsonl"), schema)
    assert flink["time"] == mrp.FLINK_TIME and "time" not in pmr
    assert pmr["sql"] == QUERIES["seq3"]
    assert pmr["columns"] == [["stock_time", "BIGINT"], ["name", "VARCHAR"]]


def test_without_peers_it_says_how_to_install_them(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(mrp, "PEERS", tmp_path)
    assert mrp.installed() == ({}, ["pmr", "flink"])
    assert "scripts/peers.sh --install-only" in mrp.INSTALL
    assert "--install-only" in (Path(__file__).resolve().parents[1] / "scripts" /
                                "peers.sh").read_text()


def test_the_dispatcher_runs_the_peers_after_the_benchmark_when_asked(monkeypatch) -> None:
    ran: list[str] = []
    monkeypatch.setitem(BENCHMARKS, "match-recognize", lambda quick: ran.append("bench"))
    monkeypatch.setitem(WITH_PEERS, "match-recognize",
                        lambda quick, formats: ran.append(f"peers {' '.join(formats)}"))
    assert main(["match-recognize", "--quick"]) == 0 and ran == ["bench"]
    assert main(["match-recognize", "--quick", "--peers"]) == 0
    assert ran == ["bench", "bench", "peers csv jsonl parquet"]
    assert main(["match-recognize", "--peers", "--format", "csv", "--format", "parquet"]) == 0
    assert ran[-1] == "peers csv parquet"


@pytest.mark.slow
def test_kleenes_part_on_a_tiny_file(tmp_path) -> None:
    # INTC falls 5 -> 4 -> 3 and rises 4 -> 5: one V, start 1, bottom 3, end 5
    stocks = pa.table({"id": [1, 2, 3, 4, 5], "name": ["INTC"] * 5, "volume": [1] * 5,
                       "price": [5.0, 4.0, 3.0, 4.0, 5.0], "type": ["BUY"] * 5,
                       "stock_time": [1, 2, 3, 4, 5]})
    report = Table("t", ["format", "query", "engine", "rows out", "same rows", "seconds",
                         "/ kleene", "/ kleene (no check)", "where the time goes"])
    for form in mrp.FORMATS:
        path = mrp.write_file(stocks, tmp_path / f"s.{form}")
        assert mrp.read_file(path).equals(stocks)  # the same columns, types and values
        mrp._query(report, form, "v-shape", QUERIES["v-shape"], path, path, stocks.schema, {})
        assert mrp.rows_of(mrp.without_check(path, QUERIES["v-shape"])) == [("INTC", 1, 3, 5)]
    assert [(r[0], r[2], r[3], r[4]) for r in report.rows] == [
        (form, engine, 1, True) for form in mrp.FORMATS
        for engine in ("kleene", "kleene (no check)")]
    best = mrp.best_formats(report)
    assert len(best) == 1 and best[0].startswith("v-shape: kleene ")
    assert "no check" not in best[0]


def test_flink_reads_the_csv_file_without_its_header_line(tmp_path) -> None:
    stocks = pa.table({"id": [1, 2], "name": ["A", "B"]})
    path = mrp.write_file(stocks, tmp_path / "s.csv")
    bare = mrp.headerless(path)
    assert path.read_text().splitlines() == ["id,name", "1,A", "2,B"]
    assert bare.read_text().splitlines() == ["1,A", "2,B"]
    flink = mrp.peer_message("flink", QUERIES["seq3"], path, stocks.schema)
    pmr = mrp.peer_message("pmr", QUERIES["seq3"], path, stocks.schema)
    assert (flink["path"], flink["format"]) == (str(bare), "csv")
    assert (pmr["path"], pmr["format"]) == (str(path), "csv")


def test_pmr_reads_each_format_with_the_types_the_others_read(tmp_path) -> None:
    # "7" and "8" stay text, 2.0 and 3.0 floats: the dtypes given, not pandas's guesses
    stocks = pa.table({"id": [1, 2], "name": ["7", "8"], "price": [2.0, 3.0],
                       "stock_time": [10, 20]})
    columns = [["id", "BIGINT"], ["name", "VARCHAR"], ["price", "DOUBLE"],
               ["stock_time", "BIGINT"]]
    for form in ("csv", "jsonl"):
        path = mrp.write_file(stocks, tmp_path / f"s.{form}")
        df = pmr_worker.read({"path": str(path), "format": form, "columns": columns})
        assert [str(t) for t in df.dtypes] == ["int64", "object", "float64", "int64"]
        assert df.values.tolist() == [[1, "7", 2.0, 10], [2, "8", 3.0, 20]]


class _Result:
    """What the Flink worker reads of a finished job: no columns, no rows."""

    def get_table_schema(self) -> _Result:
        return self

    def get_field_names(self) -> list[str]:
        return []

    def get_field_data_types(self) -> list[str]:
        return []

    def collect(self) -> contextlib.AbstractContextManager[list[object]]:
        return contextlib.nullcontext([])


def test_flink_declares_the_file_in_its_format(tmp_path) -> None:
    said: list[str] = []

    def execute_sql(sql: str) -> _Result:
        said.append(sql)
        return _Result()

    env = SimpleNamespace(execute_sql=execute_sql)
    message = {"name": "stocks", "columns": [["id", "BIGINT"]], "sql": "SELECT 1"}
    for form, declared in (("csv", "csv"), ("jsonl", "json"), (None, "json")):
        said.clear()
        flink_worker.table(env, {**message, "path": str(tmp_path / "s"), "format": form})
        assert f"'format' = '{declared}')" in said[1]
    said.clear()  # rows sent, not a file: written as JSON Lines whatever the format
    flink_worker.table(env, {**message, "rows": [[1]], "format": "csv"})
    assert "'format' = 'json')" in said[1]


def test_pmr_gets_the_adapters_timestamps_as_datetimes() -> None:
    # native.sql_type sends a timestamp column as TIMESTAMP(3): a string there left the
    # column text, and a measure of it came back VARCHAR (DuckDB's WHERE around it failed)
    df = pmr_worker.frame([["T", "TIMESTAMP(3)"], ["D", "DATE"], ["S", "VARCHAR"]],
                          [["2026-03-03 14:17:00", "2026-03-03", "2026-03-03"]])
    assert [str(t) for t in df.dtypes] == ["datetime64[ns]", "datetime64[ns]", "object"]
    assert df["T"][0].minute == 17
