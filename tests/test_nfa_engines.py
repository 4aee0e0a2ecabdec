"""The NFA engines of seed 003 on hand-computed examples: counters, budget, errors, edges."""

from __future__ import annotations

from typing import Literal, cast

import pytest

from kleene.engines.nfa.engine import NFAEngine
from kleene.engines.protocol import Compiled, Counters, Engine
from kleene.engines.registry import engine
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query
from tests.helpers import columnar

ENGINES = ("nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree")


def stream(types: str, **extra: list[int]) -> Stream:
    rows = [{"ts": i, "type": t} for i, t in enumerate(types.split())]
    for attr, values in extra.items():
        for row, v in zip(rows, values, strict=True):
            row[attr] = v
    return Stream.from_rows(rows)


def run(e: Engine, text: str, s: Stream, policy: str = "any") -> tuple[list[Match], Counters]:
    """The matches of one run and what it counted."""
    counters = Counters()
    compiled = e.compile(Query.of(parse_operator(text), policy=policy))
    return list(compiled.run(s, counters=counters)), counters


@pytest.mark.parametrize("name", ENGINES)
def test_protocol(name: str) -> None:
    e = engine(name)
    assert isinstance(e, Engine) and e.name == name
    compiled = e.compile(Query.of(parse_operator("PATTERN SEQ(A a, B b)")))
    assert isinstance(compiled, Compiled)
    assert compiled.initial and compiled.accepting


def test_example_1_1_counts() -> None:
    """Sec. 1's stream a1 a2 b1 b2 c: four matches. The eager NFA creates an instance
    per a (2), per (a, b) (4) and per match (4); the chain C, B, A creates one per c (1),
    per (c, b) (2), per match (4), and keeps none alive (all were found from buffers)."""
    text = "PATTERN SEQ(A a, B b, C c) WITHIN 10"
    s = stream("A A B B C")
    expected = {Match.of({"a": [i], "b": [j], "c": [4]}) for i in (0, 1) for j in (2, 3)}
    got, eager = run(engine("nfa-eager"), text, s)
    assert set(got) == expected
    assert eager.instances_created == 10
    assert eager.peak_instances == 6  # a1 a2 a1b1 a2b1 a1b2 a2b2 before c
    lazy = NFAEngine("lazy", "chain", frequencies={"C": 1, "B": 2, "A": 3})
    got, chain = run(lazy, text, s)
    assert set(got) == expected
    assert chain.instances_created == 7
    assert chain.peak_instances == 0
    assert chain.buffer_operations == 5  # every event buffered, none expired
    compiled = lazy.compile(Query.of(parse_operator(text)))
    assert [(t.source, t.target, t.variable) for t in compiled.iter_transitions()
            if t.kind == "bind"] == [((0, 0), (0, 1), "c"), ((0, 1), (0, 2), "b"),
                                     ((0, 2), (0, 3), "a")]


@pytest.mark.parametrize("on_columns", [False, True])
def test_conjunction_counts_every_pair_once_either_way(on_columns: bool) -> None:
    """Sec. 4.2 on a0(v=1) a1(v=2) b2(v=1) a3(v=0), ``AND(A a, B b) WHERE a.v <= b.v``:
    matches (a0, b2) and (a3, b2). The eager NFA accepts either arrival order (states
    {a} and {b}): each event is one edge try from the initial state (4 evaluations,
    4 instances); b2 tries {a0} and {a1} (order/window 1 + condition 1 each, instance
    a0b2), a3 tries {b2} (2, instance a3b2): 10 evaluations, 6 instances. The chain
    B, A: b2 from the initial state (1, instance b2), the buffered a0, a1 (2 each,
    instance a0b2), a3 on arrival (2, instance a3b2): 7 evaluations, 3 instances. Both
    evaluate the condition on each of the 3 (a, b) pairs once: evaluations are
    ``n + 2P`` eager, ``n_B + 2P`` lazy (P pairs in the window), whatever the
    selectivity; so for 2-slot conjuncts the lazy gain is at most ``1 + n_A / (n_B + 2P)``
    (docs/benchmarks.md, Seed 003). Over columns (join.py) the chain counts the same."""

    text = "PATTERN AND(A a, B b) WHERE a.v <= b.v WITHIN 10"
    s = stream("A A B A", v=[1, 2, 1, 0])
    expected = {Match.of({"a": [0], "b": [2]}), Match.of({"a": [3], "b": [2]})}
    got, eager = run(engine("nfa-eager"), text, s)
    assert set(got) == expected
    assert (eager.predicate_evaluations, eager.instances_created) == (10, 6)
    if on_columns:
        s = columnar(s)
    got, chain = run(NFAEngine("lazy", "chain", frequencies={"A": 3, "B": 1}), text, s)
    assert set(got) == expected
    assert (chain.predicate_evaluations, chain.instances_created) == (7, 3)
    assert chain.peak_instances == (0 if on_columns else 1)


def test_eager_states_are_order_ideals() -> None:
    """Sec. 4.3: the eager NFA of AND(SEQ(A a, B b), C c) has the order ideals as states."""
    compiled = engine("nfa-eager").compile(
        Query.of(parse_operator("PATTERN AND(SEQ(A a, B b), C c)")))
    states = {t.source for t in compiled.iter_transitions()}
    assert all(isinstance(s, tuple) for s in states)
    assert {frozenset(cast(tuple[int, frozenset[str]], s)[1]) for s in states} == {
        frozenset(), frozenset("a"), frozenset("c"), frozenset("ac"), frozenset("ab"),
        frozenset("abc")}


def test_first_chance_negation_drops_early() -> None:
    """Sec. 4.4.2: with the chain a, c, d the instance (a, c) meets the b between them
    and is dropped before any d is tried; post-processing finds that out per match."""
    text = "PATTERN SEQ(A a, NOT(B n), C c, D d) WITHIN 10"
    s = stream("A B C D D D")
    freqs = {"A": 1, "C": 1, "D": 3, "B": 5}
    pp, pp_run = run(NFAEngine("pp", "chain", frequencies=freqs), text, s)
    fc, fc_run = run(NFAEngine("fc", "chain", first_chance=True, frequencies=freqs), text, s)
    assert pp == fc == []
    assert fc_run.instances_created == 2  # (a), (a, c)
    assert pp_run.instances_created == 5  # (a), (a, c), three matches refused


def test_trailing_negation_waits_for_the_window() -> None:
    """Sec. 4.4.1: a trailing NOT is decided when the window has passed."""
    text = "PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 2"
    for name in ENGINES:
        got, _ = run(engine(name), text, stream("A B C"))
        assert got == [], name
        got, _ = run(engine(name), text, stream("A B A A C"))
        assert got == [Match.of({"a": [0], "b": [1]})], name


def test_repetition_bounds() -> None:
    """Sec. 4.5.2: B{2,3} b[] on four Bs: the subsets of size 2 and 3 (6 + 4)."""
    for name in ENGINES:
        got, _ = run(engine(name), "PATTERN B{2,3} b[]", stream("B B B B"))
        assert len(got) == len(set(got)) == 10, name


def test_contiguous_filters_the_matches() -> None:
    for name in ENGINES:
        got, _ = run(engine(name), "PATTERN SEQ(A a, B b)", stream("A B C B"), "contiguous")
        assert got == [Match.of({"a": [0], "b": [1]})], name


@pytest.mark.parametrize(("name", "text", "policy", "why"), [
    ("nfa-eager", "PATTERN SEQ(A a, B b)+", "any", "operator:iterated-subpattern"),
    ("nfa-eager", "PATTERN SEQ(A a, NOT(SEQ(B b, C c)), D d)", "any",
     "operator:negated-subpattern"),
    ("nfa-chain", "PATTERN SEQ(A a, OR(B b, C c))", "any", "operator:disjunction"),
    ("nfa-tree", "PATTERN SEQ(OR(A a, B b), C c)+", "next", "policy next over an OR"),
])
def test_outside_the_fragment(name: str, text: str, policy: str, why: str) -> None:
    with pytest.raises(Unsupported, match=why):
        engine(name).compile(Query.of(parse_operator(text), policy=policy))


PATTERN_9 = "PATTERN SEQ(A a, OR(B b, C c), D d) WHERE a.price > d.price WITHIN 10"
DNF_9 = "PATTERN OR(SEQ(A a, B b, D d), SEQ(A a, C c, D d)) WHERE a.price > d.price WITHIN 10"


@pytest.mark.parametrize("name", ["nfa-multichain", "nfa-tree"])
@pytest.mark.parametrize(("text", "expected"), [
    (PATTERN_9, [{"a": [0], "b": [1], "d": [3]}]),
    (DNF_9, [{"a": [0], "b": [1], "d": [3]}, {"a": [0], "c": [2], "d": [3]}]),
])
def test_next_with_or_runs_the_pattern_not_its_dnf(name: str, text: str,
                                                   expected: list[dict[str, list[int]]]) -> None:
    """docs/errata.md#seed-003-next-dnf, op-disjunction.json: on A(5) B(1) C(1) D(3) D(7)
    the OR of Pattern (9) commits at b1, so a0 c2 d3 skipped b1; in its DNF each branch
    is its own run and both matches stay. The multi-chain runs the DNF and decides
    ``next`` on the pattern's runs."""
    s = stream("A B C D D", price=[5, 1, 1, 3, 7])
    got, _ = run(engine(name), text, s, policy="next")
    assert sorted(got) == sorted(Match.of({v: tuple(p) for v, p in m.items()})
                                 for m in expected)


@pytest.mark.parametrize("name", ["nfa-multichain", "nfa-tree"])
def test_next_keeps_a_match_one_of_its_runs_keeps(name: str) -> None:
    """``OR(SEQ(A a, B x), SEQ(A a, ANY x))`` on A C B: {a0, x2} is a run of both
    branches. Through ANY it skipped c1, which x could take; through B it skipped
    nothing it could take (a B run cannot take c1). Some run keeps it, so it stays
    (hand-computed; the second branch's run alone would drop it). {a0, x1} is the
    ANY branch's and skips nothing."""
    s = stream("A C B")
    got, _ = run(engine(name), "PATTERN OR(SEQ(A a, B x), SEQ(A a, ANY x)) WITHIN 5", s,
                 policy="next")
    assert sorted(got) == sorted([Match.of({"a": (0,), "x": (1,)}),
                                  Match.of({"a": (0,), "x": (2,)})])


@pytest.mark.parametrize("name", ["nfa-eager", "nfa-chain", "nfa-chain-fc"])
def test_next_skips_nothing_it_could_take(name: str) -> None:
    """Skip-till-next-match on A A B B B (hand-computed): a run from a0 cannot take a1
    (a is bound) and must take the first B. SEQ(A a, B b): {a0, b2}, {a1, b2}.
    SEQ(A a, B+ b[]): a run never skips a B it could add, so b binds every B from the
    first one on: {a0, b2 b3 b4}, {a1, b2 b3 b4}."""
    s = stream("A A B B B")
    got, _ = run(engine(name), "PATTERN SEQ(A a, B b) WITHIN 10", s, "next")
    assert sorted(got) == sorted([Match.of({"a": [0], "b": [2]}), Match.of({"a": [1], "b": [2]})])
    got, _ = run(engine(name), "PATTERN SEQ(A a, B+ b[]) WITHIN 10", s, "next")
    assert sorted(got) == sorted([Match.of({"a": [0], "b": [2, 3, 4]}),
                                  Match.of({"a": [1], "b": [2, 3, 4]})])


@pytest.mark.parametrize("name", ENGINES)
def test_partition_contiguous(name: str) -> None:
    """A1 B2 B1 (ID after the type): SEQ(A a, B b) WHERE a.ID = b.ID partitions by ID;
    {a0, b2} is contiguous in partition 1 (b1 is in partition 2), under contiguous it is not."""
    s = stream("A B B", ID=[1, 2, 1])
    text = "PATTERN SEQ(A a, B b) WHERE a.ID = b.ID WITHIN 10"
    got, _ = run(engine(name), text, s, "partition-contiguous")
    assert got == [Match.of({"a": [0], "b": [2]})]
    got, _ = run(engine(name), text, s, "contiguous")
    assert got == []


def test_multichain_reports_a_shared_match_once() -> None:
    """Sec. 5.2: OR(A a, A a)'s two conjuncts are one; OR(SEQ(A a, B b), AND(A a, B b))
    finds (a0, b1) in both conjuncts and reports it once."""
    got, _ = run(engine("nfa-multichain"), "PATTERN OR(SEQ(A a, B b), AND(A a, B b))",
                 stream("A B A"))
    assert sorted(got) == sorted({Match.of({"a": [0], "b": [1]}),
                                  Match.of({"a": [2], "b": [1]})})


@pytest.mark.parametrize("name", ENGINES)
def test_unbounded_kleene_hits_the_budget(name: str) -> None:
    """An unbounded iteration under ``any`` has 2^n matches: the run stops with a
    clear error at the instance budget instead of filling memory."""
    e = engine(name)
    assert isinstance(e, NFAEngine)
    e.max_instances = 2_000
    compiled = e.compile(Query.of(parse_operator("PATTERN SEQ(A a, B+ b[]) WITHIN 1000")))
    with pytest.raises(BudgetExceeded, match="nfa-instances"):
        for _ in compiled.run(stream("A " + "B " * 40)):
            pass


def test_first_chance_waits_for_a_slot_of_the_negated_type() -> None:
    """docs/errata.md#seed-003-first-chance: the B between a and c is the match's own b."""
    text = "PATTERN AND(SEQ(A a, NOT(B n), C c), B b) WITHIN 5"
    fc = NFAEngine("fc", "chain", first_chance=True, frequencies={"A": 1, "C": 1, "B": 5})
    got, _ = run(fc, text, stream("A B C"))
    assert got == [Match.of({"a": [0], "b": [1], "c": [2]})]


@pytest.mark.parametrize("kind", ["chain", "tree"])
def test_group_by_attribute(kind: Literal["chain", "tree"]) -> None:
    """Sec. 4.5.3 on A B B B C with x = 1 2 1 for the B's (hand-computed): under
    prev(b.x) = b.x the matches bind {b1}, {b2}, {b3}, {b1 b3}. Without grouping the
    iterate edge builds all 7 subsets of the three B's; hashed by x, only 3 + 1."""
    s = stream("A B B B C", x=[0, 1, 2, 1, 0])
    text = "PATTERN SEQ(A a, B+ b[], C c) WHERE prev(b.x) = b.x WITHIN 10"
    expected = {Match.of({"a": [0], "b": bs, "c": [4]}) for bs in ([1], [2], [3], [1, 3])}
    subsets = {}
    for group_by in (True, False):
        e = NFAEngine("g", kind, multichain=kind == "tree", group_by=group_by,
                      frequencies={"A": 1, "C": 1, "B": 3})
        got, counted = run(e, text, s)
        assert sorted(got) == sorted(expected)
        subsets[group_by] = counted.subsets
    assert subsets == {True: 4, False: 7}


def test_group_by_refuses_another_value_on_arrival() -> None:
    """The eager NFA's open slot b (x = 1) does not take a B of x = 2: no instance for
    {b1 b2} or {a b1 b2}."""
    s = stream("A B B C", x=[0, 1, 2, 0])
    text = "PATTERN SEQ(A a, B+ b[], C c) WHERE prev(b.x) = b.x WITHIN 10"
    on, off = (run(NFAEngine("e", "eager", group_by=g), text, s) for g in (True, False))
    assert sorted(on[0]) == sorted(off[0]) == sorted(
        Match.of({"a": [0], "b": [i], "c": [3]}) for i in (1, 2))
    assert on[1].instances_created < off[1].instances_created


def test_match_budget_reaches_the_instance_budget(capsys, tmp_path) -> None:
    """``kleene match --budget N``: N bounds the NFA's instances alive at once; past it,
    one line on stderr naming the budget and the option that raises it."""
    from kleene.cli import main

    (tmp_path / "q.op").write_text("PATTERN SEQ(A a, B+ b[], C c) WITHIN 1000\n")
    (tmp_path / "e.csv").write_text("ts,type\n" + "".join(
        f"{i},{t}\n" for i, t in enumerate("A" + "B" * 12 + "C")))
    argv = ["match", "--pattern", str(tmp_path / "q.op"), "--events", str(tmp_path / "e.csv"),
            "--type-field", "type", "--engine", "nfa-eager"]
    assert main([*argv, "--count"]) == 0   # 2^12 - 1 matches within the default budget
    assert capsys.readouterr().out.strip() == "4095"
    assert main([*argv, "--budget", "100"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "budget steps=100 exceeded" in err
    assert "NFA instances alive at once" in err and "--budget N" in err


@pytest.mark.parametrize("name", ENGINES)
def test_rows_no_variable_can_take_never_become_events(name: str) -> None:
    """columns.py: over a loaded stream every engine (the eager and the tree NFA too)
    drops, with Arrow kernels, the rows of no slot's type and those failing every unary
    condition of their type's slots; the matches are the reference's (hand-computed)."""

    s = stream("A B C A B C D", V=[1, 0, 2, 3, 1, 5, 9])
    on_columns = columnar(s)
    text = "PATTERN SEQ(A a, B b, C c) WHERE b.V = 1 AND c.V > a.V WITHIN 6"
    got, counted = run(engine(name), text, on_columns)
    # B at 1 (V=0) and D at 6 are dropped: no slot of their type takes them
    assert counted.events_read == 7
    assert counted.events_filtered == 2
    assert sorted(got) == sorted([Match.of({"a": (0,), "b": (4,), "c": (5,)}),
                                  Match.of({"a": (3,), "b": (4,), "c": (5,)})])


def test_columnar_iteration_counts_its_subsets_against_the_budget() -> None:
    """join.py builds an iterated slot's subsets at once: 30 B's in one window give
    C(30,1) + … + C(30,8) ≈ 8.6 M subsets of at most 8, counted first and refused with
    the instance budget's error, not built (hand-computed)."""

    s = stream("A " + "B " * 30 + "C")
    on_columns = columnar(s)
    e = NFAEngine("nfa-chain", "chain", max_instances=1000)
    with pytest.raises(BudgetExceeded, match="nfa-instances"):
        run(e, "PATTERN SEQ(A a, B{1,8} b[], C c) WITHIN 40", on_columns)
    got, _ = run(e, "PATTERN SEQ(A a, B{1,2} b[], C c) WITHIN 40", on_columns)
    assert len(got) == 30 + 435  # C(30,1) + C(30,2) subsets, each one match
