"""The listing cliff and the keyed funnel (issue 29 item 2, :mod:`kleene.cli.cliffs`).

Before an engine ``kleene match`` chose lists the matches of a query the count claims,
they are counted by dynamic programming within seconds: past
:data:`~kleene.cli.cliffs.MANY_MATCHES` one ``slow:`` line says how many, how long the
listing takes and what answers now, and past the budget's steps (one per match listed)
the run stops before it starts with the budget's own error, in its one line. An NFA
enumerating every skip-till-any-match match of each part alone (the chain over columns
keyed by ``PARTITION BY``) says nothing when the parts are small, and says its cliff when
one part holds many. Every count here is by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from kleene.cli import cliffs, main
from kleene.reference.events import Stream
from kleene.reference.query import Query

SES = "PATTERN <{a+}, {b}>\nWHERE a.type = 'A' AND b.type = 'B'\nWITHIN 50\n"
OPERATOR = "PATTERN SEQ(A+ a[], B b) WITHIN 50\n"
KEYED = "PATTERN SEQ(A a, B b) PARTITION BY u WITHIN 1000\n"
#: --budget 300's error as the run itself says it (-q: no count before the listing)
BUDGET_300 = "budget steps=300 exceeded while running engine windows+ses"


def windows(n: int, k: int) -> str:
    """``n`` windows 100 apart, each ``k`` As then a B: the B of a window sees only its
    own As within 50, so each window has 2^k - 1 matches (a non-empty subset of its As)."""
    rows = ["ts,type"]
    for w in range(n):
        rows += [f"{w * 100 + i},A" for i in range(k)] + [f"{w * 100 + k},B"]
    return "\n".join(rows) + "\n"


def run(capsys, tmp_path: Path, pattern: str, events: str, *extra: str,
        suffix: str = "ses") -> tuple[int, list[str], list[str]]:
    (tmp_path / f"q.{suffix}").write_text(pattern)
    (tmp_path / "e.csv").write_text(events)
    code = main(["match", "--pattern", str(tmp_path / f"q.{suffix}"), "--events",
                 str(tmp_path / "e.csv"), *extra])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


@pytest.fixture
def few(monkeypatch: pytest.MonkeyPatch) -> int:
    """A threshold small enough for files of a few events."""
    monkeypatch.setattr(cliffs, "MANY_MATCHES", 100)
    return 100


def test_many_matches_are_said_in_one_line_and_still_listed(capsys, tmp_path, few):
    code, out, err = run(capsys, tmp_path, SES, windows(3, 7))
    assert code == 0 and len(out) == 3 * (2**7 - 1) == 381
    assert err == [
        "kleene match: engine windows+ses (the fastest engine that claims ses, ses:any, "
        "ses:group-variables)",
        "kleene match: slow: 381 matches: listing them takes ~1 s of CPU (~50,000 "
        "matches/s); --count answers now, --first K lists K"]


def test_the_operator_form_is_counted_and_said_alike(capsys, tmp_path, few):
    code, out, err = run(capsys, tmp_path, OPERATOR, windows(3, 7), suffix="op")
    assert code == 0 and len(out) == 381
    assert err[1] == ("kleene match: slow: 381 matches: listing them takes ~1 s of CPU "
                      "(~70,000 matches/s); --count answers now, --first K lists K")


def test_few_matches_say_nothing(capsys, tmp_path):
    code, out, err = run(capsys, tmp_path, SES, windows(3, 7))
    assert cliffs.MANY_MATCHES == 500_000
    assert code == 0 and len(out) == 381 and len(err) == 1


def test_more_matches_than_the_budget_stop_before_the_listing(capsys, tmp_path, few):
    code, out, err = run(capsys, tmp_path, SES, windows(3, 7), "--budget", "300")
    assert code == 2 and out == []
    # one line (bad input gets one line): the budget's own error, with the count and what
    # answers now
    assert err[1:] == ["kleene match: " + BUDGET_300 + " (381 matches counted before "
                       "listing, one step each; --count answers now, --first K lists K); "
                       "raise it (--budget N) or shrink the stream or window"]
    # the listing itself stops on the same budget, later (-q: no count, no line)
    code, out, err = run(capsys, tmp_path, SES, windows(3, 7), "--budget", "300", "-q")
    assert code == 2 and out == [] and len(err) == 2 and BUDGET_300 + ";" in err[1]


def test_a_group_variable_over_40_candidates_stops_at_once(capsys, tmp_path):
    """2^40 - 1 matches (every non-empty subset of the 40 As with the B), past the default
    2,000,000 steps: said and stopped without listing one; at the measured 50,000 matches
    a CPU second the listing would take 2^40 / 50,000 s, 254.5 days."""
    pattern = "PATTERN <{a+}, {b}>\nWHERE a.type = 'A' AND b.type = 'B'\nWITHIN 100000\n"
    events = "ts,type\n" + "".join(f"{i},A\n" for i in range(40)) + "40,B\n"
    code, out, err = run(capsys, tmp_path, pattern, events)
    assert code == 2 and out == []
    assert err[1:] == ["kleene match: budget steps=2000000 exceeded while running engine "
                       "windows+ses (1,099,511,627,775 matches counted before listing, one "
                       "step each; --count answers now, --first K lists K); raise it "
                       "(--budget N) or shrink the stream or window"]


def test_a_named_engine_or_quiet_counts_nothing_first(capsys, tmp_path, few):
    for extra in (["--engine", "windows+ses"], ["-q"]):
        code, out, err = run(capsys, tmp_path, SES, windows(3, 7), *extra)
        assert code == 0 and len(out) == 381 and not any("slow:" in e for e in err)


def test_a_query_the_count_does_not_claim_says_as_before(capsys, tmp_path, few):
    """Under next the count does not claim the query: no count, no listing line (and
    windows+ses computes next without enumerating: no line at all)."""
    code, out, err = run(capsys, tmp_path, SES, windows(3, 7), "--policy", "next")
    assert code == 0 and len(err) == 1


def test_the_count_before_a_listing_stops_on_its_clock(monkeypatch):
    """Read for 1.5 s of a clock that moves 1 s a look, batches of 8 events (a window of
    7 As and its B): the first window is read, then the clock stops the count, which
    keeps its 127 matches as a lower bound."""
    clock = iter(range(100))
    monkeypatch.setattr(cliffs.time, "monotonic", lambda: float(next(clock)))
    monkeypatch.setattr(cliffs, "_ROWS", 8)
    rows = [{"ts": w * 100 + i, "type": "A" if i < 7 else "B"} for w in range(2)
            for i in range(8)]
    query = Query.parse(SES, language="ses", policy="any")
    counted = cliffs.tally(query, Stream.from_rows(rows), seconds=1.5)
    assert counted is not None and (counted.matches, counted.events) == (127, 8)
    assert not counted.complete
    line = cliffs.listing(cliffs.Tally(600_000, 8, False, 2.0), "windows+ses", 16)
    assert line == ("slow: at least 600,000 matches (in the first 8 events of 16): listing "
                    "them takes more than ~12 s of CPU (~50,000 matches/s); --count answers "
                    "now, --first K lists K")
    assert cliffs.tally(Query.parse(SES, language="ses", policy="next"),
                        Stream.from_rows(rows)) is None


def keyed_events(users: int, each: int) -> str:
    """``users`` users one after the other, each ``each`` As then ``each`` Bs."""
    rows = ["ts,type,u"]
    for u in range(users):
        base = u * 2 * each
        rows += [f"{base + i},A,{u}" for i in range(each)]
        rows += [f"{base + each + i},B,{u}" for i in range(each)]
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("policy", ["next", "partition-contiguous"])
def test_the_keyed_funnel_with_small_parts_says_nothing(capsys, tmp_path, monkeypatch,
                                                         policy):
    """Two users of 3 As then 3 Bs: the chain over columns enumerates each user's pairs
    alone, and a user holds 6 events within a window: at a bound of 6, no line. Next:
    each A's run takes its user's first B (3 + 3); partition-contiguous: the user's rows
    from a to b are all bound, only (a3, b1) per user (2)."""
    monkeypatch.setattr(cliffs, "SMALL_PART", 6)
    code, out, err = run(capsys, tmp_path, KEYED, keyed_events(2, 3), "--policy", policy,
                         "--count", suffix="op")
    assert code == 0 and out == ["6" if policy == "next" else "2"]
    assert len(err) == 1 and err[0].startswith("kleene match: engine nfa-chain")
    monkeypatch.setattr(cliffs, "SMALL_PART", 5)
    code, out, err = run(capsys, tmp_path, KEYED, keyed_events(2, 3), "--policy", policy,
                         "--count", suffix="op")
    assert len(err) == 2 and err[1].startswith(
        f"kleene match: slow: engine nfa-chain computes policy {policy} by enumerating every "
        "skip-till-any-match match and keeping some, a cost that grows with the product "
        "of one part's candidates within a window (a part of u holds 6 events within one);")


def test_one_large_part_is_the_true_cliff(capsys, tmp_path, monkeypatch):
    """One user of 6 As then 6 Bs: 12 events of one part within a window, past 6: said;
    spread over two windows (the Bs 2,000 later, WITHIN 1000), 6 each: not said."""
    monkeypatch.setattr(cliffs, "SMALL_PART", 6)
    code, out, err = run(capsys, tmp_path, KEYED, keyed_events(1, 6), "--policy", "next",
                         "--count", suffix="op")
    assert code == 0 and out == ["6"]
    assert len(err) == 2 and "(a part of u holds 12 events within one);" in err[1]
    apart = "ts,type,u\n" + "".join(f"{i},A,0\n" for i in range(6)) \
        + "".join(f"{2000 + i},B,0\n" for i in range(6))
    code, out, err = run(capsys, tmp_path, KEYED, apart, "--policy", "next", "--count",
                         suffix="op")
    assert code == 0 and out == ["0"] and len(err) == 1


def test_the_funnel_example_under_next_says_no_cliff(capsys):
    """docs' funnel (examples/funnel/funnel.op, 60 users): keyed by user, small parts."""
    root = Path(cliffs.__file__).resolve().parent.parent / "examples" / "funnel"
    for policy in ("next", "partition-contiguous"):
        code = main(["match", "--pattern", str(root / "funnel.op"), "--events",
                     str(root / "clicks.csv"), "--type-field", "action", "--policy", policy,
                     "--count"])
        _, err = capsys.readouterr()
        assert code == 0 and not any("slow:" in line for line in err.splitlines()), err
