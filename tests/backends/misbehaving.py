"""A backend that misbehaves in one way (argv[1]) on requests whose first event
has ``"bad": true`` and answers like the SES automaton otherwise (for the tests
of the runner's verdicts; tests/test_conform.py)."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from kleene.conformance.backends import find_backend
from kleene.conformance.serve import answer

MODE = sys.argv[1]
BACKEND = find_backend("ses-automaton")


def hello() -> dict[str, Any]:
    reply = answer(BACKEND, {"cmd": "hello", "protocol": 1})
    assert reply is not None
    if MODE == "unknown-capability":
        reply["capabilities"].append("ses:teleport")
    if MODE == "bad-hello":
        del reply["version"]
    return reply


for line in sys.stdin:
    message = json.loads(line)
    if message["cmd"] == "bye":
        break
    if message["cmd"] == "hello":
        reply = hello()
        if MODE == "not-utf8-hello":   # the name's bytes are Latin-1, not UTF-8
            text = json.dumps({**reply, "name": "caf\u00e9"}, ensure_ascii=False)
            sys.stdout.buffer.write(text.encode("latin-1") + b"\n")
            sys.stdout.flush()
            continue
    else:
        answered = answer(BACKEND, message)
        assert answered is not None
        reply = answered
        if MODE == "malformed-always":
            reply = {"seq": message["seq"], "matches": [{"a": "0"}]}
        elif message["events"] and message["events"][0].get("bad"):
            if MODE == "crash":
                print("the backend fell over", file=sys.stderr, flush=True)
                sys.exit(3)
            if MODE == "hang":
                time.sleep(60)
            if MODE == "non-json":
                print("this is not JSON", flush=True)
                continue
            if MODE == "malformed":
                reply = {"seq": message["seq"], "matches": [{"a": "0"}]}
            if MODE == "extra-field":   # a field the schema does not name
                reply["debug"] = "took 3 ms"
            if MODE == "duplicate":
                reply["matches"] = reply["matches"] * 2
            if MODE == "huge":   # one 11 MB line of bogus matches
                reply["matches"] = [{"a": [i], "b": [i + 1]} for i in range(350_000)]
            if MODE == "endless":   # an answer line that never ends
                while True:
                    sys.stdout.write("[" * 65536)
            if MODE == "orphan":   # exits while a forked child keeps stdout open
                if os.fork() == 0:
                    time.sleep(120)
                os._exit(0)
    print(json.dumps(reply), flush=True)
