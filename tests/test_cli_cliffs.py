"""``kleene match`` says its cliffs before a run (issue 29 item 2, :mod:`kleene.cli.cliffs`):
a fallback on the reference semantics or an engine whose cost grows with the product of
the candidates is one warning line naming the faster policies an engine claims; a long
input is refused to the reference unless ``--engine reference`` is named."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from kleene.cli import cliffs, main
from kleene.engines.fastest import run_engine
from kleene.engines.protocol import claims, enumerates_any
from kleene.engines.registry import engine
from kleene.reference.events import Stream
from kleene.reference.query import Query
from tests.helpers import unregistered

# <{a+},{b}> on A A B A B: under next-literal with its engine (ses-next-literal) taken out
# of the registry (every_ses fixture), no engine claims it and the reference answers
SES = "PATTERN <{a+}, {b}>\nWHERE a.type = 'A' AND b.type = 'B'\nWITHIN 100\n"
OPERATOR = "PATTERN SEQ(A+ a[], B b) WITHIN 100\n"
EVENTS = "ts,type\n0,A\n1,A\n2,B\n3,A\n4,B\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "q.ses").write_text(SES)
    (tmp_path / "q.op").write_text(OPERATOR)
    (tmp_path / "e.csv").write_text(EVENTS)
    return tmp_path


@pytest.fixture
def unclaimed(monkeypatch: pytest.MonkeyPatch) -> str:
    """A policy no registered engine claims for SES: next-literal without ses-next-literal
    (every documented SES policy has an engine: test_every_ses_policy_has_an_engine...)."""
    unregistered(monkeypatch, "ses-next-literal")
    return "next-literal"


def run(capsys, files: Path, pattern: str, *extra: str) -> tuple[int, str, list[str]]:
    code = main(["match", "--pattern", str(files / pattern), "--events",
                 str(files / "e.csv"), *extra])
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


def test_a_fallback_on_the_reference_is_one_warning_naming_claimed_policies(capsys, files,
                                                                          unclaimed):
    code, out, err = run(capsys, files, "q.ses", "--policy", unclaimed, "--count")
    assert code == 0
    # Γ: b/2 with a/{0}, {1}, {0, 1}; b/4 with the 7 non-empty subsets of {0, 1, 3}.
    # Condition 4 drops every b/4 match with a/0 or a/1 (b/2 lies between), condition 5
    # {a0, b2} (inside {a0 a1, b2}, same earliest binding a/0): {a1, b2}, {a0 a1, b2}, {a3, b4}
    assert out == "3\n"
    assert len(err) == 2 and err[0].startswith("kleene match: the reference semantics (")
    assert err[1].startswith("kleene match: slow: the reference semantics enumerate ")
    named = err[1].split("--policy ")[1].split(";")[0].split(", ")
    policies = {p.split(" (")[0]: p.split(" (")[1].rstrip(")") for p in named}
    # windows+ses claims <{a+},{b}> under any and next (docs/architecture.md, "Engines")
    assert {"any", "next", "contiguous", "earliest-maximal"} <= set(policies)
    assert unclaimed not in policies
    q = Query.parse(SES, language="ses", policy=unclaimed)
    for policy, name in policies.items():
        assert claims(engine(name), dataclasses.replace(q, policy=policy))
    assert "--limit N" in err[1]


def test_a_named_reference_or_a_direct_engine_says_no_warning(capsys, files, unclaimed):
    code, _, err = run(capsys, files, "q.ses", "--policy", unclaimed, "--engine",
                       "reference", "--count")
    assert code == 0 and err == []
    code, _, err = run(capsys, files, "q.ses", "--policy", "next", "--count")
    assert code == 0 and len(err) == 1 and err[0].startswith("kleene match: engine ")
    code, _, err = run(capsys, files, "q.op")   # any: the matches are Γ itself
    assert code == 0 and len(err) == 1 and err[0].startswith("kleene match: engine nfa-")
    code, _, err = run(capsys, files, "q.ses", "--policy", unclaimed, "--count", "-q")
    assert code == 0 and len(err) == 1 and err[0].startswith("kleene match: the reference ")


def test_a_long_input_is_refused_to_the_reference_unless_named(capsys, files, unclaimed,
                                                                monkeypatch):
    monkeypatch.setattr(cliffs, "REFERENCE_MAX_EVENTS", 4)   # the file has 5 events
    code, out, err = run(capsys, files, "q.ses", "--policy", unclaimed, "--count")
    assert code == 2 and out == "" and len(err) == 1
    assert "on 5 events (more than 4)" in err[0]
    assert "--engine reference runs it anyway" in err[0] and "--limit 4 " in err[0]
    code, out, err = run(capsys, files, "q.ses", "--policy", unclaimed, "--count",
                         "--engine", "reference")
    assert code == 0 and out == "3\n"
    code, out, _ = run(capsys, files, "q.ses", "--policy", unclaimed, "--count",
                       "--limit", "4")
    assert code == 0 and out == "2\n"   # A A B A: {a1, b2} and {a0 a1, b2} (condition 5)


def test_the_default_limit_is_documented():
    assert cliffs.REFERENCE_MAX_EVENTS == 50_000
    doc = (Path(cliffs.__file__).parent.parent / "docs" / "architecture.md").read_text()
    assert "50,000 events" in doc


def test_an_nfa_under_a_selective_policy_is_one_warning(capsys, files):
    code, out, err = run(capsys, files, "q.op", "--policy", "next", "--count")
    assert code == 0 and out == "3\n"   # {a0 a1, b2}, {a1, b2}, {a3, b4}: a run takes every A
    assert len(err) == 2 and err[0].startswith("kleene match: engine nfa-")
    assert "by enumerating every skip-till-any-match match" in err[1]
    assert "--policy any" not in err[1]   # any is the enumeration itself, never faster


@pytest.mark.parametrize("policy", ["next", "contiguous", "partition-contiguous"])
def test_what_the_nfas_say_they_enumerate_they_do(policy):
    """``A+`` then ``B`` on n As and a B: 2^n - 1 skip-till-any-match matches (each
    non-empty subset of the As), made and counted under every policy the NFAs filter, while
    the policy keeps far fewer."""
    n = 10
    events = Stream.from_rows([{"ts": i, "type": "A"} for i in range(n)]
                              + [{"ts": n, "type": "B"}])
    q = Query.parse(OPERATOR, language="operator", policy=policy)
    assert enumerates_any(engine("nfa-chain"), q)
    found, counters = run_engine("nfa-chain", q, events)
    assert len(found) <= n and counters.subsets == 2**n - 1
    assert not enumerates_any(engine("nfa-chain"), dataclasses.replace(q, policy="any"))
    assert not enumerates_any(engine("windows+ses"),
                              Query.parse(SES, language="ses", policy="next"))


@pytest.mark.parametrize("policy", ["contiguous", "partition-contiguous", "earliest-maximal",
                                    "earliest-maximal-contained", "next-literal"])
def test_every_ses_policy_has_an_engine_and_no_cliff(capsys, files, monkeypatch, policy):
    """Issue 32 item 3: no documented SES policy falls back on the reference, so nothing is
    refused on a long input and no slow line is said. <{a+},{b}> on A A B A B, by hand:
    contiguous (no partitioning attribute: the same parts) {a1, b2}, {a0 a1, b2}, {a3, b4};
    earliest-maximal, per first event: a0 with the earliest b2, {a0, b2} extended by a1
    to {a0 a1, b2}; a1 with b2; a3 with b4: three matches in both readings; next-literal
    (test_a_fallback_on_the_reference_is_one_warning_naming_claimed_policies): {a1, b2},
    {a0 a1, b2}, {a3, b4}."""
    monkeypatch.setattr(cliffs, "REFERENCE_MAX_EVENTS", 4)   # the file has 5 events
    code, out, err = run(capsys, files, "q.ses", "--policy", policy, "--count")
    assert code == 0 and out == "3\n"
    assert len(err) == 1 and err[0].startswith("kleene match: engine ")
    assert not any("slow:" in line for line in err)
