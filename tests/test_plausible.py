"""Plausibility warnings (issue 29 item 3, data/plausible.py): one line each on stderr,
never a failure, none with -q, none on a plausible run; the answer is the same with
and without them. Expected lines and matches are written by hand from the files below."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from kleene.cli import main
from kleene.data.loaders import load_events
from kleene.data.plausible import nearest, text_values
from kleene.reference.query import Query
from kleene.reference.schema import text_equalities

# A click log in epoch seconds (1,700,000,000 s is 2023-11-14T22:13:20Z): u1 views,
# carts and buys within 2 minutes; u2 views at +900 s, carts at +1000 s and buys at
# +4000 s, past 30 minutes.
CLICKS = ("ts,user,action\n"
          "1700000000,u1,view\n"
          "1700000060,u1,cart\n"
          "1700000120,u1,purchase\n"
          "1700000900,u2,view\n"
          "1700001000,u2,cart\n"
          "1700004000,u2,purchase\n")
FUNNEL = ("PATTERN <{v}, {c}, {p}>\n"
          "WHERE v.action = 'view' AND c.action = 'cart' AND p.action = 'purchase'\n"
          "  AND v.user = c.user AND c.user = p.user\n"
          "WITHIN 30 minutes\n")
# In seconds only u1's funnel fits 30 minutes (120 s); read as ms, 30 minutes is
# 1,800,000 units and u2's 3,100 fit too.
U1 = '{"c": [1], "p": [2], "v": [0]}'
U2 = '{"c": [4], "p": [5], "v": [3]}'
ENGINE = "kleene match: engine "


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "clicks.csv").write_text(CLICKS)
    (tmp_path / "funnel.ses").write_text(FUNNEL)
    return tmp_path


def match(capsys: pytest.CaptureFixture[str], folder: Path, *extra: str,
          pattern: str = "funnel.ses", events: str = "clicks.csv",
          command: str = "match") -> tuple[int, list[str], list[str]]:
    """``kleene COMMAND``: exit code, stdout lines, stderr lines but the engine's."""
    head = ["match", "--pattern", str(folder / pattern)] if command == "match" \
        else [command, str(folder / pattern)]
    code = main([*head, "--events", str(folder / events), *extra])
    out, err = capsys.readouterr()
    return code, out.splitlines(), [line for line in err.splitlines()
                                    if not line.startswith(ENGINE)]


def test_a_plausible_run_says_no_warning(capsys, folder):
    assert match(capsys, folder, "--time-unit", "s") == (0, [U1], [])


def test_a_misspelt_text_value_is_a_warning_naming_the_nearest(capsys, folder):
    (folder / "typo.ses").write_text(FUNNEL.replace("'purchase'", "'Purchase'"))
    code, out, err = match(capsys, folder, "--time-unit", "s", pattern="typo.ses")
    assert (code, out) == (0, [])   # no event has the value: no match, as without a word
    assert err == ["kleene match: warning: no event has action 'Purchase' "
                   "(p.action = 'Purchase'); the nearest: 'purchase'"]


def test_a_value_near_none_lists_the_few_values_present(capsys, folder):
    (folder / "typo.ses").write_text(FUNNEL.replace("'purchase'", "'checkout'"))
    _, _, err = match(capsys, folder, "--time-unit", "s", pattern="typo.ses")
    assert err == ["kleene match: warning: no event has action 'checkout' "
                   "(p.action = 'checkout'); the values present: 'cart', 'purchase', 'view'"]


def test_a_misspelt_event_type_is_a_warning_at_trace_too(capsys, folder):
    (folder / "f.op").write_text("PATTERN SEQ(view v, Cart c, purchase p) PARTITION BY user "
                                 "WITHIN 30 minutes\n")
    line = "warning: no event has type 'Cart' (Cart c); the nearest: 'cart'"
    options = ("--type-field", "action", "--time-unit", "s")
    code, out, err = match(capsys, folder, *options, pattern="f.op")
    assert (code, out, err) == (0, [], [f"kleene match: {line}"])
    code, _, err = match(capsys, folder, *options, "--format", "text", pattern="f.op",
                         command="trace")
    assert (code, err) == (0, [f"kleene trace: {line}"])


def test_epoch_seconds_read_as_ms_are_a_warning_and_the_answer_is_unchanged(capsys, folder):
    code, out, err = match(capsys, folder, "--time-unit", "ms")
    assert (code, out) == (0, [U1, U2])
    assert err == ["kleene match: warning: the timestamps read in ms fall in the year 1970; "
                   "read in s they fall on 2023-11-14: is the unit s (--time-unit s)?"]
    assert match(capsys, folder, "--time-unit", "ms", "-q") == (0, [U1, U2], [])


def test_a_span_of_centuries_is_a_warning(capsys, folder):
    # 5e9 s is 158.4 years (of 365.2425 days); 5e9 read as epoch s or ms is no date of
    # 1990-2100, so only the span is implausible.
    (folder / "long.csv").write_text("ts,user,action\n0,u1,view\n1,u1,cart\n"
                                       "5000000000,u1,purchase\n")
    code, _, err = match(capsys, folder, "--time-unit", "s", events="long.csv")
    assert code == 0
    assert err == ["kleene match: warning: the events span 158 years read in s (ts 0 to "
                   "5000000000): is the unit right (--time-unit)?"]


def test_a_window_longer_than_a_stream_of_1000_events_is_a_warning(capsys, folder):
    # 1,200 events one second apart, each of its own user: 1,199 s (20.0 minutes to three
    # digits) from the first to the last, under the 30-minute window; no match.
    actions = ("view", "cart", "purchase")
    (folder / "short.csv").write_text("ts,user,action\n" + "".join(
        f"{i},u{i},{actions[i % 3]}\n" for i in range(1200)))
    code, out, err = match(capsys, folder, "--time-unit", "s", events="short.csv")
    assert (code, out) == (0, [])
    assert err == ["kleene match: warning: the window, 30 minutes, is longer than the whole "
                   "stream (20 minutes from the first event to the last, the timestamps read "
                   "in s): it bounds no match"]
    (folder / "few.csv").write_text("ts,user,action\n0,u1,view\n60,u1,cart\n120,u1,purchase\n")
    assert match(capsys, folder, "--time-unit", "s", events="few.csv") == (0, [U1], [])


def test_a_window_in_timestamp_units_says_nothing_of_units(capsys, folder):
    (folder / "n.ses").write_text(FUNNEL.replace("30 minutes", "1800"))
    assert match(capsys, folder, pattern="n.ses") == (0, [U1], [])


def test_an_unknown_columns_attribute_is_an_error_naming_the_nearest(capsys, folder):
    out = folder / "o.csv"
    code, _, err = match(capsys, folder, "--time-unit", "s", "--output", str(out),
                         "--layout", "wide", "--columns", "v.usr")
    assert code == 2 and not out.exists()
    assert err == ["kleene match: --columns v.usr: the events have no attribute 'usr'; the "
                   "nearest: user (--allow-missing writes it as an empty column)"]


def test_allow_missing_writes_the_unknown_column_empty_with_a_warning(capsys, folder):
    out = folder / "o.csv"
    code, _, err = match(capsys, folder, "--time-unit", "s", "--output", str(out),
                         "--layout", "wide", "--columns", "v.usr,v.user", "--allow-missing")
    assert code == 0
    assert err[0] == ("kleene match: warning: --columns v.usr: the events have no attribute "
                      "'usr', so its column is empty; the nearest: user")
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["v_usr"], r["v_user"]) for r in rows] == [("", "u1")]


def test_json_lines_events_are_checked_alike(capsys, folder):
    rows = [{"ts": 0, "user": "u1", "action": "view"},
            {"ts": 60, "user": "u1", "action": "Cart"}]
    (folder / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = match(capsys, folder, "--time-unit", "h", events="c.jsonl")
    assert code == 0
    assert err == ["kleene match: warning: no event has action 'cart' (c.action = 'cart'); "
                   "the nearest: 'Cart'",
                   "kleene match: warning: no event has action 'purchase' "
                   "(p.action = 'purchase'); the values present: 'Cart', 'view'"]


def test_text_values_type_a_mixed_column_as_the_loaders_do(tmp_path):
    # x mixes numbers and text: '7' reads as the number 7, so no event has the text '7'.
    (tmp_path / "m.csv").write_text("ts,x\n0,7\n1,seven\n2,\n")
    stream = load_events(tmp_path / "m.csv")
    assert text_values(stream, "x") == {"seven"}


def test_nearest_puts_a_different_case_first():
    assert nearest("Purchase", ["view", "purchase", "purchases", "Purchase "]) == \
        ["Purchase ", "purchase", "purchases"]
    assert nearest("usr", ["ts", "user", "action"]) == ["user"]
    assert nearest("zzz", ["ts", "user"]) == []


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("PATTERN SEQ(A a, NOT(C c), B b) WHERE 'q' = b.x AND a.y != 'r' WITHIN 10", None,
     [("x", "q", "'q' = b.x"), ("type", "A", "A a"), ("type", "C", "C c"),
      ("type", "B", "B b")]),
    ("mark {~.type = 'A'} ; mark {~.type = 'B'}", "sremo",
     [("type", "A", "~.type = 'A'"), ("type", "B", "~.type = 'B'")]),
    ("^(IsEventTypePredicate(BUY),EQStr(name,INTC)){window:20}{windowType:count}", "wayeb",
     [("type", "BUY", "~.type = 'BUY'"), ("name", "INTC", "~.name = 'INTC'")]),
])
def test_the_text_values_every_language_compares_for_equality(text, language, expected):
    # Only equalities with a text constant and typed variables; a != is not one.
    assert list(text_equalities(Query.parse(text, language=language).pattern)) == expected


def test_trace_refuses_an_unknown_attribute_unless_allow_missing(capsys, folder):
    (folder / "q.ses").write_text(FUNNEL.replace("v.user = c.user", "v.usr = c.user"))
    code, _, err = match(capsys, folder, "--time-unit", "s", "--format", "text",
                         pattern="q.ses", command="trace")
    assert code == 2
    assert err[0].startswith(f"kleene trace: {folder / 'q.ses'}:3:7: the events of "
                             f"{folder / 'clicks.csv'} have no attribute 'usr' (v.usr)")
    code, out, err = match(capsys, folder, "--time-unit", "s", "--format", "text",
                           "--allow-missing", pattern="q.ses", command="trace")
    assert (code, err) == (0, []) and out


def test_a_window_unit_over_unit_less_epoch_seconds_names_the_unit(capsys, folder):
    code, out, err = match(capsys, folder)
    assert (code, out) == (2, [])
    assert err == ["kleene match: pattern: the window is 30 minutes but the events' "
                   "timestamps have no declared unit; declare one (--time-unit h, or "
                   "\"time_unit\" in a case file) or write the window in timestamp units; they "
                   "read as epoch s on 2023-11-14: --time-unit s"]


def test_a_source_read_in_batches_is_asked_in_its_first_batch(capsys, folder):
    """A large file is read in batches by default (``--stream`` here, on a small one):
    the values are looked for in its first batch, and the warning says how many events
    that is (it is not read twice)."""
    pq.write_table(pa_csv.read_csv(folder / "clicks.csv"), folder / "clicks.parquet")
    (folder / "typo.ses").write_text(FUNNEL.replace("'purchase'", "'Purchase'"))
    code, out, err = match(capsys, folder, "--time-unit", "s", "--stream",
                           pattern="typo.ses", events="clicks.parquet")
    assert (code, out) == (0, [])
    assert err == ["kleene match: warning: no event of the first 6 read has action "
                   "'Purchase' (p.action = 'Purchase'); the nearest: 'purchase'"]
    assert match(capsys, folder, "--time-unit", "s", "--stream",
                 events="clicks.parquet") == (0, [U1], [])
