"""The hostile suite's fuzzing pass (issue 27, item 5): Hypothesis over bytes as an
events file and over the pattern grammars (the conformance strategies, and valid
pattern texts with tokens deleted, duplicated or swapped). It asserts only what
docs/architecture.md, "Bad input", promises: ``kleene match`` exits 2 with one message
(one line, or a pattern error's line, source line and caret), or exits 0 with the
result the reference semantics give (``--engine reference`` on the same input). Run in
this process (``kleene.cli.main``), the examples bounded so the pass takes seconds; the
longer part is marked slow.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kleene.conformance.sremo_strategies import sremo_expressions
from kleene.conformance.strategies import operator_patterns, ses_patterns
from kleene.reference.operators.pattern import OperatorPattern
from kleene.reference.operators.text import format_operator
from kleene.reference.ses.text import format_ses
from kleene.reference.sremo.text import format_sremo
from tests.helpers import run_cli

HERE = Path(__file__).resolve().parent
FIXTURES = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]

#: Events with every attribute the strategies draw: the type, the label L, ID and V.
EVENTS = ("ts,type,L,ID,V\n0,A,A,0,1\n1,B,B,0,2\n1,C,A,1,0\n2,A,C,1,3\n4,B,B,0,1\n"
          "5,C,A,0,2\n")
#: Hand-written valid patterns, one per language, mutated token by token below.
VALID = {
    "ses": "PATTERN <{a}, {b+}>\nWHERE a.L = 'A' AND b.V > a.V AND prev(b.V) < b.V\nWITHIN 4\n",
    "operator": "PATTERN SEQ(A a, NOT(C n), B+ b[])\nWHERE SUM(b.V) >= 2 AND a.ID = b.ID\n"
                "WITHIN 5\n",
    "sremo": "(mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.L = 'B' AND ~.V > r.V})[1..4]\n",
    "match_recognize": "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(ts) AS s, "
                       "LAST(V) AS v ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW "
                       "PATTERN (X Y+) DEFINE Y AS V > PREV(V))\n",
}
TOKENS = re.compile(r"\s+|[A-Za-z_][A-Za-z_0-9]*|\d+|'[^']*'|.", re.S)
CARET = re.compile(r":(\d+):(\d+): ")


def one_message(err: str) -> bool:
    """One line, or the first line naming ``file:line:col``, the source line and a caret
    under that column (the engine's name may come first: a failure while running)."""
    lines = err.splitlines()
    if lines and re.match(r"kleene \w+: (engine |the reference semantics )", lines[0]) \
            and len(lines) > 1:
        lines = lines[1:]
    if len(lines) == 1:
        return True
    found = CARET.search(lines[0]) if len(lines) == 3 else None
    if found is None:
        return False
    return lines[2].strip() == "^" and lines[2].index("^") - 2 == int(found.group(2)) - 1


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> None:
    """One line and exit 2, or exit 0 with the reference's own output."""
    code, out, err = run_cli(capsys, *argv)
    assert "Traceback" not in err, err
    assert code in (0, 2), (code, err)
    event(f"exit {code}")
    if code == 2:
        assert out == "" and one_message(err), err
        return
    ref_code, ref_out, ref_err = run_cli(capsys, *argv, "--engine", "reference")
    assert (ref_code, ref_out) == (0, out), (ref_err, out)


def mutate(text: str, ops: list[tuple[str, int, int]]) -> str:
    tokens = TOKENS.findall(text)
    for op, i, j in ops:
        if not tokens:
            break
        i, j = i % len(tokens), j % len(tokens)
        if op == "delete":
            del tokens[i]
        elif op == "duplicate":
            tokens.insert(i, tokens[i])
        else:
            tokens[i], tokens[j] = tokens[j], tokens[i]
    return "".join(tokens)


MUTATIONS = st.lists(st.tuples(st.sampled_from(("delete", "duplicate", "swap")),
                               st.integers(0, 200), st.integers(0, 200)), min_size=1, max_size=3)


@pytest.fixture
def events(tmp_path: Path) -> Path:
    path = tmp_path / "e.csv"
    path.write_text(EVENTS)
    return path


@settings(max_examples=60, suppress_health_check=FIXTURES, deadline=None)
@given(language=st.sampled_from(sorted(VALID)), ops=MUTATIONS)
def test_a_mutated_pattern_is_one_line_or_the_reference(capsys, tmp_path, events, language,
                                                         ops):
    pattern = tmp_path / "p.txt"
    pattern.write_text(mutate(VALID[language], ops))
    check(capsys, "match", "--pattern", str(pattern), "--language", language,
          "--events", str(events), "--allow-missing")


@settings(max_examples=60, suppress_health_check=FIXTURES, deadline=None)
@given(data=st.binary(max_size=120), header=st.sampled_from(["", "ts,type\n", "ts,type,V\n"]),
       fmt=st.sampled_from(["csv", "jsonl"]))
def test_bytes_as_events_are_one_line_or_the_reference(capsys, tmp_path, data, header, fmt):
    path = tmp_path / f"e.{fmt}"
    path.write_bytes(header.encode() + data)
    check(capsys, "match", "--pattern", "PATTERN SEQ(A a, B b) WITHIN 10", "--language",
          "operator", "--events", str(path), "--allow-missing")


@settings(max_examples=60, suppress_health_check=FIXTURES, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["0", "1", "-1", "1e3", "nan", "inf", "",
                                                "9223372036854775808", "2024-03-01", "x",
                                                "\"1\"", "1.5"]),
                               st.sampled_from(["A", "B", "", "\ufeffA", "A\r", "\"B\""])),
                     max_size=6))
def test_rows_of_hostile_cells_are_one_line_or_the_reference(capsys, tmp_path, rows):
    path = tmp_path / "e.csv"
    path.write_text("ts,type\n" + "".join(f"{ts},{t}\n" for ts, t in rows), encoding="utf-8")
    check(capsys, "match", "--pattern", "PATTERN SEQ(A a, B b) WITHIN 10", "--language",
          "operator", "--events", str(path))


def drawn(language: str) -> Any:
    if language == "ses":
        return ses_patterns().map(format_ses)
    if language == "operator":
        return operator_patterns().map(lambda p: format_operator(cast(OperatorPattern, p)))
    return sremo_expressions(max_depth=2).map(format_sremo)


@pytest.mark.slow
@settings(max_examples=100, suppress_health_check=FIXTURES, deadline=None)
@given(data=st.data(), language=st.sampled_from(["ses", "operator", "sremo"]), ops=MUTATIONS,
       mutated=st.booleans())
def test_drawn_patterns_mutated_or_not(capsys, tmp_path, events, data, language, ops, mutated):
    text = data.draw(drawn(language), label="pattern")
    pattern = tmp_path / "p.txt"
    pattern.write_text(mutate(text, ops) if mutated else text)
    check(capsys, "match", "--pattern", str(pattern), "--language", language,
          "--events", str(events), "--allow-missing")
