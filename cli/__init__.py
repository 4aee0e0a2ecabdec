"""The ``kleene`` command line: one module per subcommand.

A subcommand module has ``NAME``, ``add_parser(commands)`` (declares its
options on an argparse sub-parser) and ``run(args) -> int``; adding one
(``draw``, ``prove``, ``trace``, ...) is one entry in :data:`COMMANDS`.
Pattern languages plug in through :mod:`kleene.reference.languages`.

Exit codes: 0 success; 1 the command ran and found a disagreement (``demo``,
``conform``);
2 a user mistake (bad option, unreadable file, pattern syntax, malformed
events, exhausted budget): one message on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from kleene import __version__
from kleene.cli import conform, convert, demo, draw, match, prove, stream, trace
from kleene.reference.errors import KleeneError

#: The subcommands, in the order ``kleene --help`` lists them.
COMMANDS = (match, demo, conform, prove, draw, trace, convert, stream)

#: Exit code of a user mistake.
USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose mistakes are one line on stderr (the usage block
    stays in ``--help``): ``kleene match: the following arguments are required:
    --pattern (see kleene match --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``kleene`` parser with every subcommand of :data:`COMMANDS`."""
    parser = OneLineParser(
        prog="kleene",
        description="Kleene: a reference and conformance suite for complex event pattern "
                    "matching. Run `kleene COMMAND --help` for a command's options.",
        epilog="example: kleene match --pattern examples/chemo/q1.ses "
               "--events examples/chemo/chemo.csv --time-unit h --policy next")
    parser.add_argument("--version", action="version", version=f"kleene {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(commands).set_defaults(run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``kleene`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error argparse printed
        return done.code if isinstance(done.code, int) else USAGE
    try:
        return int(args.run(args))
    except KleeneError as err:
        sys.stdout.flush()
        print(f"kleene {args.command}: {err}", file=sys.stderr)
        return USAGE
    except BrokenPipeError:  # `kleene match ... | head`: the reader is gone
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except RecursionError:  # the parsers refuse deep nesting first; this is a last resort
        sys.stdout.flush()
        print(f"kleene {args.command}: the pattern is nested too deeply for Python's "
              "recursion limit; flatten it", file=sys.stderr)
        return USAGE
    except MemoryError:
        sys.stdout.flush()
        print(f"kleene {args.command}: out of memory; bound the search with --memory-limit "
              "MB, --limit N or a smaller window", file=sys.stderr)
        return USAGE
