"""Worker of the CORE adapter: one CEQL query over events, through ``pycer``'s offline server.

Run by the Python 3.13 of ``.peers/core`` (``pycer``, CORE's bindings), not by Kleene's:
standard library and ``pycer`` only, in a scratch folder (CORE writes ``logs/`` into the
working directory). One JSON object on stdin::

    {"declaration": "CREATE STREAM S {...}", "query": "SELECT ...",
     "events": [[type, [value, ...]], ...]}

each event's values in its declared attributes' order, the first ``kleene_pos`` (its
position in Kleene's stream); one JSON object on stdout: ``{"version", "matches"}``, each
match the sorted positions of the events CORE printed for one complex event (CORE prints
``[start,end], ((id: T attributes: [v1 v2 ... ]) ...)``, one complex event a line), or
``{"error": "..."}``. With ``"count_only": true`` the answer is the number of complex
events instead, with the CPU seconds of sending the events and reading the output
(``engine_s``) and the process's peak resident memory (``peak_mb``).
"""

from __future__ import annotations

import json
import os
import re
import resource
import sys
import time
from importlib.metadata import version
from typing import Any

#: An event of CORE's printed output: its first attribute is ``kleene_pos``.
_EVENT = re.compile(r"\(id: \d+ attributes: \[(\d+) ")


def run(msg: dict[str, Any]) -> dict[str, Any]:
    # lazy: the peer's package, only in .peers/core
    import pycer

    server = pycer.PyOfflineServer()
    info = server.declare_stream(msg["declaration"])
    ids = {e.name: e.id for e in info.events_info}
    server.add_query(msg["query"])
    wrap = {int: pycer.PyIntValue, float: pycer.PyDoubleValue, str: pycer.PyStringValue,
            bool: pycer.PyBoolValue}
    events = [pycer.PyEvent(ids[kind], [wrap[type(v)](v) for v in values])
              for kind, values in msg["events"]]
    started = time.process_time()
    server.send_events(events)
    out = server.get_output()
    engine = time.process_time() - started
    if msg.get("count_only"):
        return {"version": "pycer " + version("pycer"), "engine_s": engine,
                "count": sum(1 for line in out.splitlines() if line.startswith("[")),
                "peak_mb": peak_mb()}
    return {"version": "pycer " + version("pycer"), "matches": printed(out)}


def peak_mb() -> float:
    """This process's peak resident memory in MB: ``VmHWM`` of ``/proc/self/status``
    (``ru_maxrss`` is not: Linux keeps in it the parent's size at the fork before
    ``exec``), ``ru_maxrss`` where there is no ``/proc``."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def printed(out: str) -> list[list[int]]:
    """The complex events of CORE's printed output, each as its events' ``kleene_pos``."""
    return [sorted(int(p) for p in _EVENT.findall(line))
            for line in out.splitlines() if line.startswith("[")]


def main() -> None:
    msg = json.loads(sys.stdin.read())
    real = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # CORE's own prints (C++ and Python) stay off the answer channel
    sys.stdout = sys.stderr
    try:
        answer = run(msg)
    except Exception as err:  # the engine's failure is the answer
        answer = {"error": f"{type(err).__name__}: {str(err)[:2000]}"}
    real.write(json.dumps(answer) + "\n")
    real.flush()


if __name__ == "__main__":
    main()
