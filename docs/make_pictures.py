"""Regenerate the pictures of the tutorials, ``docs/img/*.svg`` and ``*.png``.

Every picture is drawn from Kleene's own engines (``kleene.engines.draw`` over
``iter_transitions()``; runs through ``kleene.engines.trace``), never by hand,
so the tutorials show what the code computes:

- ``docs/tutorial-seed-000.md``: seed 000 Figs. 3, 4, 5, 6 and 10;
- ``docs/tutorial-seed-001.md``: the SES automaton of P1 and its run from e1;
- ``docs/tutorial-seed-003.md``: the eager NFA beside the Chain NFA (seed 003
  Figs. 1 and 4), negation (Figs. 6, 7), iteration, the Multi-Chain NFA (Fig. 8),
  the Tree NFA (Fig. 9) small and collapsed, and steps of their runs;
- ``docs/tutorial-seed-004.md``: the SRT of SREMO (1) (seed 004 Fig. 1), its
  unrolled windowed form, its DSRT, a negation, a complement and the run of
  Example 4.5 on Table 1;
- ``docs/tutorial-match-recognize.md``: the match-recognize engine's programs and
  searches of the reference drawn as trees (``kleene.engines.match_recognize.draw``),
  on the tutorial's statements and tables (:data:`MR_STATEMENTS`, which the tutorial
  writes word for word).

Usage (needs Graphviz's ``dot``)::

    .venv/bin/python docs/make_pictures.py            # writes docs/img/
    .venv/bin/python docs/make_pictures.py --list     # names only
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kleene.engines import drawers
from kleene.engines.match_recognize.draw import search_graph
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.match_recognize.trace import traced_recognize
from kleene.engines.nfa.engine import NFAEngine
from kleene.engines.protocol import Compiled, Query
from kleene.engines.registry import engine
from kleene.engines.ses.automaton import set_automaton
from kleene.engines.ses.trace import TraceNames, move_text, run_steps, view_of
from kleene.engines.trace import event_text, trace
from kleene.reference.events import Stream, stream_of
from kleene.reference.languages import detect_language
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.table import Table
from kleene.reference.ses.text import parse_ses

DOCS = Path(__file__).resolve().parent
CASES = DOCS.parent / "conformance" / "cases"
IMG = DOCS / "img"


def case(name: str) -> dict[str, Any]:
    """The first case of a conformance case file: the paper's worked example."""
    return json.loads((CASES / name).read_text(encoding="utf-8"))["cases"][0]


Q1, P1 = case("ses-q1.json"), case("ses-p1.json")
#: Fig. 3: V2 of Q1 in isolation (Example 5).
FIG3 = "PATTERN <{b}> WHERE b.L = 'B' WITHIN 264 hours"
#: Example 11 / Fig. 10: Q1 with p a singleton variable.
FIG10 = Q1["pattern"].replace("p+", "p")
#: The steps of seed 000 Fig. 6 we draw: e1, e2, e3, e4, e5, e9, e12 (0-based positions).
FIG6_STEPS = (0, 1, 2, 3, 4, 8, 11)
#: The steps of P1's run from e1 we draw: e3 (p), e9 (the loop with prev), e11 (b).
P1_STEPS = (2, 8, 10)


#: Seed 003 Example 1.1 (Pattern 1) and its stream a1, a2, b1, b2, c (Fig. 3).
EX11 = "PATTERN SEQ(A a, B b, C c) WITHIN 1 hour"
EX11_EVENTS = [{"ts": t, "type": k} for t, k in enumerate("AABBC")]
#: Fig. 4's frequency order C, B, A.
FIG4 = {"C": 1, "B": 5, "A": 10}
#: Pattern 4 (Sec. 4.4) with Figs. 6-7's order C, A, D.
PATTERN4 = "PATTERN SEQ(A a, NOT(B b), C c, D d) WHERE b.x < c.y WITHIN 1 hour"
FIG6 = {"C": 1, "A": 2, "D": 3, "B": 10}
KLEENE = "PATTERN SEQ(A a, B+ b[], C c) WHERE a.price < c.price WITHIN 1 hour"
#: Pattern 8's shape (Sec. 5, Fig. 8): two sequences sharing C, order C, B, A, D, E.
PATTERN8 = "PATTERN OR(SEQ(A a, B b, C c), SEQ(C c, D d, E e)) WITHIN 1 hour"
FIG8 = {"C": 1, "B": 2, "A": 3, "D": 4, "E": 5}
AND3 = "PATTERN AND(A a, B b, C c) WITHIN 1 hour"
AND5 = "PATTERN AND(A a, B b, C c, D d, E e) WITHIN 1 hour"
#: Seed 004 SREMO (1), its count-windowed form, a negation, Table 1.
SREMO1 = "mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.type = 'S' AND ~.id = r1.id}"
WINDOWED = f"({SREMO1})[1..4]"
NEGATED = ("(mark {~.type = 'B'} -> r1 ; !({TRUE}* ; {~.type = 'S'} ; {TRUE}*) ; "
           "mark {~.type = 'S' AND ~.id = r1.id})[1..4]")
NO_S = "({TRUE}* ; {~.type = 'S'} ; {TRUE}*)[1..3]"
TABLE1 = json.loads((CASES / "sremo-table-1.json").read_text(encoding="utf-8"))["cases"][0]


#: docs/tutorial-match-recognize.md's statements (each as the tutorial's heredoc writes
#: it) and tables.
MR_STATEMENTS = {
    "greedy.sql": """SELECT ts, v, m, cls FROM steps MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES MATCH_NUMBER() AS m, CLASSIFIER() AS cls
  ALL ROWS PER MATCH
  PATTERN (A+ B?)
  DEFINE A AS v = 1, B AS v <= 2
) ORDER BY ts
""",
    "giveback.sql": """SELECT ts, v, m, cls FROM steps MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES MATCH_NUMBER() AS m, CLASSIFIER() AS cls
  ALL ROWS PER MATCH
  PATTERN (A+ B)
  DEFINE A AS v >= 1, B AS v = 1
) ORDER BY ts
""",
    "empty.sql": """SELECT m, n, first_ts FROM steps MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES MATCH_NUMBER() AS m, COUNT(*) AS n, FIRST(ts) AS first_ts
  ONE ROW PER MATCH
  PATTERN (A*)
  DEFINE A AS v = 2
) ORDER BY m
""",
    "running.sql": """SELECT first_ts, last_ts, total FROM steps MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES FIRST(ts) AS first_ts, LAST(ts) AS last_ts, SUM(v) AS total
  ONE ROW PER MATCH
  PATTERN (A+)
  DEFINE A AS SUM(A.v) <= 3
) ORDER BY first_ts
""",
    "v.sql": """SELECT first_ts, last_ts FROM prices MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES FIRST(ts) AS first_ts, LAST(ts) AS last_ts
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
) ORDER BY first_ts
""",
}
MR_STEPS = Table(("ts", "v"), ((1, 1), (2, 1), (3, 1), (4, 2)))
MR_PRICES = Table(("ts", "price"), tuple((i + 1, p) for i, p in enumerate((9, 5, 3, 4, 2, 6))))


@dataclass(frozen=True)
class Picture:
    """One picture: a file stem under ``docs/img`` and what to draw (an automaton, or a
    graph already built by a family's drawer)."""

    name: str
    automaton: Any
    options: dict[str, Any] = field(default_factory=dict)


def compiled(text: str, name: str = "ses-automaton") -> Compiled:
    return engine(name).compile(Query.of(parse_ses(text), policy="next"))


def stream(c: dict[str, Any]) -> Stream:
    return stream_of(c["events"], time_unit=c["time_unit"])


def compiled_as(text: str, name: str, frequencies: Mapping[str, float] | None = None) -> Any:
    """``text`` (any language) compiled by engine ``name`` (with ``frequencies``, the lazy
    NFAs' order), and the parsed pattern."""
    pattern = detect_language(text, "<pattern>").parse(text, "<pattern>")
    eng = engine(name)
    if frequencies is not None:
        assert isinstance(eng, NFAEngine)       # only the lazy NFAs take an order
        eng.frequencies = frequencies
    return eng.compile(Query.of(pattern)), pattern


def beside(text: str, names: tuple[str, ...], frequencies: Mapping[str, float]) -> Any:
    """The automata of ``text`` under ``names``, side by side."""
    return drawers.beside([(n, drawers.picture_graph(compiled_as(text, n, frequencies)[0]))
                        for n in names])


def step_pictures(prefix: str, text: str, name: str, events: list[dict[str, Any]],
                  unit: str | None, positions: tuple[int, ...]) -> Iterator[Picture]:
    """The steps at ``positions`` of an NFA or SRT run, marked as its trace page marks them."""
    t = trace(compiled_as(text, name)[0], stream_of(events, time_unit=unit))
    for k, s in enumerate(t.steps):
        if s.event.position in positions:
            head, *rest = t.step_text(k)
            yield Picture(f"{prefix}-e{s.event.position + 1}", t.graph,
                          {"highlight": t.mark(k), "legend": False,
                           "title": "\n".join([head, *(line.strip() for line in rest[:8])])})


def seed003_pictures() -> Iterator[Picture]:
    """The pictures of ``docs/tutorial-seed-003.md``."""
    yield Picture("seed003-fig1-fig4", beside(EX11, ("nfa-chain", "nfa-eager"), FIG4),
                  {"title": "Example 1.1: the Chain NFA, order C, B, A (Fig. 4), above the "
                            "eager NFA (Fig. 1)"})
    yield from step_pictures("seed003-eager-run", EX11, "nfa-eager", EX11_EVENTS, "min", (3,))
    yield from step_pictures("seed003-chain-run", EX11, "nfa-chain", EX11_EVENTS, "min", (4,))
    yield Picture("seed003-fig6-fig7", beside(PATTERN4, ("nfa-chain", "nfa-chain-fc"), FIG6),
                  {"title": "Pattern 4: post-processing negation (Fig. 6) above first chance "
                            "(Fig. 7), order C, A, D"})
    yield Picture("seed003-kleene", beside(KLEENE, ("nfa-chain", "nfa-eager"), {}),
                  {"title": "Iteration (Sec. 4.5): B+ is evaluated last"})
    yield Picture("seed003-fig8-multichain", compiled_as(PATTERN8, "nfa-multichain", FIG8)[0],
                  {"title": "The Lazy Multi-Chain NFA of an OR of two sequences (Fig. 8)"})
    yield Picture("seed003-fig9-tree", compiled_as(AND3, "nfa-tree", {"A": 1, "B": 2, "C": 3})[0],
                  {"title": "The Tree NFA of AND(A a, B b, C c), current order a, b, c (Fig. 9)"})
    yield Picture("seed003-tree-and5", compiled_as(AND5, "nfa-tree")[0],
                  {"title": "AND of five: 32 states, collapsed around the current order"})


def seed004_pictures() -> Iterator[Picture]:
    """The pictures of ``docs/tutorial-seed-004.md``."""
    srt, pattern = compiled_as(WINDOWED, "srt")
    yield Picture("seed004-fig1-srt", compiled_as(SREMO1, "srt")[0],
                  {"title": "The SRT of SREMO (1) (seed 004 Fig. 1)"})
    yield from step_pictures("seed004-run", SREMO1, "srt", TABLE1["events"], None, (0, 1, 3))
    yield Picture("seed004-unrolled", drawers.view(srt, "unrolled", pattern),
                  {"title": "SREMO (1)[1..4] unrolled (report Algs. 3-6)"})
    yield Picture("seed004-dsrt", drawers.view(srt, "dsrt", pattern),
                  {"title": "The DSRT of SREMO (1)[1..4] (report Alg. 7)"})
    negated, _ = compiled_as(NEGATED, "srt")
    yield Picture("seed004-negation-srt", negated,
                  {"title": "A B, no S, then an S of the same id: the SRT (!e compiled by "
                            "Alg. 8 inside)"})
    plain, ppattern = compiled_as(NO_S, "srt")
    yield Picture("seed004-complement", drawers.view(plain, "complement", ppattern),
                  {"title": "The complement of (⊤* · S · ⊤*)[1..3] (report Alg. 8)"})


def mr_clause(name: str, old: str = "", new: str = "") -> MatchRecognize:
    """The clause of the tutorial's statement ``name``, with ``old`` replaced by ``new`` (as
    the tutorial's ``sed`` does)."""
    text = MR_STATEMENTS[name].replace(old, new)
    return parse_statement(text, name).recognitions[0].clause


def mr_search(stem: str, name: str, table: Table, start: int, title: str, old: str = "",
              new: str = "") -> Picture:
    """The reference's search from row ``start`` (from 1) of statement ``name`` (``old``
    replaced by ``new``), as a tree, in ``mr-STEM-row{start}``."""
    searches = traced_recognize(mr_clause(name, old, new), table).searches
    found = next(s for s in searches if s.start == start - 1)
    return Picture(f"mr-{stem}-row{start}", search_graph(found),
                   {"title": title, "rankdir": "TB"})


def match_recognize_pictures() -> Iterator[Picture]:
    """The pictures of ``docs/tutorial-match-recognize.md``."""
    yield Picture("mr-greedy-program", CompiledRecognition(mr_clause("greedy.sql")),
                  {"title": "kleene draw greedy.sql: the match-recognize engine's program"})
    yield mr_search("reluctant", "greedy.sql", MR_STEPS, 1,
                    "PATTERN (A+? B?): the search from row 1", "A+ B?", "A+? B?")
    yield mr_search("alternation", "greedy.sql", MR_STEPS, 4,
                    "PATTERN (A | B): the search from row 4", "A+ B?", "A | B")
    yield mr_search("giveback", "giveback.sql", MR_STEPS, 1,
                    "PATTERN (A+ B): the search from row 1")
    yield Picture("mr-empty-program", CompiledRecognition(mr_clause("empty.sql")),
                  {"title": "kleene draw empty.sql: the match-recognize engine's program"})
    yield mr_search("empty", "empty.sql", MR_STEPS, 1, "PATTERN (A*): the search from row 1")
    yield mr_search("running", "running.sql", MR_STEPS, 1,
                    "DEFINE A AS SUM(A.v) <= 3: the search from row 1")
    yield Picture("mr-v-program", CompiledRecognition(mr_clause("v.sql")),
                  {"title": "kleene draw v.sql: the match-recognize engine's program"})
    yield mr_search("v-to-last-up", "v.sql", MR_PRICES, 4,
                    "AFTER MATCH SKIP TO LAST UP: the search from row 4", "PAST LAST ROW",
                    "TO LAST UP")


def run_pictures(prefix: str, c: dict[str, Any], first: int,
                 positions: tuple[int, ...]) -> Iterator[Picture]:
    """The steps at ``positions`` of the run started at ``first``, marked as in Fig. 6."""
    compiled_ = compiled(c["pattern"])
    t = trace(compiled_, stream(c))
    names = TraceNames(t)
    for rs in run_steps(t, first):
        e = rs.step.event
        if e.position not in positions:
            continue
        moves = [move_text(row) for m in rs.moves for row in names.move(m)]
        caption = "\n".join([event_text(e), *moves])
        yield Picture(f"{prefix}-e{e.position + 1}", compiled_,
                      {"highlight": rs.highlight, "legend": False, "title": caption})


def pictures() -> Iterator[Picture]:
    """Every picture of the tutorials, in the order they appear."""
    q1 = parse_ses(Q1["pattern"])
    yield Picture("seed000-fig3", compiled(FIG3),
                  {"title": "Fig. 3: the SES automaton of (⟨{b}⟩, {b.L = 'B'}, 264)"})
    yield Picture("seed000-fig4a-n1", view_of(set_automaton(q1, 0)),
                  {"title": "Fig. 4(a): N1 for V1 = {c, p+, d}"})
    yield Picture("seed000-fig4b-n2", view_of(set_automaton(q1, 1)),
                  {"title": "Fig. 4(b): N2 for V2 = {b}", "guards": "full"})
    yield Picture("seed000-fig5-q1", compiled(Q1["pattern"]),
                  {"title": "Fig. 5: the SES automaton of Q1 = N1 N2"})
    yield from run_pictures("seed000-fig6", Q1, 0, FIG6_STEPS)
    yield Picture("seed000-fig10a-ses", compiled(FIG10),
                  {"guards": "none", "title": "Fig. 10(a): the SES automaton of ⟨{c, p, d}, {b}⟩"})
    yield Picture("seed000-fig10b-bruteforce", compiled(FIG10, "ses-bruteforce-paper"),
                  {"guards": "none",
                   "title": "Fig. 10(b): the brute force's 3!·1! = 6 automata"})
    yield Picture("seed001-p1", compiled(P1["pattern"]),
                  {"title": "The SES automaton of P1 (seed 001 Example 2)"})
    yield from run_pictures("seed001-p1-run", P1, 0, P1_STEPS)
    yield from seed003_pictures()
    yield from seed004_pictures()
    yield from match_recognize_pictures()


def write_all(out: Path = IMG, *, formats: tuple[str, ...] = ("svg", "png"),
              report: Callable[[str], None] = print) -> list[Path]:
    """Draw every picture into ``out`` in each of ``formats``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for p in pictures():
        for fmt in formats:
            path = drawers.write(p.automaton, out / f"{p.name}.{fmt}", **p.options)
            written.append(path)
            report(f"wrote {path.relative_to(out.parent) if out.parent in path.parents else path}")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the picture names only")
    parser.add_argument("--out", type=Path, default=IMG, help="the directory (default docs/img)")
    args = parser.parse_args()
    if args.list:
        for p in pictures():
            print(p.name)
        return
    write_all(args.out)


if __name__ == "__main__":
    main()
