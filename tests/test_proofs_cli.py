"""``kleene prove``: verdicts per check, counterexamples as JSON rows, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import z3

from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.ses.matching import all_matches
from kleene.reference.ses.text import parse_ses
from tests.helpers import run_cli

GOOD = "PATTERN <{a}, {b+}> WHERE a.L = 'A' AND b.L = 'B' AND a.ID = b.ID WITHIN 10\n"
DEAD = "PATTERN <{a}, {b}> WHERE a.L = 'A' AND a.L = 'B' WITHIN 10\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "good.ses").write_text(GOOD)
    (tmp_path / "dead.ses").write_text(DEAD)
    (tmp_path / "e.jsonl").write_text('{"ts": 0.5, "L": "A", "ID": "k"}\n'
                                      '{"ts": 1, "L": "B", "ID": "k"}\n')
    return tmp_path


def _printed(out: str, marker: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The match and the JSON rows printed under the first line containing ``marker``."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if marker in line)
    match, rows = None, []
    for line in lines[start + 1:]:
        text = line.strip()
        if text.startswith("match "):
            match = json.loads(text.removeprefix("match "))
        elif text.startswith("{"):
            rows.append(json.loads(text))
        else:
            break
    return match, rows


def test_a_healthy_pattern_proves_and_prints_its_witnesses(files: Path, capsys) -> None:
    code, out, _ = run_cli(capsys, "prove", str(files / "good.ses"), "--bound", "5")
    assert code == 0
    assert "schema ID: int?, L: str?, ts: int" in out
    assert "ok       a and b are mutually exclusive (seed 000 Def. 6)\n" in out
    assert "the automaton finds exactly the reference's next matches, for streams of at " \
           "most 5 events" in out
    assert "(seed 001 Thm 2) reject no window with a match, for streams of at most 5 " \
           "events" in out
    assert "0 problem" in out
    match, rows = _printed(out, "the pattern has matches, for example:")
    assert match is not None and len(rows) == 2
    assert Match.from_json(match) in all_matches(parse_ses(GOOD), Stream.from_rows(rows))


def test_a_dead_variable_is_a_problem(files: Path, capsys) -> None:
    code, out, _ = run_cli(capsys, "prove", str(files / "dead.ses"), "--check", "variables",
                       "--check", "transitions")
    assert code == 1
    assert "problem  a can bind no event: the pattern has no match" in out
    assert "never fires (a dead transition)" in out


def test_the_schema_comes_from_events_and_declarations(files: Path, capsys) -> None:
    code, out, _ = run_cli(capsys, "prove", str(files / "good.ses"), "--events",
                       str(files / "e.jsonl"), "--sort", "L=any", "--check", "variables")
    assert code == 0
    assert "schema ID: str, L: any, ts: real" in out


def test_no_missing_makes_every_attribute_required(files: Path, capsys) -> None:
    code, out, _ = run_cli(capsys, "prove", str(files / "good.ses"), "--no-missing",
                       "--check", "pattern")
    assert code == 0 and "schema ID: int, L: str, ts: int" in out


def test_user_mistakes_exit_2(files: Path, capsys) -> None:
    assert run_cli(capsys, "prove", str(files / "good.ses"), "--sort", "L=text")[0] == 2
    code, _, err = run_cli(capsys, "prove", str(files / "missing.ses"))
    assert code == 2 and "cannot read the pattern file" in err
    code, _, err = run_cli(capsys, "prove", str(files / "good.ses"), "--time-unit", "week")
    assert code == 2 and err.count("\n") == 1 and "unknown time unit 'week'" in err


def test_an_operator_pattern_is_proved_plainly(tmp_path: Path, capsys) -> None:
    (tmp_path / "dead.op").write_text("PATTERN SEQ(A a, B b) WHERE a.V > 3 AND a.V < 2\n")
    code, out, _ = run_cli(capsys, "prove", str(tmp_path / "dead.op"), "--check", "variables",
                       "--check", "branches")
    assert code == 1
    assert "problem  a can bind no event: it is in no match\n" in out
    assert 'ok       b is satisfiable, for example {"ts": 0, "type": "B"}\n' in out
    assert "problem  SEQ(A a, B b) has no match on any stream (a dead branch)" in out


def test_every_nfa_engine_is_proved_equal_to_the_reference(tmp_path: Path, capsys) -> None:
    (tmp_path / "aa.op").write_text("PATTERN SEQ(A a, A b)\n")
    code, out, _ = run_cli(capsys, "prove", str(tmp_path / "aa.op"), "--check", "equivalence",
                       "--check", "transitions")
    assert code == 0
    for name in ("nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree"):
        for policy in ("any", "contiguous"):
            assert f"ok       {name} under {policy} reports exactly the reference's " \
                   "matches (symbolic streams), for streams of at most 8 events\n" in out
            assert f"ok       {name} under {policy} reports exactly the reference's " \
                   "matches, each once (its runs on every class of streams), for streams " \
                   "of at most 5 events\n" in out
    assert "nfa-eager Θ2 ∅ --a--> a is driven, for " \
           "example:" in out
    # every engine's coverage: the lazy ones from their run traces; by hand, the chain
    # a → b has 4 transitions (two skips, two takes), the start's skip on no run
    # (the lazy runs never keep an empty instance: that skip never fires by their rule)
    # a match's path starts with its first event and ends with its last: by hand, the
    # eager NFA's ∅ and ab skip on no path (ab has no loop), and drives the other three
    assert "ok       nfa-eager: 3 of 5 transitions driven; 2 on no match's path " \
           "(coverage)\n" in out
    assert "info     nfa-eager Θ1 ∅ --ε--> ∅ lies on no match's path: a match's path " \
           "starts with its first event\n" in out
    for name in ("nfa-chain", "nfa-chain-fc", "nfa-multichain"):
        assert f"ok       {name}: 3 of 4 transitions driven; 1 proved never to fire " \
               "(coverage)\n" in out
    assert "info     nfa-chain Θ1 ∅ --ε--> ∅ never fires by the run's rule: the start " \
           "holds no instance" in out
    # both slots read A's buffer: equal counts, and the Tree NFA breaks ties by pattern
    # order (Sec. 7), so it always takes a first: ∅ --a--> a, a's skip, a --b--> ab; a
    # complete instance without an open iteration is not kept (ab's skip never fires)
    assert "nfa-tree coverage: undecided (3 of 8 transitions driven; 2 proved never to " \
           "fire, by streams of at most 5 events or Z3's; 3 are off the current order)" in out
    # the other order's ∅ --b--> b, b's skip and b --a--> ab are named as such
    assert "info     nfa-tree Θ3 ∅ --b--> b is off the current order a, b (bold in its " \
           "picture)" in out


def test_a_sremo_is_proved_plainly(tmp_path: Path, capsys) -> None:
    (tmp_path / "ab.sremo").write_text("(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[1..3]\n")
    code, out, _ = run_cli(capsys, "prove", str(tmp_path / "ab.sremo"))
    assert code == 0
    # named as kleene draw --engine srt labels the edge: q0 → q1, guard, output ● (marked)
    assert "ok       q0 --~.L = 'A' ↑ ●--> q1 fires, for example {\"ts\": 0, \"L\": \"A\"}" in out
    assert "ok       q1 --⊤ ↑ ⊗--> q2 fires" in out
    assert "the DSRT is deterministic: its minterms are pairwise disjoint" in out
    assert "srt and dsrt accept the same strings, for streams of at most 3 events" in out
    assert "the complement (Alg. 8) accepts exactly the strings e rejects, for streams " \
           "of at most 3 events" in out


def test_a_time_window_proves_its_clocks_its_dsrt_with_marks_and_its_complement(
        tmp_path: Path, capsys) -> None:
    (tmp_path / "tw.sremo").write_text(
        "(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[WITHIN 5]\n")
    code, out, _ = run_cli(capsys, "prove", str(tmp_path / "tw.sremo"), "--check", "window",
                       "--check", "dsrt", "--check", "negation")
    assert code == 0
    assert "ok       the SRT's clocks accept exactly the strings of Lang(body) whose marks " \
           "span at most τ = 5, for streams of at most 4 events" in out
    assert "ok       srt and the dsrt with marks (as the engine builds it) accept the same " \
           "strings with the same marks, for streams of at most 4 events" in out
    assert "ok       the complement read on the dsrt with marks (no output sequence reaches " \
           "a final state) accepts exactly the strings e rejects, for streams of at most 4 " \
           "events" in out
    assert "unknown" not in out.replace("0 unknown", "")


def test_a_register_read_no_path_wrote_is_a_problem(tmp_path: Path, capsys) -> None:
    (tmp_path / "r.sremo").write_text("({~.L = 'A'} -> r + {~.L = 'B'}) ; mark {~.V = r.V}\n")
    code, out, _ = run_cli(capsys, "prove", str(tmp_path / "r.sremo"), "--check", "registers")
    assert code == 1
    assert "problem  q2 --~.V = r.V ↑ ●--> q3 reads r, which no path writes before it: its " \
           "comparisons over it are false" in out
    code, _, err = run_cli(capsys, "prove", str(tmp_path / "r.sremo"), "--check", "necessary")
    assert code == 2 and "no section necessary for this language" in err


def test_the_pattern_text_itself_is_proved_as_draw_and_trace_take_it(capsys) -> None:
    code, out, err = run_cli(capsys, "prove", "PATTERN SEQ(A a, B b) WHERE a.V > 3 AND a.V < 2",
                         "--check", "variables")
    assert (code, err) == (1, "")
    assert "problem  a can bind no event: it is in no match" in out
    assert "ok       b is satisfiable" in out


# an interruption that lands in a Z3 finalizer is printed as ignored and repeated by
# the watchdog (cli/watchdog.py): pytest reports the ignored one as a warning
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_the_time_limit_stops_a_long_z3_query_with_one_line(tmp_path: Path, capsys,
                                                            monkeypatch) -> None:
    """Past --time-limit the run stops with the budget line (exit 2), also inside a Z3
    query (interrupted, not waited for up to --timeout)."""
    import time

    from kleene.proofs.nfa import bounded

    real = bounded.solve

    def slow(constraints, timeout_ms):   # a query Z3 cannot finish: n-queens-like sums
        xs = [z3.Int(f"q{i}") for i in range(60)]
        hard = [z3.Distinct(*xs), *[z3.And(0 <= x, x < 60) for x in xs],
                z3.Distinct(*[x + i for i, x in enumerate(xs)]),
                z3.Distinct(*[x - i for i, x in enumerate(xs)]),
                z3.Sum(*[x * x for x in xs]) == 12345]
        return real([*constraints, *hard], timeout_ms)
    monkeypatch.setattr(bounded, "solve", slow)
    (tmp_path / "ab.op").write_text("PATTERN SEQ(A a, B b) WHERE a.V < b.V WITHIN 10\n")
    start = time.monotonic()
    code, _, err = run_cli(capsys, "prove", str(tmp_path / "ab.op"), "--check",
                           "equivalence", "--timeout", "600", "--time-limit", "1")
    assert code == 2
    assert err.strip().endswith("raise it (--time-limit SECONDS) or shrink the stream or "
                                "window")
    assert "budget seconds=1 exceeded while proving" in err
    assert time.monotonic() - start < 60   # not the 600 s of one query
