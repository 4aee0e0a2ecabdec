"""data/threads.py and its use by the loaders: typing a large table's columns on
threads gives the serial result, and the same first error (by row).

Expected values are written by hand (the rows of each test)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from kleene.data import threads
from kleene.data.columnar import validated
from kleene.data.threads import PARALLEL_ROWS, each
from kleene.reference.errors import StreamError


def boom() -> int:
    raise KeyError("x")


@pytest.mark.parametrize("parallel", [False, True])
def test_each_keeps_the_order_and_returns_the_exceptions(parallel, monkeypatch):
    monkeypatch.setattr(threads, "cores", lambda: 2)
    done = each([lambda: 1, boom, lambda: 3], parallel=parallel)
    assert done[0] == 1 and done[2] == 3 and isinstance(done[1], KeyError)


def big(ts: list[str], price: list[str]) -> pa.Table:
    n = len(ts)
    return pa.table({"ts": ts, "type": ["A"] * n, "price": price, "id": [str(i) for i in range(n)]})


@pytest.mark.parametrize("cores", [1, 2])
def test_large_tables_are_typed_alike_on_threads(cores, monkeypatch):
    monkeypatch.setattr(threads, "cores", lambda: cores)
    n = PARALLEL_ROWS + 10
    price = ["1.5"] * n
    price[7] = "n/a"                       # one text cell: the column stays text
    cols, _ = validated(big([str(i) for i in range(n)], price), ts="ts", type="type",
                        source="t.csv", text=["ts", "type", "price", "id"])
    assert cols.kinds == {"price": "text", "id": "int"}
    assert cols.attrs.column("id")[n - 1].as_py() == n - 1
    assert cols.events([7, 8])[0].value("price") == "n/a"
    assert cols.events([7, 8])[1].value("price") == 1.5


@pytest.mark.parametrize("cores", [1, 2])
def test_the_first_bad_row_is_named_whatever_the_threads(cores, monkeypatch):
    monkeypatch.setattr(threads, "cores", lambda: cores)
    n = PARALLEL_ROWS + 10
    ts = [str(i) for i in range(n)]
    ts[PARALLEL_ROWS] = "later"            # not a number: the timestamp column's error
    with pytest.raises(StreamError, match=rf"row {PARALLEL_ROWS}\b.*ts"):
        validated(big(ts, ["1"] * n), ts="ts", type="type", source="t.csv",
                  text=["ts", "type", "price", "id"])


def stock_text(n: int, odd: int | None = None) -> bytes:
    lines = [f"{'BUY' if i % 2 else 'SELL'}(id={i},name=N{i % 7},price={i}.5,stock_time={i})"
             for i in range(n)]
    if odd is not None:
        lines[odd] = lines[odd].replace("name=", "nme=")       # another layout
    return "\n".join(lines).encode()


@pytest.mark.parametrize("cores", [1, 2])
def test_stock_lines_are_cut_alike_on_threads(cores, monkeypatch):
    from kleene.data.stock import regular_lines

    monkeypatch.setattr(threads, "cores", lambda: cores)
    n = PARALLEL_ROWS + 10
    keys = ["id", "name", "price", "stock_time"]
    table = regular_lines(stock_text(n), keys)
    assert table is not None and table.column_names == ["type", *keys]
    assert table.slice(n - 1).to_pylist() == [{"type": "BUY", "id": str(n - 1),
                                               "name": f"N{(n - 1) % 7}",
                                               "price": f"{n - 1}.5",
                                               "stock_time": str(n - 1)}]
    assert regular_lines(stock_text(n, odd=PARALLEL_ROWS), keys) is None   # read line by line


def test_column_work_uses_at_most_arrows_threads():
    import pyarrow as pa

    before = pa.cpu_count()
    try:
        pa.set_cpu_count(1)                 # as a Spark task with one core sets it
        assert threads.cores() == 1
    finally:
        pa.set_cpu_count(before)
