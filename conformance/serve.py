"""Serve a Python engine over the backend protocol (:mod:`kleene.conformance.wire`).

``python -m kleene.conformance.serve SPEC`` speaks protocol 1 (table requests too, for
``reference`` and ``match-recognize``) on stdin/stdout
for the engine or backend ``SPEC`` names (a registered engine, an entry
point or a ``module:factory``; see :func:`~kleene.conformance.backends.find_backend`):
the harness side of an external backend, for testing the protocol with any
engine and as a reference for implementers.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from kleene import __version__
from kleene.conformance import wire
from kleene.conformance.backends import find_backend
from kleene.conformance.outcome import Backend, table_backend


def answer(backend: Backend, message: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to one request (``None`` for ``bye``)."""
    if message.get("cmd") == "hello":
        return wire.hello_answer(backend.name, backend.version or __version__,
                                 [str(f) for f in backend.capabilities])
    if message.get("cmd") == "run" and wire.is_table_message(message):
        outcome = table_backend(backend).run(wire.TableRequest.from_message(message))
        if outcome.table is not None:
            return {"seq": message["seq"], "table": outcome.table.to_json()}
        code, text = outcome.error or ("internal", f"{outcome.verdict}: {outcome.broken}")
        return {"seq": message["seq"], "error": {"code": code, "message": text}}
    if message.get("cmd") == "run":
        outcome = backend.run(wire.Request.from_message(message))
        if outcome.matches is not None:
            return {"seq": message["seq"], "matches": [m.to_json() for m in outcome.matches]}
        code, text = outcome.error or ("internal", f"{outcome.verdict}: {outcome.broken}")
        return {"seq": message["seq"], "error": {"code": code, "message": text}}
    return None


def serve(backend: Backend, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> int:
    """Answer requests until ``bye`` or the end of input; the exit status."""
    for line in stdin:
        message = json.loads(line)
        reply = answer(backend, message)
        if reply is None:
            break
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()
    backend.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m kleene.conformance.serve SPEC``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m kleene.conformance.serve ENGINE|module:factory", file=sys.stderr)
        return 2
    return serve(find_backend(args[0]))


if __name__ == "__main__":
    sys.exit(main())
