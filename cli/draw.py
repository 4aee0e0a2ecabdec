"""``kleene draw``: the picture of a pattern's compiled automaton (SVG, PNG or DOT).

Any registered engine draws through :mod:`kleene.engines.draw`: in its own
paper's style where its family registers a drawer (the NFAs of seed 003, the
SRTs of seed 004), else seed 000 Sec. 4.1's conventions over
``iter_transitions()``. ``--view`` draws a view the family offers (the SRT's
``unrolled``, ``dsrt`` and ``complement`` forms), ``--beside`` other engines'
automata of the same pattern in the same picture. The pattern is a file, or
the pattern text itself.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import shlex
import sys
from pathlib import Path

from kleene.cli.common import (
    Commands,
    _is_file,
    _time_unit,
    pattern_text,
    plural,
    positive_count,
)
from kleene.data.outputs import refuse_inputs, replacing
from kleene.engines.draw import (
    FORMATS,
    GUARD_STYLES,
    STATE_STYLES,
    DrawError,
)
from kleene.engines.drawers import beside, draw, format_for, picture_graph, view, views_of
from kleene.engines.protocol import Compiled, Engine, Query, claims
from kleene.engines.registry import PICTURED, engine, engine_names, pictured_engine
from kleene.engines.srt.lazy_dsrt import LazyDSRT
from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.languages import LANGUAGES, Language

NAME = "draw"
HELP = "draw the automaton an engine compiles a pattern to (SVG, PNG or DOT)"
DESCRIPTION = """\
Compile PATTERN (a pattern file, or the pattern text itself) with an engine
and draw its automaton as seed 000 does (Sec. 4.1, Figs. 3-5): the start
state has an incoming arrow from a point, accepting states are double
circles, states are sets of variables ({c, d, p+}, or cdp+ as in the paper),
and each edge carries the variable it binds and its guard, printed in full or
as Θ1..Θn with a legend below the picture. SVG and PNG need Graphviz's `dot`.

The NFAs of seed 003 are drawn with their actions (take, iterate, ignore),
input buffers and negation edges (Figs. 1, 4-9), the SRTs of seed 004 with
transitions written phi ↑ o ↓ W (Fig. 1).

examples:
  kleene draw q1.ses -o q1.svg
  kleene draw "PATTERN <{b}> WHERE b.L = 'B' WITHIN 264 hours" --format png -o fig3.png
  kleene draw q1.ses --engine ses-bruteforce-paper --format dot
  kleene draw seq.op --engine nfa-chain --beside nfa-eager --frequencies C=1,B=5,A=10 -o s.svg
  kleene draw table1.sremo --engine srt --view dsrt -o dsrt.svg
  kleene draw seq3.ceql --structure stocks.stream --after 60 --format dot"""

#: The engine drawn unless ``--engine`` names another.
DEFAULT_ENGINE = PICTURED


def add_pattern_options(parser: argparse.ArgumentParser) -> None:
    """``PATTERN``, ``--language``, ``--engine`` and ``--policy`` (shared with ``trace``)."""
    parser.add_argument("pattern", metavar="PATTERN",
                        help="a pattern file, or the pattern text itself")
    parser.add_argument("--language", choices=list(LANGUAGES),
                        help="the pattern language (default: recognised from the text)")
    parser.add_argument("--engine", default=None, metavar="NAME",
                        help=f"the engine that compiles the pattern (default: {DEFAULT_ENGINE} "
                             "for SES patterns, else the fastest engine that claims the "
                             "pattern; an unknown name lists the registered ones)")
    parser.add_argument("--policy", default=None, metavar="POLICY",
                        help="the selection policy to compile for (default: next for the "
                             "SES automaton, as the paper draws its runs; else the language's)")
    parser.add_argument("--frequencies", metavar="TYPE=N,...",
                        help="events per type, fixing a lazy NFA's evaluation order (seed 003 "
                             "Sec. 3: ascending frequency); default: the pattern's order, or "
                             "estimated from the stream when there is one")


def pattern_name(arg: str) -> str:
    """The name of the pattern file ``arg`` names, or ``""`` for pattern text (a page's
    title)."""
    return Path(arg).name if _is_file(arg) else ""


def pattern_query(args: argparse.Namespace) -> Query:
    """The query of ``args.pattern`` as given (:meth:`Query.parse`)."""
    text, source = pattern_text(args.pattern)
    return Query.parse(text, language=args.language, policy=args.policy,
                       time_unit=getattr(args, "time_unit", None), source=source)


def compile_pattern(args: argparse.Namespace, query: Query | None = None,
                    ) -> tuple[Compiled, Query]:
    """Decide the query of ``args.pattern`` (:func:`pattern_query`, unless given) and
    compile it with ``args.engine``; without ``--policy``, an SES pattern is drawn under
    ``next``, as seed 000 draws the SES automaton's runs (Fig. 6), when the automaton
    claims it."""
    query = query or pattern_query(args)
    language = query.lang
    if args.policy is None and "next" in language.policies and \
            language.pattern_policy(query.pattern) is None:
        paper = dataclasses.replace(query, policy="next")
        if claims(engine(DEFAULT_ENGINE), paper):
            query = paper
    name = args.engine or pictured_engine(query)
    runs_language(name, language)
    return configured(name, args).compile(query), query


def runs_language(name: str, language: Language) -> None:
    """:class:`Unsupported`, naming the engines that do, when engine ``name`` runs no
    pattern of ``language`` (its capabilities, :mod:`kleene.engines.protocol`)."""
    if any(f.language == language.name for f in engine(name).capabilities):
        return
    able = [n for n in engine_names()
            if any(f.language == language.name for f in engine(n).capabilities)]
    raise Unsupported(f"engine {name} does not run {language.title}; engines that do: "
                      f"{', '.join(able) or 'none'}")


def configured(name: str, args: argparse.Namespace) -> Engine:
    """The engine ``name``, with ``--frequencies`` when given (engines with a
    ``frequencies`` setting only: the lazy NFAs)."""
    eng = engine(name)
    text = getattr(args, "frequencies", None)
    if text is None:
        return eng
    if not (dataclasses.is_dataclass(eng) and hasattr(eng, "frequencies")):
        raise Unsupported(f"--frequencies: engine {name!r} has no evaluation order to fix "
                          "(the lazy NFAs of seed 003 have one)")
    return dataclasses.replace(eng, frequencies=parse_frequencies(text))


def parse_frequencies(text: str) -> dict[str, float]:
    """``C=1,B=5,A=10`` as a mapping; a malformed item is a one-line error naming it."""
    out: dict[str, float] = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        key, eq, value = item.partition("=")
        try:
            number = float(value)
            if not eq or not key.strip() or not 0 <= number < math.inf:
                raise ValueError
            out[key.strip()] = number
        except ValueError:
            raise DrawError(f"--frequencies: {item!r} is not TYPE=NUMBER (a finite number, "
                            "0 or more)") from None
    if not out:
        raise DrawError("--frequencies: give TYPE=NUMBER items separated by commas")
    return out


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    """Declare ``kleene draw`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_pattern_options(parser)
    parser.add_argument("--format", choices=FORMATS,
                        help="svg, png or dot (default: from the -o suffix, else svg)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="the file to write (default: standard output)")
    parser.add_argument("--states", choices=STATE_STYLES, default="auto",
                        help="state names: set {c, p+}, concat cp+ (the paper's), or auto "
                             "(concat when every variable is one letter)")
    parser.add_argument("--guards", choices=GUARD_STYLES, default="auto",
                        help="guards: full on the edges, legend (Θ1..Θn listed below), none, "
                             "or auto (full for small automata)")
    parser.add_argument("--title", help="a caption below the picture")
    parser.add_argument("--rankdir", choices=("LR", "TB"), default="LR",
                        help="left to right (default, as in the paper) or top to bottom")
    parser.add_argument("--view", metavar="NAME",
                        help="a view the engine's family offers instead of its automaton "
                             "(SRT engines: unrolled, dsrt, complement)")
    parser.add_argument("--time-unit", metavar="UNIT", type=_time_unit,
                        help="the unit of the timestamps, ms, s, min, h or d: an SRT compiles "
                             "a time window e[WITHIN 1 hour] into a clock test in it")
    parser.add_argument("--beside", metavar="ENGINE", action="append", default=[],
                        help="draw ENGINE's automaton of the same pattern beside this one "
                             "(repeatable), e.g. --engine nfa-chain --beside nfa-eager")
    parser.add_argument("--structure", metavar="EVENTS",
                        help="draw instead the shared structure of partial matches (CORE's "
                             "tECS) of a SREMO, .sre or CEQL query after --after events of "
                             "EVENTS (docs/counting.md)")
    parser.add_argument("--after", type=positive_count, default=8, metavar="N",
                        help="with --structure: the events read before drawing (default 8)")
    return parser


#: An engine whose automaton is also a view of another family's (``kleene draw --engine
#: srt --view dsrt`` draws the DSRT even of an expression the ``dsrt`` engine refuses).
VIEW_OF = {"dsrt": "srt"}


def run(args: argparse.Namespace) -> int:
    """Compile, draw, write; user mistakes propagate as ``KleeneError``."""
    if args.output is not None:   # before any work: never the pattern file, nor a link to it
        refuse_inputs(args.output, [args.pattern, *filter(None, [args.structure])],
                      option="--output")
    if args.structure is not None:
        # lazy: the counting modules only for --structure (the startup floor)
        from kleene.cli.draw_structure import structure_picture

        graph, caption = structure_picture(args, pattern_query(args))
        title = caption if args.title is None else f"{args.title}\n{caption}"
        return _written(args, draw(graph, _format(args), title=title, rankdir=args.rankdir))
    compiled, query = _compile_or_point(args)
    pattern = query.pattern
    fmt = _format(args)
    picture: object = compiled
    if args.view is not None:
        if not views_of(compiled):
            raise DrawError(f"engine {args.engine or 'chosen'!s} offers no views")
        picture = view(compiled, args.view, pattern)
    if args.beside:
        first = picture if args.view else picture_graph(compiled, states=args.states,
                                                         guards=args.guards)
        others = [(name, picture_graph(compile_pattern(argparse.Namespace(
            **{**vars(args), "engine": name}))[0], states=args.states, guards=args.guards))
            for name in args.beside]
        picture = beside([(args.engine or "this engine", first), *others])
    data = draw(picture, fmt, title=args.title, states=args.states,
                guards=args.guards, rankdir=args.rankdir)
    return _written(args, data)


def _format(args: argparse.Namespace) -> str:
    """The picture's format: ``--format``, else the ``-o`` suffix's, else SVG."""
    return format_for(args.output, args.format) if args.output else (args.format or "svg")


def _written(args: argparse.Namespace, data: bytes) -> int:
    """Write ``data`` to ``-o`` (said on stderr) or the standard output."""
    fmt = _format(args)
    if args.output:
        with replacing(args.output, option="--output") as temporary:
            Path(temporary).write_bytes(data)
        print(f"kleene draw: wrote {args.output} ({fmt}, {plural(len(data), 'byte')})",
              file=sys.stderr)
        return 0
    if fmt == "png" and sys.stdout.isatty():
        raise DrawError("a PNG is binary; write it to a file with -o FILE.png")
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0


def _compile_or_point(args: argparse.Namespace) -> tuple[Compiled, Query]:
    """:func:`compile_pattern`; when an engine that is also a view of another refuses
    the pattern, or has no whole automaton to draw (``dsrt`` on an expression that is not
    fully marked: its DSRT with marks is built as a stream reaches its states), the
    refusal points to the view that draws it (``--engine srt --view dsrt``)."""
    try:
        found = compile_pattern(args)
        if isinstance(found[0], LazyDSRT) and args.view is None:
            raise Unsupported("dsrt keeps this query's marks on a DSRT built as a stream "
                              "reaches its states (engines/srt/lazy_dsrt.py): there is no "
                              "whole automaton to draw")
        return found
    except Unsupported as refused:
        if args.engine not in VIEW_OF or args.view is not None:
            raise
        family = VIEW_OF[args.engine]
        try:
            compiled, _ = compile_pattern(argparse.Namespace(**{**vars(args),
                                                                "engine": family}))
        except KleeneError:
            raise refused from None
        if args.engine not in views_of(compiled):
            raise
        raise Unsupported(f"{refused.args[0]}; to draw its {args.engine.upper()}: kleene draw "
                          f"{shlex.quote(args.pattern)} --engine {family} --view "
                          f"{args.engine}") from None
