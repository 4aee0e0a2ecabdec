"""bench/opencep.py without OpenCEP: where it is looked for, the "not run" cells and header
when it is missing, the stock stream in OpenCEP's input form (against hand-written lines),
and the driver's plumbing on a stand-in checkout (a few modules with OpenCEP's names that
emit one match per SELL event: the counts below are those of the hand-written lines).

Never checks a time (performance is measured by the benches, not asserted).
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from bench import opencep, seed003_stock
from bench.__main__ import BENCHMARKS
from bench.seed003 import stock_run
from kleene.data.loaders import load_events
from kleene.reference.errors import StreamError
from kleene.reference.operators.policies import matches
from kleene.reference.operators.text import parse_operator

LINES = ["SELL(id=1,name=INTC,volume=1,price=10.0,stock_time=100)",
         "BUY(id=2,name=RIMM,volume=1,price=5.0,stock_time=101)",
         "BUY(id=3,name=QQQ,volume=1,price=11.0,stock_time=102)",
         "SELL(id=4,name=INTC,volume=7,price=27.8500,stock_time=25263126)"]
# By hand: type, id, name, volume, price, stock_time; every value as written.
OPENCEP_LINES = ["SELL,1,INTC,1,10.0,100", "BUY,2,RIMM,1,5.0,101", "BUY,3,QQQ,1,11.0,102",
                 "SELL,4,INTC,7,27.8500,25263126"]


def stock_file(tmp_path: Path) -> Path:
    path = tmp_path / "s.stream.gz"
    path.write_bytes(gzip.compress(("\r\n".join(LINES) + "\r\n\r\n").encode()))
    return path


def test_a_stock_line_in_opencep_form() -> None:
    assert [opencep.opencep_line(line) for line in LINES] == OPENCEP_LINES
    # the fields are found by name, whatever their order in the line
    assert opencep.opencep_line("BUY(stock_time=5,price=1.50,volume=2,name=QQQ,id=9)") == \
        "BUY,9,QQQ,2,1.50,5"


def test_convert_writes_every_event_and_stops_at_the_limit(tmp_path: Path) -> None:
    src, dst = stock_file(tmp_path), tmp_path / "o.txt"
    assert opencep.convert(src, dst) == 4
    assert dst.read_text(encoding="utf-8") == "".join(f"{x}\n" for x in OPENCEP_LINES)
    assert opencep.convert(src, dst, limit=2) == 2
    assert dst.read_text(encoding="utf-8").splitlines() == OPENCEP_LINES[:2]


def test_a_line_without_a_field_says_row_and_field(tmp_path: Path) -> None:
    src = tmp_path / "bad.stream"
    src.write_text(LINES[0] + "\nBUY(id=2,name=RIMM,volume=1,stock_time=101)\n",
                   encoding="utf-8")
    with pytest.raises(StreamError) as err:
        opencep.convert(src, tmp_path / "o.txt")
    assert (err.value.row, err.value.field) == (1, "price")
    assert "bad.stream: row 1, field 'price'" in str(err.value)


def test_where_opencep_is_looked_for(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    folder, why = opencep.find_checkout({opencep.ENV: str(empty)}, tmp_path)
    assert folder is None and "holds no CEP.py" in why
    assert opencep.find_checkout({}, tmp_path) == (
        None, "no OpenCEP checkout (KLEENE_OPENCEP unset, no .peers/opencep/CEP.py)")
    peer = tmp_path / ".peers" / "opencep"
    peer.mkdir(parents=True)
    (peer / "CEP.py").write_text("", encoding="utf-8")
    assert opencep.find_checkout({}, tmp_path) == (peer.resolve(), "")
    (empty / "CEP.py").write_text("", encoding="utf-8")
    assert opencep.find_checkout({opencep.ENV: str(empty)}, tmp_path) == (empty.resolve(), "")


def test_without_opencep_every_cell_says_not_run(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(opencep.ENV, raising=False)
    monkeypatch.setattr(opencep, "ROOT", tmp_path)
    monkeypatch.setattr(seed003_stock, "ENGINES", ("nfa-chain",))
    data = stock_file(tmp_path)
    table = seed003_stock.stock_table(data, load_events(data), 0.0, None, repeats=1)
    assert any("OpenCEP not run" in h and "KLEENE_OPENCEP" in h and ".peers/opencep/" in h
               for h in table.header)
    at = table.columns.index("OpenCEP matches")
    assert [row[at:] for row in table.rows] == [("not run",) * 5] * 3
    # the matches by hand: x = 1 (10.0), y or r = 2, z or q = 3 (11.0 > 10.0); the later
    # SELL INTC has no BUY after it
    assert [row[:5] for row in table.rows] == [(w, "nfa-chain", 1, 1, True)
                                               for w in ("seq3", "AND3", "KC")]
    assert BENCHMARKS["seed003-stock"] is stock_run


def test_the_counterexample_to_opencep_has_one_match_by_hand(tmp_path: Path) -> None:
    """docs/benchmarks.md, "OpenCEP": SELL INTC 10.0 at 0, BUY RIMM at 10, BUY QQQ 11.0 at
    20 ms: KC's one match is x = 0, r = [1], q = 2 (by hand; OpenCEP reports none)."""
    path = tmp_path / "three.stream"
    path.write_text("SELL(id=1,name=INTC,volume=1,price=10.0,stock_time=0)\n"
                    "BUY(id=2,name=RIMM,volume=1,price=5.0,stock_time=10)\n"
                    "BUY(id=3,name=QQQ,volume=1,price=11.0,stock_time=20)\n", encoding="utf-8")
    kc = parse_operator(seed003_stock.WORKLOADS["KC"])
    assert [dict(m.bindings) for m in matches(kc, load_events(path), "any")] == [
        {"x": (0,), "r": (1,), "q": (2,)}]


#: A stand-in for OpenCEP's modules the driver imports: the pattern API records its
#: arguments; CEP.run parses each line with the driver's formatter and reports each SELL.
STAND_IN = {
    "CEP.py": """
class CEP:
    def __init__(self, patterns):
        self.patterns = patterns

    def run(self, events, matches, formatter):
        for line in events:
            payload = formatter.parse_event(line)
            formatter.get_event_timestamp(payload)
            if formatter.get_event_type(payload) == "SELL":
                matches.add_item(Match([Event(payload)]))
        matches.close()


class Event:
    def __init__(self, payload):
        self.payload = payload


class Match:
    def __init__(self, events):
        self.events = events
""",
    "stream/__init__.py": "",
    "stream/FileStream.py": """
def FileInputStream(path):
    with open(path) as f:
        return iter(f.readlines())
""",
    "stream/Stream.py": """
class OutputStream:
    def __init__(self):
        self.items = []

    def add_item(self, item):
        self.items.append(item)

    def close(self):
        pass

    def __iter__(self):
        return iter(self.items)
""",
    "base/__init__.py": "",
    "base/DataFormatter.py": """
class EventTypeClassifier:
    pass


class DataFormatter:
    def __init__(self, classifier):
        self.classifier = classifier

    def get_event_type(self, payload):
        return self.classifier.get_event_type(payload)
""",
    "misc/__init__.py": "",
    "misc/Utils.py": """
def str_to_number(x):
    try:
        return int(x)
    except ValueError:
        try:
            return float(x)
        except ValueError:
            return x
""",
}
RECORDER = "class {}:\n    def __init__(self, *args, **kwargs):\n        self.args = args\n"
for module, names in {"base/PatternStructure.py": ("PrimitiveEventStructure", "SeqOperator",
                                                   "AndOperator", "KleeneClosureOperator"),
                      "base/Pattern.py": ("Pattern",), "condition/Condition.py": ("Variable",),
                      "condition/BaseRelationCondition.py": ("EqCondition",
                                                             "GreaterThanCondition"),
                      "condition/CompositeCondition.py": ("AndCondition",)}.items():
    STAND_IN[module] = "\n".join(RECORDER.format(n) for n in names)
STAND_IN["condition/__init__.py"] = ""


def test_the_driver_runs_a_checkout_in_a_process_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkout = tmp_path / "opencep"
    for name, text in STAND_IN.items():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv(opencep.ENV, str(checkout))
    peer = opencep.OpenCEP(tmp_path, stock_file(tmp_path), None, repeats=2)
    assert "the checkout in KLEENE_OPENCEP" in peer.header()
    for workload in ("seq3", "AND3", "KC"):
        run = peer.run(workload, 500)
        assert run is not None and run.matches == 2 and run.cpu > 0 and run.wall > 0
    assert opencep.matches_cell(run, 2) == 2 and opencep.matches_cell(run, 3) == "2 ≠ 3"
    assert opencep.matches_cell(None, 2) == "not run"
    ids = tmp_path / "ids.txt"
    done = subprocess.run([sys.executable, "-I", str(opencep.DRIVER), str(checkout),
                           str(peer.events(None)), "KC", "500", str(ids)],
                          capture_output=True, text=True, check=True)
    assert done.stdout == "2\n" and ids.read_text(encoding="utf-8") == "1\n4\n"
