"""The ``kleene`` command line: one module per subcommand.

A subcommand module ``kleene.cli.NAME`` has ``NAME``, ``add_parser(commands)``
(declares its options on an argparse sub-parser) and ``run(args) -> int``;
adding one (``draw``, ``prove``, ``trace``, ...) is one entry in :data:`COMMANDS`.
Subcommand modules are imported lazily: ``kleene match ...`` imports only
``kleene.cli.match`` (not networkx for ``draw``, z3 for ``prove``, the
conformance cases for ``demo``); ``kleene --help`` imports them all.
Pattern languages plug in through :mod:`kleene.reference.languages`.

Exit codes: 0 success; 1 the command ran and found a disagreement (``demo``,
``conform``);
2 a user mistake (bad option, unreadable file, pattern syntax, malformed
events, exhausted budget): one message on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import NoReturn

from kleene import __version__
from kleene.reference.errors import KleeneError

#: The subcommands (module ``kleene.cli.NAME`` for each NAME), in the order
#: ``kleene --help`` lists them.
COMMANDS = (
    "match",
    "demo",
    "conform",
    "prove",
    "draw",
    "trace",
    "convert",
    "stream",
    "translate",
)

#: Subcommands that, without ``--spark``, run in this process alone and never use
#: pandas: the ``kleene`` program runs them with pandas unimportable (:func:`no_pandas`).
NO_PANDAS = frozenset({"match", "convert", "trace", "translate"})

#: What :func:`no_pandas` makes unimportable: pandas, and dateutil, which pyarrow
#: imports at its first conversion of a Python value to convert dateutil time zones
#: and ``relativedelta`` objects (Kleene makes neither; pyarrow converts the
#: standard library's ``datetime.timezone`` without it).
UNUSED = ("pandas", "dateutil")

#: Exit code of a user mistake.
USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose mistakes are one line on stderr (the usage block
    stays in ``--help``): ``kleene match: the following arguments are required:
    --pattern (see kleene match --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def command(name: str) -> ModuleType:
    """The module of subcommand ``name`` (one of :data:`COMMANDS`), imported now."""
    return importlib.import_module(f"kleene.cli.{name}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``kleene`` parser with every subcommand of :data:`COMMANDS`; with ``only``
    (one of them), only that subcommand's module is imported and its options
    declared: the others are bare names (enough to parse that command's line,
    not to print ``kleene --help``)."""
    parser = OneLineParser(
        prog="kleene",
        description="Kleene: a reference and conformance suite for complex event pattern "
                    "matching. Run `kleene COMMAND --help` for a command's options.",
        epilog="example: kleene match --pattern examples/chemo/q1.ses "
               "--events examples/chemo/chemo.csv --time-unit h --policy next")
    parser.add_argument("--version", action="version", version=f"kleene {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        if only is None or name == only:
            module = command(name)
            module.add_parser(commands).set_defaults(run=module.run)
        else:
            commands.add_parser(name)
    return parser


def _exit_now(code: int) -> None:
    """End the ``kleene`` program now, with ``code``, once its output is flushed: skip
    the interpreter's teardown (freeing every module of NumPy, pyarrow and Kleene and
    the loaded columns one object at a time: 0.03 s of a ``kleene match`` on the stock
    stream). Only for a lean command (:data:`NO_PANDAS`, not on Spark), which has closed
    the files it wrote and leaves no ``atexit`` work; if the flush fails (a closed pipe),
    the exception takes the usual way out."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:          # None: the program was started with it closed
            stream.flush()
    os._exit(code)


def _read_ahead(argv: Sequence[str]) -> None:
    """``kleene match --events FILE`` (a lean command: not on Spark; not ``--stream``,
    which reads in bounded memory): start reading FILE on a thread now, before NumPy,
    pyarrow and Kleene's modules are imported, and cutting its lines into columns
    once their reader is imported, unless ``--limit`` asks for fewer
    (:func:`kleene.data.filebytes.prefetch`; the loader takes what is done). Only
    the exact spellings ``--events FILE`` and ``--events=FILE`` are seen here; an
    abbreviation argparse accepts just reads the file later."""
    if _dispatched(argv) != "match" or any(a.startswith("--str") for a in argv):
        return
    path, fmt = _option(argv, "--events"), _option(argv, "--events-format")
    if path is not None:
        # lazy: `kleene` itself imports nothing a command may not need (issue 10)
        from kleene.data.filebytes import prefetch
        prefetch(path, fmt, further=not any(a.startswith("--li") for a in argv))


def _option(argv: Sequence[str], name: str) -> str | None:
    """The value of the last ``name VALUE`` or ``name=VALUE`` in ``argv``."""
    value = None
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith(name + "="):
            value = arg[len(name) + 1:]
    return value


def _dispatched(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs when it is the first word (``kleene match ...``),
    else None: options before it (``--help``, ``--version``) or no subcommand
    need the whole parser."""
    return argv[0] if argv and argv[0] in COMMANDS else None


class _NoPandas:
    """Refuses to import the packages of :data:`UNUSED`, as if they were not installed (a
    meta path finder: ``find_spec`` is all ``sys.meta_path`` asks; subclassing
    ``importlib.abc.MetaPathFinder`` would import ``importlib.resources``, 11 ms a start)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname.partition(".")[0] in UNUSED:
            raise ModuleNotFoundError(f"{fullname} is not used by this command", name=fullname)
        return None


@contextlib.contextmanager
def no_pandas() -> Iterator[None]:
    """Run the block with pandas unimportable (nothing if pandas is already imported).

    pyarrow imports pandas, when it is installed, at its first conversion of a
    Python value or NumPy array (to recognise pandas types): 0.6 CPU s, a third
    of ``kleene match`` on the stock stream, and pyarrow 26 has no switch for
    it. Without pandas, pyarrow converts exactly as it does with it for values
    that are not pandas objects, and the columnar plane makes no pandas object.
    Likewise dateutil (:data:`UNUSED`; 10–25 ms of each start).
    """
    if "pandas" in sys.modules:
        yield
        return
    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``kleene`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    With ``argv`` None this process is the ``kleene`` program: a command of
    :data:`NO_PANDAS` run without ``--spark`` runs in :func:`no_pandas` (a caller
    that passes ``argv`` may use pandas afterwards in its own process, and a
    pyarrow that took pandas as absent once would not see its types)."""
    program = argv is None
    if argv is None:
        argv = sys.argv[1:]
        # Kleene does no linear algebra: NumPy's OpenBLAS would start a thread per
        # core at import, 0.07 CPU s of every start (before NumPy is imported).
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    lean = program and _lean(argv)
    with no_pandas() if lean else contextlib.nullcontext():
        code = _run(argv, program, lean)
    if lean:    # also after a user mistake: the read-ahead thread may still be parsing
        _exit_now(code)
    return code


def _lean(argv: Sequence[str]) -> bool:
    """Whether ``argv`` runs a command of :data:`NO_PANDAS` without Spark (``--sp`` is
    the shortest abbreviation of ``--spark`` argparse accepts)."""
    return _dispatched(argv) in NO_PANDAS and not any(a.startswith("--sp") for a in argv)


def _run(argv: Sequence[str], program: bool, lean: bool) -> int:
    if program:
        if lean:
            _read_ahead(argv)
        # Importing NumPy, pyarrow and Kleene makes no garbage cycles, but the cyclic
        # collector would walk the growing heap of modules over and over (10 ms): off
        # while the command's modules are imported, and what they made is frozen (out
        # of every later collection; gc.freeze is meant for this).
        gc.disable()
    parser = build_parser(only=_dispatched(argv))
    if program:
        gc.freeze()
        gc.enable()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error argparse printed
        return done.code if isinstance(done.code, int) else USAGE
    assert not (lean and getattr(args, "spark", False)), "--spark runs with pandas"
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
