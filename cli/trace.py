"""``kleene trace``: a run of the SES automaton step by step (seed 000 Fig. 6).

Text on standard output, or an HTML page (``-o out.html``) with the
transition graph of every step: the current state black, the transitions
taken thick, the states a run traversed before gray.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kleene.cli.common import add_event_options, load_stream
from kleene.cli.draw import add_pattern_options, compile_pattern
from kleene.engines.trace import to_html, to_text, trace
from kleene.reference.errors import PatternError

NAME = "trace"
HELP = "show a run of the SES automaton step by step (seed 000 Fig. 6)"
DESCRIPTION = """\
Run the SES automaton of PATTERN (a file, or the pattern text itself) over
the events and show, for each event, the active automaton instances: their
state, the transition each takes ({} when none) and their match buffer, and
the matches reported. --run follows one run, the instances started at one
event (e1 is the first event, or a 0-based position), as seed 000 Fig. 6
follows the run that finds patient 1's match. With -o FILE the trace is an
HTML page with the transition graph of every step.

examples:
  kleene trace q1.ses --events chemo.csv --time-unit h --run e1 -o q1-run.html
  kleene trace q1.ses --events chemo.csv --time-unit h --limit 5"""


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    compiled, _, _ = compile_pattern(args)
    stream = load_stream(args)
    first = run_start(args.run_from, len(stream))
    t = trace(compiled, stream)
    fmt = args.format or ("html" if args.output else "text")
    if fmt == "html":
        title = f"kleene trace: {Path(args.pattern).name if Path(args.pattern).is_file() else ''}"
        text = to_html(t, first, title=title.rstrip(": "), events=stream)
    else:
        text = "\n".join(to_text(t, first)) + "\n"
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as err:
            raise PatternError(f"cannot write {args.output}: {err.strerror or err}") from None
    else:
        sys.stdout.write(text)
    return 0
