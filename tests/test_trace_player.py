"""An interactive trace page clicked through in a real headless Chromium (issue 29 item 6),
driven by Playwright (the registry's package, Debian's Chromium): the buttons, the slider
and an event's row show the step they name, and the automaton's marks follow.

Expected marks are hand-derived from the automata of the examples (seed 000 Fig. 6's
conventions: the states of the instances before the event black, the transitions taken
thick)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kleene.cli import main

ROOT = Path(__file__).resolve().parents[1]
BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
needs = pytest.mark.skipif(
    BROWSER is None or shutil.which("dot") is None,
    reason="Chromium or Graphviz is not installed: scripts/bootstrap-system.sh installs "
           "them from Debian's packages when run as root (apt-get install chromium graphviz)")

# A A B B C an hour apart: the lazy chain NFA buffers the As and Bs and creates its
# instances when the C arrives (seed 003 Sec. 3), taking one transition per variable.
CSV = "ts,type,price\n0,A,20\n1,A,20\n2,B,25\n3,B,30\n4,C,20\n"
SEQ = "PATTERN SEQ(A a, B b, C c) WHERE a.price > 10 WITHIN 5 hours"
# SES, policy next: <{a}, {b}> over A B A B; the run from e1 takes a, then b at e2.
SES = "PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10\n"
SES_CSV = "ts,L\n0,A\n1,B\n2,A\n3,B\n"


def trace_page(tmp_path: Path, pattern: str, csv: str, *extra: str) -> Path:
    (tmp_path / "p.txt").write_text(pattern)
    (tmp_path / "e.csv").write_text(csv)
    out = tmp_path / "run.html"
    assert main(["trace", str(tmp_path / "p.txt"), "--events", str(tmp_path / "e.csv"),
                 *extra, "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=BROWSER, args=["--no-sandbox"])
        yield b
        b.close()


def shown(pg) -> tuple[str, str, int, int]:
    """The visible step's heading, the counter, the black states and the thick edges."""
    heading = pg.locator(".player .step:not([hidden]) h3").inner_text()
    return (heading, pg.inner_text(".kleene-where"), pg.locator("g.node.cur").count(),
            pg.locator("g.edge.taken").count())


@needs
@pytest.mark.slow
def test_the_buttons_slider_and_rows_walk_the_nfa_trace(browser, tmp_path):
    out = trace_page(tmp_path, SEQ, CSV, "--engine", "nfa-chain", "--time-unit", "h")
    pg = browser.new_page()
    pg.goto(out.as_uri())
    assert pg.locator(".player .step").count() == 5                # a step per event
    assert pg.locator(".player .step:not([hidden])").count() == 1  # one shown at a time
    heading, where, black, thick = shown(pg)
    assert heading.startswith("e1 (ts 0, type=A)") and where == "step 1 of 5"
    assert (black, thick) == (0, 0)                                # nothing alive, nothing taken
    pg.click(".kleene-prev")                                       # stays at the first step
    assert shown(pg)[1] == "step 1 of 5"
    for _ in range(4):
        pg.click(".kleene-next")
    heading, where, black, thick = shown(pg)
    assert heading.startswith("e5 (ts 4, type=C)") and where == "step 5 of 5"
    assert thick == 3                                              # a, b and c taken at the C
    pg.click(".kleene-next")                                       # stays at the last step
    assert shown(pg)[1] == "step 5 of 5"
    pg.fill(".kleene-slider", "1")                                 # the slider
    assert shown(pg)[0].startswith("e2 (ts 1, type=A)")
    pg.click("tr[data-step='3']")                                  # the row of e4
    assert shown(pg)[0].startswith("e4 (ts 3, type=B)")
    assert pg.locator("tr.here").count() == 1
    pg.keyboard.press("ArrowRight")
    assert shown(pg)[1] == "step 5 of 5"


@needs
@pytest.mark.slow
def test_the_ses_trace_marks_the_state_before_and_the_transition_taken(browser, tmp_path):
    out = trace_page(tmp_path, SES, SES_CSV, "--engine", "ses-automaton", "--policy", "next")
    pg = browser.new_page()
    pg.goto(out.as_uri())
    heading, _, black, thick = shown(pg)
    assert heading.startswith("e1 (ts 0)")
    assert (black, thick) == (1, 1)           # from ∅ (black), a taken (thick)
    pg.click(".kleene-next")
    heading, _, black, thick = shown(pg)
    assert heading.startswith("e2 (ts 1)")
    assert (black, thick) == (1, 1)           # the run in {a} (black) takes b (thick)
    assert pg.locator("g.node.vis").count() == 1   # ∅, where the run was before


@needs
@pytest.mark.slow
def test_a_step_shows_the_false_guard_and_the_negated_event_that_kills(browser, tmp_path):
    # SEQ(A a, NOT(C n), B b) WHERE b.x = a.x over A(x=1) C B(x=2) B(x=1): at e3 the
    # instance {a/e1} refuses b/e3 (2 ≠ 1); at e4 it takes b/e4, and the C at e2 forbids it
    out = trace_page(tmp_path, "PATTERN SEQ(A a, NOT(C n), B b) WHERE b.x = a.x "
                     "WITHIN 5 hours", "ts,type,x\n0,A,1\n1,C,0\n2,B,2\n3,B,1\n",
                     "--engine", "nfa-eager", "--time-unit", "h")
    pg = browser.new_page()
    pg.goto(out.as_uri())
    assert not pg.locator(".player .step:not([hidden]) table.refused").count()
    pg.fill(".kleene-slider", "2")
    assert pg.locator(".player .step:not([hidden]) table.refused td").all_inner_texts() == [
        "a --b--✗ b/e3: b.x = a.x is false"]
    pg.click(".kleene-next")
    assert pg.locator(".player .step:not([hidden]) table.refused td").all_inner_texts() == [
        "ab {a/e1, b/e4} dropped: NOT C n: forbidden by e2"]


@needs
@pytest.mark.slow
def test_a_large_automaton_is_drawn_readably_and_its_marks_scrolled_into_view(browser,
                                                                             tmp_path):
    # intc.sre unrolls its count window [1..20] (seed 004 Alg. 4): a picture far wider
    # than the page. One INTC buy, then RIMM buys: only the run from e1 lives (a fresh run
    # needs an INTC buy), and each element moves it one ⊤ step further along the window.
    (tmp_path / "s.stream").write_text("".join(
        f"BUY(id={k},name={'RIMM' if k else 'INTC'},volume=100,price=20.5,"
        f"stock_time={1000 + k})\n" for k in range(20)))
    out = tmp_path / "run.html"
    assert main(["trace", str(ROOT / "examples" / "stocks" / "intc.sre"), "--events",
                 str(tmp_path / "s.stream"), "-o", str(out)]) == 0
    pg = browser.new_page(viewport={"width": 1280, "height": 900})
    pg.goto(out.as_uri())
    assert pg.inner_text(".kleene-note").startswith("A large automaton (")
    box = pg.locator(".kleene-picture.large")
    # the thick edges of the step are in view (the start state, black at every step under
    # the stream policy, may be scrolled away)
    inside = ("b => { const r = b.getBoundingClientRect(); const m = b.querySelectorAll("
              "'g.taken'); return m.length > 0 && [...m].every(e => { const a = "
              "e.getBoundingClientRect(); return a.left >= r.left - 1 && a.right <= r.right "
              "+ 1 && a.top >= r.top - 1 && a.bottom <= r.bottom + 1; }); }")
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")   # its own size: it scrolls
    for step in ("0", "10", "17"):   # e18: the run from e1 still moves on ⊤
        pg.fill(".kleene-slider", step)
        assert box.evaluate(inside), step
    assert box.evaluate("b => b.scrollLeft > 0")                # the far end, scrolled to
