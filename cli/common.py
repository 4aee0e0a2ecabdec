"""What the subcommands share: event options, reading files, budgets, printing matches.

Printing conventions: positions are 0-based (the canonical
:class:`~kleene.reference.match.Match`); the papers' event names are 1-based
(``e1`` is position 0), written in their substitution notation
``{c/e1, p/⟨e4, e9⟩, b/e12}``.
"""

from __future__ import annotations

import argparse
import itertools
import operator
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypeAlias

from kleene.data.batches import open_events
from kleene.data.loaders import FORMATS, load_events
from kleene.reference.budget import DEFAULT_HELD, DEFAULT_STEPS, Budget, step_budget
from kleene.reference.durations import READINGS
from kleene.reference.errors import PatternError, Unsupported
from kleene.reference.events import UNIT_MS, Stream
from kleene.reference.languages import LANGUAGES
from kleene.reference.match import Match, readable_name
from kleene.reference.query import Query

#: What a subcommand's ``add_parser`` is given: the ``kleene`` parser's subcommands.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

#: The one budget the reference semantics draw from (see :mod:`kleene.reference.budget`).
BUDGET_NAME = "steps"


def add_event_options(parser: argparse.ArgumentParser, *, positional: bool = False) -> None:
    """``--events FILE`` (``EVENTS`` with ``positional``) and the options that say how to
    read it."""
    group = parser.add_argument_group("events")
    what = "the events: CSV, JSON Lines, Parquet or stock-tick lines, gzip or not"
    if positional:
        group.add_argument("events", metavar="EVENTS", help=what)
    else:
        group.add_argument("--events", required=True, metavar="FILE", help=what)
    group.add_argument("--events-format", choices=FORMATS, metavar="FORMAT",
                       help=f"one of {', '.join(FORMATS)} (default: from the file's extension)")
    group.add_argument("--ts", metavar="FIELD",
                       help="the timestamp field (default: ts; stock_time for stock lines)")
    group.add_argument("--type-field", default="type", metavar="FIELD",
                       help="the event type field (default: type)")
    group.add_argument("--time-unit", metavar="UNIT", type=_time_unit,
                       help="the unit of the timestamps: ms, s, min, h or d (needed when the "
                            "pattern's window has a unit; stock lines and ISO dates are ms)")
    group.add_argument("--limit", type=non_negative, metavar="N",
                       help="read only the first N events")
    group.add_argument("--sort", action="store_true",
                       help="sort the events by timestamp (stably: ties keep their order in "
                            "the file) instead of rejecting a file that is out of order")
    group.add_argument("--stream", action="store_true",
                       help="read stock lines or Parquet in batches, in memory bounded by the "
                            "batch and the window (needs an engine, not the reference; kleene "
                            "match does so by default from about a million events)")


def load_stream(args: argparse.Namespace, batched: bool | None = None) -> Stream:
    """The stream that the event options of :func:`add_event_options` describe (read in
    batches as an engine runs when ``batched``; ``None``: with ``--stream``)."""
    options = {"format": args.events_format, "ts": args.ts, "type": args.type_field or None,
               "time_unit": args.time_unit, "limit": args.limit, "sort": args.sort}
    if getattr(args, "stream", False) if batched is None else batched:
        if getattr(args, "engine", None) == "reference":
            raise Unsupported("--stream needs an engine: the reference semantics read the "
                              "whole stream")
        return open_events(args.events, **options)
    return load_events(args.events, **options)


def add_budget_option(parser: argparse.ArgumentParser) -> None:
    """``--budget [steps=]N``, ``--time-limit S``, ``--memory-limit MB``: the
    reference's search budgets (:class:`~kleene.reference.budget.Budget`)."""
    parser.add_argument("--budget", type=budget_limit, default=None, metavar="N",
                        help=f"the search budget in steps: substitutions the reference "
                             f"tries, or matches an engine reports and the most it holds "
                             f"at once (docs/architecture.md, \"Engine budgets\"; also written "
                             f"{BUDGET_NAME}=N; default {DEFAULT_STEPS:,} steps and "
                             f"{DEFAULT_HELD:,} held at once); past it the command stops with "
                             "an error instead of running for hours")
    parser.add_argument("--time-limit", type=positive_number, metavar="SECONDS",
                        help="stop the search (reference or engine) after SECONDS of "
                             "wall-clock time")
    parser.add_argument("--memory-limit", type=positive_number, metavar="MB",
                        help="stop the search (reference or engine) once the process holds "
                             "more than MB megabytes (default: a quarter of the machine's "
                             "memory)")


def budget_limit(text: str) -> int:
    """``N`` or ``steps=N`` as the number N (an argparse ``type``)."""
    name, eq, number = text.rpartition("=")
    if eq and name.strip() != BUDGET_NAME:
        raise argparse.ArgumentTypeError(f"unknown budget {name!r}; --budget counts "
                                         f"{BUDGET_NAME!r} (--time-limit and --memory-limit "
                                         "bound time and memory)")
    return non_negative(number)


def make_budget(limit: int | None, seconds: float | None = None,
                memory_mb: float | None = None) -> Budget:
    """A fresh :class:`Budget` of ``limit`` steps, each engine holding at most ``limit``
    things at once (``None``: the defaults, ``DEFAULT_STEPS`` and ``DEFAULT_HELD``), and a
    deadline, a memory ceiling."""
    return step_budget(limit, seconds=seconds, memory_mb=memory_mb)


def budget_of(args: argparse.Namespace) -> Budget:
    """The budget that :func:`add_budget_option`'s options describe."""
    memory = getattr(args, "memory_limit", None)
    return make_budget(args.budget, getattr(args, "time_limit", None),
                       memory if memory is not None else default_memory_mb())


#: The share of the machine's memory a search may hold when ``--memory-limit`` is not given:
#: a quarter leaves three quarters to the others on a shared machine, and is far above what
#: the searches need (docs/architecture.md, "Engine budgets": an exponential case stops on
#: its step budget below 0.3 GB, a windowed one near 1 GB, a 1 M-row funnel in 0.5 GB).
DEFAULT_MEMORY_SHARE = 0.25


def default_memory_mb() -> float | None:
    """:data:`DEFAULT_MEMORY_SHARE` of the machine's memory in MiB (``None`` where
    unknown): the default ceiling, so a runaway search stops long before the machine swaps
    and leaves it usable to others."""
    try:
        machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        return float(int(machine * DEFAULT_MEMORY_SHARE) // 2**20)
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return None


def positive_number(text: str) -> float:
    """``text`` as a number > 0 (an argparse ``type``)."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def read_pattern(path: str) -> str:
    """The text of the pattern file ``path`` (a UTF-8 byte-order mark, which some editors
    write, dropped); a :class:`PatternError` when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise PatternError(f"cannot read the pattern file {path}: {reason}") from None


def pattern_text(arg: str) -> tuple[str, str]:
    """``(text, source)``: the file ``arg`` if it exists, else ``arg`` itself when it reads
    as pattern text (it has blanks or brackets), else the clear cannot-read error."""
    if _is_file(arg) or not any(ch in arg for ch in " \t\n<{(⟨"):
        return read_pattern(arg), arg
    return arg, "<pattern>"


def _is_file(arg: str) -> bool:
    """Whether ``arg`` names a file (text too long for a file name names none)."""
    try:
        return Path(arg).is_file()
    except OSError:
        return False


def non_negative(text: str) -> int:
    """``text`` as a whole number ≥ 0 (``_`` and ``,`` separators allowed; an argparse ``type``)."""
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative number, got {value}")
    return value


def positive_count(text: str) -> int:
    """``text`` as a whole number ≥ 1 (as :func:`non_negative`; an argparse ``type``)."""
    value = non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a positive number, got 0")
    return value


def _time_unit(text: str) -> str:
    if text.lower() not in UNIT_MS:
        raise argparse.ArgumentTypeError(f"unknown time unit {text!r}; use ms, s, min, h or d")
    return text


# ---------------------------------------------------------------- the query


class QueryHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """``--help`` with every language's policies listed: computed when the help is
    printed, so that running a command builds no language it does not use."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        if text is not None and "%(policies)" in text:
            policies = sorted({p for lang in LANGUAGES.values() for p in lang.policies})
            text = text.replace("%(policies)s", ", ".join(policies))
        return text


def add_query_options(parser: argparse.ArgumentParser) -> None:
    """``--pattern FILE`` and what decides its query besides the events: ``--language``,
    ``--policy``, ``--window-reading``, ``--window`` and ``--window-type`` (the door of
    ``kleene match`` and ``kleene stream``, :func:`query_of`)."""
    parser.add_argument("--pattern", required=True, metavar="FILE",
                        help="the pattern file, or the pattern's text itself (a SQL "
                             "SELECT ... MATCH_RECOGNIZE (...) statement, for instance)")
    parser.add_argument("--language", choices=list(LANGUAGES),
                        help="the pattern language (default: recognised from the text)")
    parser.add_argument("--policy", default=None, metavar="POLICY",
                        help="the selection policy: %(policies)s (default: the "
                             "language's: any for SES and operator patterns, every "
                             "match; stream for SREMO)")
    parser.add_argument("--window-reading", choices=READINGS, default=None,
                        help="how the window bounds a match: inclusive, max ts - min ts <= "
                             "the window (the papers' reading, the default), or strict, < "
                             "(Wayeb's; the default for .sre files)")
    parser.add_argument("--window", type=_window_value, default=None, metavar="N",
                        help="for a Wayeb .sre pattern: the window, replacing the file's "
                             "{window:..} (elements for a count window, timestamp units for "
                             "a time window)")
    parser.add_argument("--window-type", choices=("count", "time"), default=None,
                        help="for a Wayeb .sre pattern: the window's type, replacing the "
                             "file's {windowType:..}")


def query_of(args: argparse.Namespace) -> Query:
    """The query the options of :func:`add_query_options` describe, decided once
    (:meth:`Query.parse`: the language's defaults for what is not given); a choice the
    language does not have is one line here, before any event is read."""
    text, source = pattern_text(args.pattern)
    return Query.parse(text, language=args.language,
                       policy=args.policy, reading=args.window_reading,
                       time_unit=args.time_unit, window=args.window,
                       window_type=args.window_type, source=source)


def say_query(command: str, query: Query) -> None:
    """Say on stderr which window and reading ``query`` uses when it is not the papers'
    reading of a window written in the pattern (``kleene COMMAND: time window 500 (the
    file's), read strict (...)``): a ``.sre`` file's window, or a strict reading. Every
    command that matches says it alike, once the input is checked and matching starts."""
    if query.reading != "inclusive" or query.lang.windowed is not None:
        print(f"kleene {command}: {query.said()}", file=sys.stderr)


def _window_value(text: str) -> int | float:
    """A ``--window`` value: a positive number (an argparse ``type``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return int(value) if value.is_integer() else value


# ---------------------------------------------------------------- printing matches

def readable(found: Iterable[Match]) -> set[Match]:
    """``found`` with each variable under its printed name
    (:func:`~kleene.reference.match.readable_name`: SREMO's marked positions as
    ``marked``); the same matches when every name is printed as it is (no match is
    built again: 3 CPU s for seq3's 345,742 matches, more than writing them)."""
    given = found if isinstance(found, set) else set(found)
    names = set(map(operator.itemgetter(0),
                    itertools.chain.from_iterable(m.bindings for m in given)))
    if all(readable_name(v) == v for v in names):
        return given
    return {Match.of({readable_name(v): m[v] for v in m.variables}) for m in given}


def canonical_order(found: Iterable[Match]) -> list[Match]:
    """Matches sorted by first position, then by their canonical JSON."""
    return sorted(found, key=lambda m: (m.first, m.dumps()))


def event_name(position: int) -> str:
    """The paper's 1-based name of the event at ``position``: ``e1`` is position 0."""
    return f"e{position + 1}"


def paper_notation(m: Match, order: Sequence[str] = ()) -> str:
    """``{c/e1, p/⟨e4, e9⟩, b/e12}``: variables in ``order`` (then the rest, sorted)."""
    names = [v for v in order if v in m.variables]
    names += [v for v in m.variables if v not in names]
    parts = []
    for v in names:
        events = [event_name(p) for p in m[v]]
        parts.append(f"{v}/{events[0]}" if len(events) == 1 else f"{v}/⟨{', '.join(events)}⟩")
    return "{" + ", ".join(parts) + "}"


def table(found: Iterable[Match], order: Sequence[str] = ()) -> list[str]:
    """One row per match, one column per variable (its positions), aligned."""
    ordered = canonical_order(found)
    columns = [v for v in order if any(v in m.variables for m in ordered)]
    columns += sorted({v for m in ordered for v in m.variables} - set(columns))
    rows = [["#", *columns]]
    for k, m in enumerate(ordered, start=1):
        rows.append([str(k), *(",".join(map(str, m[v])) if v in m.variables else "-"
                                for v in columns)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
            for r in rows]


def plural(n: int, word: str) -> str:
    """``1 match``, ``3 matches``, ``1,234 events``."""
    suffix = "es" if word.endswith(("s", "x", "ch", "sh")) else "s"
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}{suffix}"


# ---------------------------------------------------------------- engines


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--engine NAME`` and ``--counters``: compute the matches with a registered engine."""
    group = parser.add_argument_group("engines (compute the matches with an engine instead of "
                                      "the reference)")
    group.add_argument("--engine", metavar="NAME",
                       help="a registered engine, e.g. windows+ses, ses-automaton, "
                            "ses-bruteforce, or 'reference' for the reference semantics; it "
                            "must claim the policy (default: the fastest engine that claims "
                            "the pattern and policy, else the reference)")
    group.add_argument("--counters", action="store_true",
                       help="print the engine's counters (instances, predicate evaluations, "
                            "calls to A, ...) as one JSON object on stderr")
