"""Every engine stops within ``--budget`` on an exploding pattern (docs/architecture.md,
"Engine budgets"), and an engine that finishes within its budget answers what the
reference answers.

The exploding cases are written by hand: ``A+`` (a group variable, an iteration, a star
over marks) under skip-till-any-match over ``n`` A events then one B has ``2**n - 1``
matches, each a non-empty subset of the As with the B; the DSRT's fully marked pattern
has ``n`` (the contiguous runs of As that end at the B), made on one element; the SES
automaton as printed runs ``next`` only, where one instance per A stays alive.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kleene.cli.common import make_budget
from kleene.engines.fastest import run_engine
from kleene.engines.registry import BUILTIN_ENGINES, engine
from kleene.engines.tables import answer_table
from kleene.reference.budget import DEFAULT_HELD, DEFAULT_STEPS, Budget
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Stream
from kleene.reference.query import Query

KLEENE = Path(sys.executable).parent / "kleene"

SES = "PATTERN <{a+}, {b}>\nWHERE a.type = 'A' AND b.type = 'B'\nWITHIN 100000"
OPERATOR = "PATTERN SEQ(A+ a[], B b) WITHIN 1000"
SREMO = "mark {~.type = 'A'} ; ({TRUE}* ; mark {~.type = 'A'})* ; {TRUE}* ; mark {~.type = 'B'}"
MARKED = "mark {~.type = 'A'} ; (mark {~.type = 'A'})* ; mark {~.type = 'B'}"
CEQL_MAX = "SELECT MAX * FROM S WHERE (A+ ; B)"
#: two group variables over the same As: a contiguous run of k As before the B splits
#: between a and c in 2^k - 2 ways
SPLIT = ("PATTERN <{a+, c+}, {b}>\nWHERE a.type = 'A' AND c.type = 'A' AND b.type = 'B'\n"
         "WITHIN 100000")

#: engine → (language, pattern, policy, As for the explosion, matches of the pattern on
#: n As and a B, by hand)
CASES: dict[str, tuple[str, str, str, int]] = {
    **{name: ("ses", SES, "any", 40) for name in (
        "windows+ses", "windows-plain+ses", "windows-f+ses", "windows-fp+ses",
        "windows-fc+ses", "windows-fpc+ses", "windows+ses-bruteforce", "windows-paper+ses",
        "ses-automaton", "ses-automaton-unfiltered", "ses-automaton-paper-filter",
        "ses-bruteforce")},
    # Algorithm 1 as printed runs `next` only: one instance per A stays alive
    **{name: ("ses", SES, "next", 150) for name in (
        "ses-automaton-faithful", "ses-bruteforce-paper")},
    **{name: ("operator", OPERATOR, "any", 40) for name in (
        "nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree")},
    "srt": ("sremo", SREMO, "stream", 40),
    "srt-faithful": ("sremo", SREMO, "stream", 40),
    "dsrt": ("sremo", MARKED, "stream", 300),
    # contiguous: the runs of the last k As (k = 2..n) and the B, each split 2^k - 2 ways
    "ses-contiguous": ("ses", SPLIT, "contiguous", 40),
    # earliest-maximal: a starts at the first A; the maximal matches are then the n
    # matches binding every A from some i on (reference), found by a search through the
    # 2^(n-1) runs that keep the first A
    "windows+ses-earliest": ("ses", SES, "earliest-maximal", 40),
    # next-literal on the As tied at one timestamp (TIED): condition 4 holds for every
    # subset, condition 5 keeps a/{i..n-1} for each first binding a/i: n matches, found by
    # a search through the 2^(n-1-i) subsets of the tie after a/i
    "ses-next-literal": ("ses", SES, "next-literal", 40),
    # a CEQL strategy over the ALL set srt lists: every non-empty set of As then the B
    # (2^n - 1), of which MAX keeps, per first A, the one holding every later A: n
    "srt+selection": ("ceql", CEQL_MAX, "stream", 40),
}

#: The engines whose exploding case puts the As at one timestamp.
TIED = ("ses-next-literal",)


def expected_count(name: str, n: int) -> int:
    """The matches on ``n`` As and a B, by hand (module docstring and CASES' comments):
    sum over k = 2..n of 2^k - 2 is 2^(n+1) - 2n - 2."""
    if name == "ses-contiguous":
        return 2 ** (n + 1) - 2 * n - 2
    return n if name in ("dsrt", "windows+ses-earliest", "ses-next-literal",
                         "srt+selection") else 2**n - 1


def stream(n: int, *, tied: bool = False) -> Stream:
    return Stream.from_rows([{"ts": 0 if tied else i, "type": "A"} for i in range(n)]
                            + [{"ts": n, "type": "B"}])


def query(name: str) -> Query:
    language, text, policy, _ = CASES[name]
    return Query.parse(text, language=language, policy=policy)


def test_every_registered_engine_has_an_exploding_case():
    names = {n for _, _, names in BUILTIN_ENGINES for n in names}
    assert names == set(CASES) | {"match-recognize"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_exploding_pattern_stops_with_the_budget_error(name):
    compiled = engine(name).compile(query(name))
    began = time.monotonic()
    with pytest.raises(BudgetExceeded, match="budget steps=100 exceeded"):
        for _ in compiled.run(stream(CASES[name][3], tied=name in TIED),
                              budget=Budget(limit=100)):
            pass   # not spent per match here: the engine's own bound stops it
    assert time.monotonic() - began < 20


#: the engines ``kleene match`` runs on these queries (the others claim no policy)
CLAIMING = sorted(n for n in CASES if not any(
    w in n for w in ("paper", "faithful")) and n != "ses-bruteforce-paper")


@pytest.mark.parametrize("name", CLAIMING)
@settings(max_examples=15, deadline=None)
@given(n=st.integers(0, 8), limit=st.integers(1, 300))
@example(n=7, limit=128)   # the earliest-maximal search: 192 nodes explored, over 2^7
def test_within_the_budget_an_engine_answers_the_reference_or_stops(name, n, limit):
    q = query(name)
    events = stream(n, tied=name in TIED)
    expected = q.reference(events, budget=Budget(limit=10**7))
    assert len(expected) == (expected_count(name, n) if n else 0)
    try:
        found, _ = run_engine(name, q, events, budget=Budget(limit=limit))
    except BudgetExceeded as err:
        assert f"budget steps={limit} exceeded" in str(err)
        # the work grew past it: the runs, 2^n; 2^(n+1) for two group variables, and for
        # the earliest-maximal search, whose tree of n binary choices (take or skip each
        # later A and the B) under its root has at most 2^(n+1) nodes to explore; for
        # next-literal on the tie, from a/0 a's 2^(n-1) subsets and b after each
        wider = name in ("ses-contiguous", "windows+ses-earliest")
        assert len(expected) > limit or 2 ** (n + wider) > limit
    else:
        assert found == expected


def test_the_match_recognize_engine_stops_within_the_budget():
    # A reads the match so far (an aggregate): nothing is remembered, 2^n paths
    q = Query.parse("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES COUNT(*) AS n "
                    "PATTERN ((A|A)* B) DEFINE A AS COUNT(*) >= 0, B AS x < 0)",
                    language="match_recognize")
    with pytest.raises(BudgetExceeded, match="budget steps=1000 exceeded"):
        answer_table(q, pa.table({"x": list(range(60))}), engine_name="match-recognize",
                     budget=Budget(limit=1000))


@pytest.mark.parametrize("budget, limit", [(["--budget", "1000"], 1000),
                                           ([], 200_000)])   # the default: DEFAULT_HELD
@pytest.mark.parametrize("name, suffix", [("windows+ses", "ses"), ("nfa-chain", "op"),
                                          ("srt", "sremo")])
def test_kleene_match_stops_the_default_engines_in_one_line(tmp_path, name, suffix, budget,
                                                            limit):
    """The SREMO pattern's default backend is the shared structure (engines/count/tecs.py,
    its guards are unary), which holds at most the limit's matches ending at one event (the
    B ends 2^60 − 1); ``srt`` as named."""
    rows = ["ts,type"] + [f"{i},A" for i in range(60)] + ["60,B"]
    events = tmp_path / "ab.csv"
    events.write_text("\n".join(rows) + "\n")
    pattern = tmp_path / f"q.{suffix}"
    pattern.write_text(CASES[name][1] + "\n")
    began = time.monotonic()
    # -q: the engine's own bound, not the count before the listing that stops the SES and
    # operator runs earlier (2^60 - 1 matches, more than the steps: test_cli_listing_cliff)
    done = subprocess.run([KLEENE, "match", "-q", "--pattern", str(pattern),
                           "--events", str(events), *budget],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    # a run longer than a few seconds also says its progress (``kleene: ...``, not a TTY)
    lines = [line for line in done.stderr.splitlines() if not line.startswith("kleene: ")]
    assert len(lines) == 2
    if suffix == "sremo":   # the structure, one step per match: 2,000,000 steps by default
        assert lines[0].startswith("kleene match: listing from a shared structure")
        assert lines[1].startswith(f"kleene match: budget steps={limit} exceeded while "
                                   "listing from the shared structure (tecs): matches "
                                   "ending at one event")
        named = subprocess.run([KLEENE, "match", "-q", "--pattern", str(pattern), "--events",
                                str(events), "--engine", name, *budget],
                               capture_output=True, text=True, timeout=120)
        assert named.returncode == 2 and named.stdout == ""
        lines = [line for line in named.stderr.splitlines() if not line.startswith("kleene: ")]
        assert len(lines) == 1 and lines[0].startswith(
            f"kleene match: budget steps={limit} exceeded while running engine {name}: ")
    else:
        assert lines[0].startswith(f"kleene match: engine {name} (the fastest engine that "
                                   "claims ")
        assert lines[1].startswith(
            f"kleene match: budget steps={limit} exceeded while running engine {name}: ")
    assert done.stdout == ""
    assert time.monotonic() - began < 60


def test_the_default_budget_holds_fewer_than_it_steps():
    assert make_budget(None).limit == DEFAULT_STEPS == 2_000_000
    assert make_budget(None).most_held == DEFAULT_HELD == 200_000
    assert make_budget(1000).limit == make_budget(1000).most_held == 1000


#: The lazy NFAs' sub-pattern paths (engines/nfa/subpattern.py) on n As and a B: an
#: iterated sub-pattern whose chains are the non-empty subsets of the As (2^n - 1
#: matches, by hand), and a negated one whose search lists the 2^n - 1 chains of As
#: before finding that no C follows them (one match, x0 b, by hand).
SUBPATTERNS = {
    "iterated": ("PATTERN SEQ(SEQ(A a)+, B b) WITHIN 1000", lambda n: 2**n - 1),
    "negated": ("PATTERN SEQ(X x, NOT(SEQ(A+ a[], C c)), B b) WITHIN 1000", lambda n: 1),
}


def x_stream(n: int) -> Stream:
    """X, then ``n`` As, then a B (ts = position)."""
    return Stream.from_rows([{"ts": 0, "type": "X"}] + [{"ts": i + 1, "type": "A"}
                                                        for i in range(n)]
                            + [{"ts": n + 1, "type": "B"}])


@pytest.mark.parametrize("path", sorted(SUBPATTERNS))
@pytest.mark.parametrize("name", ["nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree"])
def test_a_subpattern_path_stops_with_the_budget_error(name, path):
    q = Query.parse(SUBPATTERNS[path][0], language="operator")
    began = time.monotonic()
    with pytest.raises(BudgetExceeded, match="budget steps=100 exceeded"):
        for _ in engine(name).compile(q).run(x_stream(40), budget=Budget(limit=100)):
            pass
    assert time.monotonic() - began < 20


@pytest.mark.parametrize("path", sorted(SUBPATTERNS))
@settings(max_examples=15, deadline=None)
@given(n=st.integers(0, 8), limit=st.integers(1, 300))
def test_within_the_budget_a_subpattern_path_answers_the_reference_or_stops(path, n, limit):
    text, count = SUBPATTERNS[path]
    q = Query.parse(text, language="operator")
    events = x_stream(n)
    expected = q.reference(events, budget=Budget(limit=10**7))
    assert len(expected) == (count(n) if n or path == "negated" else 0)
    try:
        found, _ = run_engine("nfa-chain", q, events, budget=Budget(limit=limit))
    except BudgetExceeded as err:
        assert f"budget steps={limit} exceeded" in str(err)
        assert 2**n > limit   # the chains of As, listed at once
    else:
        assert found == expected
