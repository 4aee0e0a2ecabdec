"""``kleene trace``: a run step by step, for the SES automaton (seed 000 Fig. 6), the
NFAs of seed 003 and the SRTs of seed 004 (each family's tracer,
:mod:`kleene.engines.trace`), and the searches of a ``MATCH_RECOGNIZE`` statement
(:mod:`kleene.cli.trace_table`).

Text on standard output, or an HTML page (``-o out.html``, one self-contained
file, pictures inline) with the transition graph of every step: the current
states black, the transitions taken thick (for SES runs, the states a run
traversed before gray).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kleene.cli.common import Commands, add_event_options, load_stream, plural, say_query
from kleene.cli.draw import add_pattern_options, compile_pattern, pattern_name, pattern_query
from kleene.cli.schema import (
    add_allow_missing_option,
    add_quiet_option,
    check_schema,
    say_warnings,
)
from kleene.data.outputs import refuse_inputs, replacing
from kleene.engines.trace import trace, tracer_of
from kleene.reference.errors import PatternError, Unsupported

NAME = "trace"
HELP = ("show a run of an automaton step by step (SES automaton, NFAs, SRTs), or the "
        "searches of a MATCH_RECOGNIZE")
DESCRIPTION = """\
Run the automaton an engine compiles PATTERN (a file, or the pattern text
itself) to over the events and show, for each event, what it did.

SES automaton (seed 000): the active instances, their state, the transition
each takes ({} when none) and their match buffer, and the matches reported.
--run follows one run, the instances started at one event (e1 is the first
event, or a 0-based position), as seed 000 Fig. 6 follows the run that finds
patient 1's match.

NFAs (seed 003, --engine nfa-*): the input buffers, the instances created
(each event bound says whether it came with its arrival or from a buffer,
read earlier and evaluated now), the live instances, the matches.

SRTs (seed 004, --engine srt): the runs (state, registers, marks), the
transitions that fire, the matches.

MATCH_RECOGNIZE (a SQL statement; --events is the table its FROM names, read
by DuckDB): the reference's search from each start row of each partition, in
preferment order: each row tried for a variable and whether its DEFINE held,
with the values it read; each choice (iterate or leave, an alternation's
parts) and each step back to the choice left, with the rows given back; the
match, the first way whose every row held; where AFTER MATCH SKIP starts the
next search; then the statement's answer as CSV.

With -o FILE the trace is one HTML page with the transition graph of every step
(MATCH_RECOGNIZE: the engine's program and each search as a tree).

examples:
  kleene trace q1.ses --events chemo.csv --time-unit h --run e1 -o q1-run.html
  kleene trace q1.ses --events chemo.csv --time-unit h --limit 5
  kleene trace seq.op --engine nfa-chain --events abc.csv -o chain.html
  kleene trace table1.sremo --engine srt --events table1.csv
  kleene trace v.sql --events prices.csv -o v.html"""


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    """Declare ``kleene trace`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_pattern_options(parser)
    parser.add_argument("--run", dest="run_from", metavar="EVENT",
                        help="follow the run started at EVENT: eK (the paper's 1-based name) "
                             "or a 0-based position (default: every run)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the trace to FILE (default: standard output)")
    parser.add_argument("--format", choices=("html", "text"),
                        help="html (with pictures) or text (default: html with -o, else text)")
    add_event_options(parser)
    add_allow_missing_option(parser)
    add_quiet_option(parser)
    return parser


def run_start(text: str | None, events: int) -> int | None:
    """The 0-based position ``--run`` names (``e1`` is 0), checked against the stream."""
    if text is None:
        return None
    word = text.strip()
    named = word[:1].lower() == "e"
    try:
        position = int(word[1:] if named else word) - named
    except ValueError:
        raise PatternError(f"--run expects eK or a position, not {text!r}") from None
    if not 0 <= position < events:
        raise PatternError(f"--run {text}: the stream has {events} events (e1..e{events})")
    return position


def run(args: argparse.Namespace) -> int:
    """Compile, load, trace, write; user mistakes propagate as ``KleeneError``."""
    if args.output is not None:   # before any work: never an input, nor a link to one
        refuse_inputs(args.output, [args.pattern, args.events], option="--output")
    query = pattern_query(args)
    if query.answers_tables:
        # lazy: DuckDB and the table door are a MATCH_RECOGNIZE statement's only
        from kleene.cli.trace_table import trace_table
        text, error = trace_table(args, query)
        write(args.output, text)
        if error is not None:
            raise error
        return 0
    stream = load_stream(args)
    query = query.with_time_unit(stream.time_unit)
    check_schema(query, stream, source=args.events, command=NAME,
                 allow_missing=args.allow_missing)
    compiled, query = compile_pattern(args, query)
    if tracer_of(compiled) is None:
        raise Unsupported(f"engine {args.engine or 'chosen'} runs no automaton a trace "
                          "follows: choose an SES automaton (ses-automaton*), an NFA (nfa-*) "
                          "or an SRT (srt*)")
    say_warnings(NAME, query, stream, quiet=args.quiet)
    say_query(NAME, query)
    first = run_start(args.run_from, len(stream))
    t = trace(compiled, stream)
    fmt = args.format or ("html" if args.output else "text")
    if fmt == "html":
        title = f"kleene trace: {pattern_name(args.pattern)}"
        text = t.html(first, title=title.rstrip(": "), events=stream)
    else:
        text = "\n".join(t.text(first)) + "\n"
    write(args.output, text)
    return 0


def write(output: str | None, text: str) -> None:
    """``text`` into the file ``output`` (through a temporary file renamed into place,
    :func:`kleene.data.outputs.replacing`), or on standard output; a file written is
    said on stderr in one line."""
    if output:
        with replacing(output, option="--output") as temporary:
            size = Path(temporary).write_bytes(text.encode("utf-8"))
        print(f"kleene trace: wrote {output} ({plural(size, 'byte')})", file=sys.stderr)
    else:
        sys.stdout.write(text)
