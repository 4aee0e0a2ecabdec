"""``kleene demo`` names every part that did not run, in its last line and in
``out/report.md``, with why and how to run it; it never says "everything agrees" over a
part that was skipped (issue 29, item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kleene.cli import demo
from kleene.cli.demo_report import Skipped, verdict
from kleene.engines.spark.session import SparkUnavailable
from tests.helpers import run_cli

#: INTC, MSFT and CSCO within 400 ms (the demo's stock pattern matches them once).
STOCK_LINES = ["BUY(id=1,name=INTC,volume=1,price=1.0,stock_time=1000)",
               "SELL(id=3,name=MSFT,volume=1,price=1.0,stock_time=1200)",
               "BUY(id=4,name=CSCO,volume=1,price=1.0,stock_time=1400)"]


def test_the_verdict_says_everything_agrees_only_when_nothing_was_skipped() -> None:
    assert verdict(3, 0, 0, []) == "Done: 3 engine runs, 0 differ; everything agrees."
    spark = Skipped("the Spark part", "--no-spark was given", "leave out --no-spark")
    stream = Skipped("the continuous run", "--no-stream was given", "leave out --no-stream")
    assert verdict(3, 0, 0, [spark]) == (
        "Done: 3 engine runs, 0 differ; everything that ran agrees, but 1 part did not run: "
        "the Spark part — --no-spark was given (to run it: leave out --no-spark).")
    assert verdict(3, 1, 0, [spark, stream]) == (
        "Done: 3 engine runs, 1 differ; DISAGREEMENTS above, but 2 parts did not run: "
        "the Spark part — --no-spark was given (to run it: leave out --no-spark); "
        "the continuous run — --no-stream was given (to run it: leave out --no-stream).")
    assert verdict(3, 0, 2, []) == "Done: 3 engine runs, 0 differ; DISAGREEMENTS above."


def _no_java(master: str | None) -> None:
    raise SparkUnavailable("could not start Spark with master 'local[*]': no Java runtime")


@pytest.mark.parametrize(("options", "parts", "part", "why", "enable"), [
    # Spark cannot start (forced): the Spark part and the continuous run are named
    ((), "1 part", "the Spark part", "spark: could not start Spark with master 'local[*]': no Java "
     "runtime", "a Java 17+ runtime"),
    (("--no-spark",), "1 part", "the Spark part", "--no-spark was given", "leave out --no-spark"),
    # a --data file that is not a stock stream: the stock parts, and Spark (--no-spark)
    (("--no-spark", "--data", "{tmp}/bad.stream"), "2 parts", "the stock stream parts",
     "{tmp}/bad.stream cannot be loaded: {tmp}/bad.stream: row 0: not a stock line "
     "TYPE(key=value,...): 'hello world'",
     "pass --data a stock stream file Kleene reads"),
])
def test_a_part_that_did_not_run_is_named_in_the_last_line_and_the_report(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        options: tuple[str, ...], parts: str, part: str, why: str, enable: str) -> None:
    monkeypatch.setattr(demo.demo_spark, "start", _no_java)
    (tmp_path / "s.stream").write_text("\n".join(STOCK_LINES) + "\n")
    (tmp_path / "bad.stream").write_text("hello world\n")
    options = tuple(o.format(tmp=tmp_path) for o in options)
    why = why.format(tmp=tmp_path)
    data = () if "--data" in options else ("--data", str(tmp_path / "s.stream"))
    code, out, _ = run_cli(capsys, "demo", "--cases", str(tmp_path), *data, *options,
                           "--out", str(tmp_path / "out"))
    last = out.splitlines()[-1]
    assert code == 0    # everything that ran agrees
    assert last.startswith("Done: ") and "everything agrees" not in last
    assert f"everything that ran agrees, but {parts} did not run: " in last
    assert f"{part}" in last and f"— {why} (to run it: {enable}" in last
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Parts that did not run" in report
    assert f"- **{part}" in report and f"**: {why}. To run it: {enable}" in report


def test_a_data_file_that_is_not_there_stops_at_once(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, "demo", "--data", str(tmp_path / "nope.stream"),
                             "--no-spark", "--out", str(tmp_path / "out"))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"kleene demo: --data {tmp_path / 'nope.stream'}: no such file")
