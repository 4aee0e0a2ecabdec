"""What the subcommands share: event options, reading files, budgets, printing matches.

Printing conventions: positions are 0-based (the canonical
:class:`~kleene.reference.match.Match`); the papers' event names are 1-based
(``e1`` is position 0), written in their substitution notation
``{c/e1, p/⟨e4, e9⟩, b/e12}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from kleene.engines.protocol import Query, compile_query, engine, missing
from kleene.reference.budget import DEFAULT_STEPS, Budget
from kleene.reference.errors import PatternError, Unsupported
from kleene.reference.events import UNIT_MS, Stream
from kleene.reference.loaders import FORMATS, load_events, open_events
from kleene.reference.match import Match

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
                            "batch and the window (for files larger than memory; needs "
                            "--engine)")


def load_stream(args: argparse.Namespace) -> Stream:
    """The stream that the event options of :func:`add_event_options` describe (with
    ``--stream``, a source read in batches as an engine runs)."""
    options = {"format": args.events_format, "ts": args.ts, "type": args.type_field or None,
               "time_unit": args.time_unit, "limit": args.limit, "sort": args.sort}
    if getattr(args, "stream", False):
        if not getattr(args, "engine", None):
            raise Unsupported("--stream needs --engine NAME: the reference semantics read "
                              "the whole stream")
        return open_events(args.events, **options)
    return load_events(args.events, **options)


def add_budget_option(parser: argparse.ArgumentParser) -> None:
    """``--budget [steps=]N``: the reference's search budget."""
    parser.add_argument("--budget", type=budget_limit, default=DEFAULT_STEPS, metavar="N",
                        help=f"the reference's search budget in steps (also written "
                             f"{BUDGET_NAME}=N; default {DEFAULT_STEPS:,}); past it the "
                             "command stops with an error instead of running for hours")


def budget_limit(text: str) -> int:
    """``N`` or ``steps=N`` as the number N (an argparse ``type``)."""
    name, eq, number = text.rpartition("=")
    if eq and name.strip() != BUDGET_NAME:
        raise argparse.ArgumentTypeError(f"unknown budget {name!r}; the reference has one "
                                         f"budget, {BUDGET_NAME!r}")
    return non_negative(number)


def make_budget(limit: int) -> Budget:
    """A fresh :class:`Budget` of ``limit`` steps."""
    return Budget(name=BUDGET_NAME, limit=limit)


def read_pattern(path: str) -> str:
    """The text of the pattern file ``path``; a :class:`PatternError` when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise PatternError(f"cannot read the pattern file {path}: {reason}") from None


def non_negative(text: str) -> int:
    """``text`` as a whole number ≥ 0 (``_`` and ``,`` separators allowed; an argparse ``type``)."""
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative number, got {value}")
    return value


def _time_unit(text: str) -> str:
    if text.lower() not in UNIT_MS:
        raise argparse.ArgumentTypeError(f"unknown time unit {text!r}; use ms, s, min, h or d")
    return text


# ---------------------------------------------------------------- printing matches

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


def write_matches(found: Iterable[Match], path: str) -> None:
    """The matches in canonical order to ``path``: JSON lines, or Parquet for ``.parquet``
    (one row per match, one column per variable: its positions, null if unbound)."""
    ordered = canonical_order(found)
    try:
        if path.lower().endswith((".parquet", ".pq")):
            import pyarrow as pa
            import pyarrow.parquet as pq

            names = sorted({v for m in ordered for v in m.variables})
            pq.write_table(pa.table({v: pa.array([list(m[v]) if v in m.variables else None
                                                  for m in ordered], pa.list_(pa.int64()))
                                     for v in names}), path)
            return
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(m.dumps() + "\n" for m in ordered)
    except OSError as err:
        raise Unsupported(f"cannot write the matches to {path}: {err.strerror or err}") from None


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
                       help="a registered engine, e.g. ses-automaton, ses-bruteforce, "
                            "windows+ses; it must claim the policy (default: the reference "
                            "semantics; with --spark: ses-automaton)")
    group.add_argument("--counters", action="store_true",
                       help="print the engine's counters (instances, predicate evaluations, "
                            "calls to A, ...) as one JSON object on stderr")


def engine_matches(name: str, pattern: object, stream: Stream, policy: str,
                   counters: bool = False) -> set[Match]:
    """The matches of the engine ``name`` (it must claim ``policy``); with ``counters``
    its :class:`~kleene.engines.protocol.Counters` go to stderr as one JSON object."""
    eng = engine(name)
    query = Query.of(pattern, policy=policy, time_unit=stream.time_unit)
    absent = missing(eng, query)
    if absent:
        claimed = sorted(str(f) for f in eng.capabilities)
        raise Unsupported(f"engine {name!r} does not claim {', '.join(sorted(map(str, absent)))} "
                          f"(it claims: {', '.join(claimed) or 'nothing'}); choose another "
                          "--engine or --policy")
    compiled = compile_query(eng, query)
    found = set(compiled.run(stream))
    if counters:
        print(json.dumps(compiled.counters.as_dict()), file=sys.stderr)
    return found
