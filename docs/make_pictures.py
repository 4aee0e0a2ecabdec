"""Regenerate the pictures of the tutorials, ``docs/img/*.svg`` and ``*.png``.

Every picture is drawn from Kleene's own engines (``kleene.engines.draw`` over
``iter_transitions()``; runs through ``kleene.engines.trace``), never by hand,
so the tutorials show what the code computes:

- ``docs/tutorial-seed-000.md``: seed 000 Figs. 3, 4, 5, 6 and 10;
- ``docs/tutorial-seed-001.md``: the SES automaton of P1 and its run from e1.

Usage (needs Graphviz's ``dot``)::

    .venv/bin/python docs/make_pictures.py            # writes docs/img/
    .venv/bin/python docs/make_pictures.py --list     # names only
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kleene.engines import draw
from kleene.engines.protocol import Compiled, engine
from kleene.engines.ses.automaton import set_automaton
from kleene.engines.trace import TraceNames, event_text, move_text, run_steps, trace
from kleene.reference.events import Stream, stream_of
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


@dataclass(frozen=True)
class Picture:
    """One picture: a file stem under ``docs/img`` and what to draw."""

    name: str
    automaton: draw.Drawable
    options: dict[str, Any] = field(default_factory=dict)


def compiled(text: str, name: str = "ses-automaton") -> Compiled:
    return engine(name).compile(parse_ses(text), policy="next")


def stream(c: dict[str, Any]) -> Stream:
    return stream_of(c["events"], time_unit=c["time_unit"])


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
    yield Picture("seed000-fig4a-n1", draw.view_of(set_automaton(q1, 0)),
                  {"title": "Fig. 4(a): N1 for V1 = {c, p+, d}"})
    yield Picture("seed000-fig4b-n2", draw.view_of(set_automaton(q1, 1)),
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


def write_all(out: Path = IMG, *, formats: tuple[str, ...] = ("svg", "png"),
              report: Callable[[str], None] = print) -> list[Path]:
    """Draw every picture into ``out`` in each of ``formats``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for p in pictures():
        for fmt in formats:
            path = draw.write(p.automaton, out / f"{p.name}.{fmt}", **p.options)
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
