"""One OpenCEP run, as OpenCEP's users run it: ``python -I opencep_driver.py CHECKOUT EVENTS
WORKLOAD MS [IDS]`` prints the number of matches (and writes each match's event ids, one
match a line, to ``IDS`` when given).

Run by :mod:`bench.opencep` in a process of its own (its own interpreter state, timed end to
end: the interpreter, OpenCEP's imports, reading ``EVENTS``, matching, collecting the
matches). It imports nothing of Kleene: ``CHECKOUT`` (a folder holding OpenCEP's ``CEP.py``)
becomes the first entry of ``sys.path`` and this script's folder leaves it (its
``stream.py`` would hide OpenCEP's ``stream`` package).

``EVENTS`` holds one event a line in OpenCEP's input form (``FileInputStream``: a text file
of lines, each parsed by a ``DataFormatter``; OpenCEP's stock plugin reads comma-separated
Metastock 7 lines). Our stock ticks need the BUY/SELL type and millisecond times that
Metastock 7 (a ticker and a minute, ``plugin/stocks/Stocks.py``) cannot carry, so
:func:`bench.opencep.opencep_line` writes ``type,id,name,volume,price,stock_time`` and
:class:`TickFormatter` is the ``DataFormatter`` a user writes for it (OpenCEP's
``base/DataFormatter.py``: "A dedicated DataFormatter is expected to be implemented for each
new type of input"), with OpenCEP's own ``str_to_number`` for the values.

The workloads are :data:`bench.peers.SHAPES` and :data:`bench.seed003_stock.WORKLOADS` in
OpenCEP's pattern API (its README): the event type is the BUY/SELL word, ``name`` and
``price`` conditions; KC's ``BUY{1,3} r[]`` is ``KleeneClosureOperator(..., min_size=1,
max_size=3)`` with ``r``'s name condition on each event (a condition on one primitive event,
which OpenCEP checks at the leaf under the closure). The selection strategy is OpenCEP's
default, ``MATCH_ANY`` (skip-till-any-match: Kleene's policy ``any``).

OpenCEP was written for Python 3.8-3.9: ``plan/invariant/Invariants.py`` reads
``collections.Callable``, which Python 3.10 removed (it is ``collections.abc.Callable``).
On a newer interpreter the driver sets that one alias before importing OpenCEP, so OpenCEP
runs on the interpreter Kleene runs on; nothing else of OpenCEP is changed.
"""

from __future__ import annotations

import collections
import collections.abc
import importlib
import os
import sys
from datetime import datetime, timedelta
from typing import Any

#: The columns of a converted line (:func:`bench.opencep.opencep_line`), in order.
COLUMNS = ("Type", "Id", "Name", "Volume", "Price", "Time")


def _opencep(module: str, name: str) -> Any:
    """``name`` from OpenCEP's module ``module`` (found on ``sys.path``)."""
    return getattr(importlib.import_module(module), name)


def formatter() -> Any:
    """A ``DataFormatter`` for the converted stock lines: type = the BUY/SELL word,
    timestamp = ``stock_time`` milliseconds after an arbitrary midnight."""
    data_formatter = _opencep("base.DataFormatter", "DataFormatter")
    classifier = _opencep("base.DataFormatter", "EventTypeClassifier")
    str_to_number = _opencep("misc.Utils", "str_to_number")
    midnight = datetime(2000, 1, 1)

    class ByType(classifier):  # type: ignore[misc,valid-type]
        def get_event_type(self, event_payload: dict[str, Any]) -> Any:
            return event_payload["Type"]

    class TickFormatter(data_formatter):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            super().__init__(ByType())

        def parse_event(self, raw_data: str) -> dict[str, Any]:
            return dict(zip(COLUMNS, map(str_to_number, raw_data.rstrip("\n").split(",")),
                            strict=True))

        def get_event_timestamp(self, event_payload: dict[str, Any]) -> datetime:
            return midnight + timedelta(milliseconds=event_payload["Time"])

    return TickFormatter()


def pattern(workload: str, ms: int) -> Any:
    """The workload as an OpenCEP ``Pattern`` within ``ms`` milliseconds."""
    prim = _opencep("base.PatternStructure", "PrimitiveEventStructure")
    variable = _opencep("condition.Condition", "Variable")
    equal = _opencep("condition.BaseRelationCondition", "EqCondition")
    greater = _opencep("condition.BaseRelationCondition", "GreaterThanCondition")
    both = _opencep("condition.CompositeCondition", "AndCondition")
    seq = _opencep("base.PatternStructure", "SeqOperator")

    def name(var: str) -> Any:
        return variable(var, lambda e: e["Name"])

    def price(var: str) -> Any:
        return variable(var, lambda e: e["Price"])

    middle, last = ("r", "q") if workload == "KC" else ("y", "z")
    y = prim("BUY", middle)
    if workload == "seq3":
        structure = seq(prim("SELL", "x"), y, prim("BUY", last))
    elif workload == "AND3":
        structure = _opencep("base.PatternStructure", "AndOperator")(
            prim("SELL", "x"), y, prim("BUY", last))
    elif workload == "KC":
        closure = _opencep("base.PatternStructure", "KleeneClosureOperator")
        structure = seq(prim("SELL", "x"), closure(y, min_size=1, max_size=3), prim("BUY", last))
    else:
        raise SystemExit(f"unknown workload {workload!r} (seq3, AND3, KC)")
    condition = both(equal(name("x"), "INTC"), equal(name(middle), "RIMM"),
                     equal(name(last), "QQQ"), greater(price(last), price("x")))
    return _opencep("base.Pattern", "Pattern")(structure, condition, timedelta(milliseconds=ms))


def event_ids(match: Any) -> list[int]:
    """The ``Id`` of each primitive event of ``match``, in OpenCEP's order (a Kleene
    closure's events are one aggregated event holding them)."""
    out: list[int] = []
    for e in match.events:
        out += [p.payload["Id"] for p in getattr(e, "primitive_events", [e])]
    return out


def main(argv: list[str]) -> int:
    checkout, events, workload, ms = argv[:4]
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [checkout] + [p for p in sys.path if os.path.abspath(p or ".") != here]
    if not hasattr(collections, "Callable"):       # Python >= 3.10 (see the docstring)
        collections.Callable = collections.abc.Callable  # type: ignore[attr-defined]
    cep = _opencep("CEP", "CEP")([pattern(workload, int(ms))])
    stream = _opencep("stream.FileStream", "FileInputStream")(events)
    found = _opencep("stream.Stream", "OutputStream")()
    cep.run(stream, found, formatter())
    matches = list(found)
    if len(argv) > 4:
        with open(argv[4], "w", encoding="utf-8") as out:
            out.writelines(" ".join(map(str, event_ids(m))) + "\n" for m in matches)
    print(len(matches))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
