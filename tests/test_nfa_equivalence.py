"""Seed 003 Sec. 6 as a property: the lazy chain, for every order of evaluation, finds
exactly what the eager NFA finds, and both find exactly the reference's matches.

Every (engine, policy) claimed runs against the reference on generated patterns
(:func:`~kleene.conformance.strategies.operator_patterns`: every construct, nested,
three event types, ties in ``ts``) and streams; the chains run with a drawn
frequency table, so every order σ of Sec. 3 is exercised.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.strategies import TYPES, operator_patterns, typed_streams
from kleene.engines.nfa.engine import CompiledNFA, NFAEngine
from kleene.engines.protocol import Counters, Feature
from kleene.engines.registry import engine
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.operators.pattern import OperatorPattern
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query
from tests.helpers import Cut, columnar

ENGINES = ("nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree")
CLAIMED = [(name, policy) for name in ENGINES
           for policy in ("any", "contiguous", "next", "partition-contiguous")]

frequencies = st.fixed_dictionaries({t: st.integers(0, 5) for t in TYPES})


def variant(name: str, freqs: dict[str, int] | None) -> NFAEngine:
    """The registered engine ``name``, with the chain's frequencies ``freqs``."""
    e = engine(name)
    assert isinstance(e, NFAEngine)
    e.frequencies = freqs
    return e


@pytest.mark.parametrize(("name", "policy"), CLAIMED)
def test_claims(name: str, policy: str) -> None:
    assert Feature("operator", policy) in engine(name).capabilities
    assert (Feature("operator", "disjunction") in engine(name).capabilities) == (
        name in ("nfa-multichain", "nfa-tree"))


@pytest.mark.parametrize(("name", "policy"), CLAIMED)
@given(data=st.data())
def test_engine_equals_reference(name: str, policy: str, data: st.DataObject) -> None:
    multi = name in ("nfa-multichain", "nfa-tree")
    pattern = data.draw(operator_patterns(disjunction=multi), label="pattern")
    assert isinstance(pattern, OperatorPattern)
    stream = data.draw(typed_streams(), label="stream")
    freqs = data.draw(st.none() | frequencies, label="frequencies")
    e = variant(name, freqs)
    expected = reference_or_reject(pattern, stream, policy)
    if data.draw(st.booleans(), label="columnar"):  # the filter over columns (columns.py)
        stream = columnar(stream)
    got = list(e.compile(Query.of(pattern, policy=policy)).run(stream))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy=policy)


@pytest.mark.parametrize(("name", "policy"), CLAIMED)
@given(data=st.data())
def test_engine_equals_reference_with_like_properties(name: str, policy: str,
                                                      data: st.DataObject) -> None:
    """Properties ``v.type LIKE 'regex'`` (and ``v.V LIKE``, unknown), over events and
    over columns (engines/like_columns.py)."""
    pattern = data.draw(operator_patterns(disjunction=name in ("nfa-multichain", "nfa-tree"),
                                          like=True), label="pattern")
    assert isinstance(pattern, OperatorPattern)
    stream = data.draw(typed_streams(), label="stream")
    expected = reference_or_reject(pattern, stream, policy)
    if data.draw(st.booleans(), label="columnar"):
        stream = columnar(stream)
    e = engine(name)
    got = list(e.compile(Query.of(pattern, policy=policy)).run(stream))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy=policy)


@given(pattern=operator_patterns(disjunction=False), stream=typed_streams(),
       orders=st.lists(frequencies, min_size=2, max_size=3))
def test_sec6_chain_equals_eager_for_every_order(pattern: OperatorPattern, stream: Stream,
                                                 orders: list[dict[str, int]]) -> None:
    """Sec. 6: the chain's matches do not depend on its order, and equal the eager NFA's."""
    eager = list(engine("nfa-eager").compile(Query.of(pattern)).run(stream))
    assert len(eager) == len(set(eager))
    for freqs in orders:
        for name in ("nfa-chain", "nfa-chain-fc"):
            got = list(variant(name, freqs).compile(Query.of(pattern)).run(stream))
            assert sorted(got) == sorted(eager), (name, freqs)


@given(pattern=operator_patterns(subpattern_kleene=True), stream=typed_streams(max_size=5))
def test_outside_the_fragment_is_unsupported(pattern: OperatorPattern, stream: Stream) -> None:
    """Never a wrong answer: either the reference's matches or Unsupported with a reason."""
    e = engine("nfa-multichain")
    try:
        compiled = e.compile(Query.of(pattern))
    except Unsupported as why:
        assert str(why)
        return
    expected = reference_or_reject(pattern, stream, "any")
    got = list(compiled.run(stream))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy="any")


@st.composite
def drifting_streams(draw: st.DrawFn) -> Stream:
    """Two or three phases, each with its own type weights, so the rarest type changes
    and the Tree NFA switches its root (Sec. 7)."""
    rows: list[dict[str, object]] = []
    ts = 0
    for _ in range(draw(st.integers(2, 3), label="phases")):
        weights = draw(st.permutations((1, 4, 12)), label="weights")
        pool = [t for t, w in zip(TYPES, weights, strict=True) for _ in range(w)]
        for _ in range(draw(st.integers(8, 16), label="phase length")):
            ts += draw(st.integers(0, 1), label="gap")
            rows.append({"ts": ts, "type": draw(st.sampled_from(pool), label="type"),
                         "V": draw(st.integers(0, 3), label="V"), "ID": 0})
    return Stream.from_rows(rows)


@settings(max_examples=max(10, settings().max_examples // 3))
@given(pattern=operator_patterns(windows=st.integers(1, 4), optional_window=False),
       stream=drifting_streams())
def test_sec7_tree_equals_eager_while_it_switches(pattern: OperatorPattern, stream: Stream) -> None:
    """The Tree NFA's matches do not depend on when it switches: they equal the
    multi-chain's (itself equal to the reference above), without duplicates."""
    tree = engine("nfa-tree").compile(Query.of(pattern))
    try:
        got = list(tree.run(stream))
    except Unsupported:
        return
    expected = list(engine("nfa-multichain").compile(Query.of(pattern)).run(stream))
    assert len(got) == len(set(got))
    assert set(got) == set(expected)


def test_tree_switches_on_drift() -> None:
    types = "A A A A A A C B A A A A A A B C " + "C C C C C C A B C C C C C A B C C"
    s = Stream.from_rows([{"ts": i, "type": t} for i, t in enumerate(types.split())])
    p = parse_operator("PATTERN AND(A a, B b, C c) WITHIN 6")
    tree = engine("nfa-tree").compile(Query.of(p))
    counted = Counters()
    got = list(tree.run(s, counters=counted))
    assert counted.switches >= 1
    assert sorted(got) == sorted(engine("nfa-eager").compile(Query.of(p)).run(s))


def chain_over_columns_equals_reference(stream: Stream, text: str, policy: str,
                                        freqs: dict[str, int] | None) -> OperatorPattern:
    """The chain over ``stream``'s columns reports the reference's matches of ``text``."""
    pattern = parse_operator(text)
    expected = reference_or_reject(pattern, stream, policy)
    e = variant("nfa-chain", freqs)
    got = list(e.compile(Query.of(pattern, policy=policy)).run(columnar(stream)))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy=policy)
    return pattern


JOINED = ("PATTERN SEQ(A a, B b, C c) WITHIN {w}", "PATTERN AND(A a, B b, C c) WITHIN {w}",
          "PATTERN AND(SEQ(A a, B b), C c) WITHIN {w}",
          "PATTERN SEQ(AND(A a, B b), C c) WITHIN {w}", "PATTERN SEQ(C c, A a) WITHIN {w}")


@given(stream=typed_streams(max_size=12), text=st.sampled_from(JOINED), w=st.integers(0, 4),
       policy=st.sampled_from(("any", "contiguous")), freqs=st.none() | frequencies)
def test_chain_over_columns_equals_reference(stream: Stream, text: str, w: int, policy: str,
                                             freqs: dict[str, int] | None) -> None:
    """The chain's lookups over a loaded stream's columns (join.py), every state at once,
    find the reference's matches, and count the instances the event-by-event chain does."""
    pattern = chain_over_columns_equals_reference(stream, text.format(w=w), policy, freqs)
    query = Query.of(pattern, policy=policy)
    chain = variant("nfa-chain", freqs or dict.fromkeys("ABC", 1)).compile(query)
    by_events, by_columns = Counters(), Counters()
    list(chain.run(stream, counters=by_events))
    list(chain.run(columnar(stream), counters=by_columns))
    assert by_columns.instances_created == by_events.instances_created


#: Patterns the columnar chain runs with conditions and iterations (join.py, gather.py),
#: two with unordered slots that may share events (which must bind distinct ones).
CONDITIONED = (
    "PATTERN SEQ(A a, B{{1,2}} b[], C c) WHERE c.V > a.V WITHIN {w}",
    "PATTERN AND(A a, B b, C c) WHERE a.V = 1 AND b.V <= c.V WITHIN {w}",
    "PATTERN AND(A a, A b) WHERE a.V < 2 AND b.V >= 2 WITHIN {w}",
    "PATTERN AND(A a, A b) WHERE a.V < b.V WITHIN {w}",
    "PATTERN SEQ(A a, B{{2,3}} b[]) WHERE b[i].V > 0 WITHIN {w}",
    "PATTERN AND(B{{1,2}} b[], ANY x) WHERE x.V = 3 WITHIN {w}",
    "PATTERN SEQ(A a, AND(B b, C c)) WHERE a.V = b.V OR NOT(a.ID != c.ID) WITHIN {w}",
    "PATTERN SEQ(A x, B{{1,3}} r[], C q) WHERE x.ID = 1 AND r[i].ID = 2 AND q.V > x.V "
    "WITHIN {w}",
)


@settings(max_examples=max(10, settings().max_examples // 3))
@given(stream=drifting_streams(), text=st.sampled_from(JOINED + CONDITIONED),
       w=st.integers(0, 4), policy=st.sampled_from(("any", "contiguous")),
       block=st.integers(1, 6))
def test_tree_over_columns_replans_and_equals_reference(stream: Stream, text: str, w: int,
                                                        policy: str, block: int) -> None:
    """The Tree NFA over columns (replan.py) re-plans σ every few candidate rows as the
    rates drift: each span of one σ reports its matches, the reference's, once."""
    pattern = parse_operator(text.format(w=w))
    expected = reference_or_reject(pattern, stream, policy)
    on_columns = columnar(stream)
    e = engine("nfa-tree")
    tree = e.compile(Query.of(pattern, policy=policy))
    assert isinstance(tree, CompiledNFA)
    tree.block = block
    got = list(tree.run(on_columns))
    assert len(got) == len(set(got))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy=policy)


def test_tree_over_columns_switches_on_drift() -> None:
    """The drift of test_tree_switches_on_drift over columns, blocks of 4 rows: σ
    re-planned, the eager NFA's matches."""
    types = "A A A A A A C B A A A A A A B C " + "C C C C C C A B C C C C C A B C C"
    s = Stream.from_rows([{"ts": i, "type": t} for i, t in enumerate(types.split())])
    p = parse_operator("PATTERN AND(A a, B b, C c) WITHIN 6")
    tree = engine("nfa-tree").compile(Query.of(p))
    assert isinstance(tree, CompiledNFA)
    tree.block = 4
    counted = Counters()
    got = list(tree.run(columnar(s), counters=counted))
    assert counted.switches >= 1
    assert sorted(got) == sorted(engine("nfa-eager").compile(Query.of(p)).run(s))


def test_tree_over_columns_costs_the_chain_between_replans() -> None:
    """Steady rates (A : B : C = 1 : 2 : 3): the tree never re-plans and makes exactly
    the computations and instances of the chain A, B, C over the same columns."""
    s = Stream.from_rows([{"ts": i, "type": t}
                          for i, t in enumerate("A B B C C C".split() * 400)])
    on_columns = columnar(s)
    p = parse_operator("PATTERN SEQ(A a, B b, C c) WITHIN 5")
    tree = engine("nfa-tree").compile(Query.of(p))
    chain = variant("nfa-chain", {"A": 1, "B": 2, "C": 3}).compile(Query.of(p))
    assert isinstance(tree, CompiledNFA) and isinstance(chain, CompiledNFA)
    by_tree, by_chain = Counters(), Counters()
    tree_run = tree.run(on_columns, counters=by_tree)
    chain_run = chain.run(on_columns, counters=by_chain)
    assert sorted(tree_run) == sorted(chain_run)
    assert by_tree.switches == 0 and tree_run.orders == chain_run.orders == ((0, 1, 2),)
    for name in ("predicate_evaluations", "instances_created"):
        assert by_tree[name] == by_chain[name] > 0


@given(stream=typed_streams(max_size=12), text=st.sampled_from(CONDITIONED),
       w=st.integers(0, 5), policy=st.sampled_from(("any", "contiguous")),
       freqs=st.none() | frequencies)
def test_chain_over_columns_with_conditions_equals_reference(
        stream: Stream, text: str, w: int, policy: str, freqs: dict[str, int] | None) -> None:
    """Unary conditions as masks, joint conditions over the instances' gathered columns,
    bounded iterations as subsets of candidate ranges: the reference's matches."""
    chain_over_columns_equals_reference(stream, text.format(w=w), policy, freqs)


def test_columnar_chain_counts_the_chain_instances_with_conditions() -> None:
    """A joint condition filters the new instances where its last variable is bound:
    the instances the event-by-event chain creates, the same matches."""
    rows = [{"ts": i // 2, "type": t, "V": v, "ID": 0}
            for i, (t, v) in enumerate(zip("ABCABCCBA", (1, 2, 3, 0, 2, 1, 0, 3, 1),
                                           strict=True))]
    s = Stream.from_rows(rows)
    on_columns = columnar(s)
    pattern = parse_operator("PATTERN AND(A a, B b, C c) WHERE a.V < c.V AND b.V > 1 WITHIN 2")
    freqs = dict.fromkeys("ABC", 1)
    chain = variant("nfa-chain", freqs).compile(Query.of(pattern))
    counted, joined = Counters(), Counters()
    by_events = sorted(chain.run(s, counters=counted))
    by_columns = sorted(chain.run(on_columns, counters=joined))
    assert by_columns == by_events == sorted(reference_or_reject(pattern, s, "any"))
    assert joined.instances_created == counted.instances_created
    assert joined.peak_instances == 0  # no instance kept: the join ran


@given(stream=typed_streams(max_size=14), text=st.sampled_from(JOINED + CONDITIONED),
       w=st.integers(0, 4), policy=st.sampled_from(("any", "contiguous")),
       cuts=st.lists(st.integers(1, 6), max_size=8), freqs=frequencies)
def test_chain_over_columns_in_batches_cut_anywhere_equals_reference(
        stream: Stream, text: str, w: int, policy: str, cuts: list[int],
        freqs: dict[str, int]) -> None:
    """Batches ending anywhere: the reference's matches, and (σ given) the instances the
    loaded stream's run creates (each piece counts those whose first event it reports)."""
    pattern = parse_operator(text.format(w=w))
    expected = reference_or_reject(pattern, stream, policy)
    e = variant("nfa-chain", freqs)
    compiled = e.compile(Query.of(pattern, policy=policy))
    cut, whole = Counters(), Counters()
    got = list(compiled.run(Cut(stream, cuts), counters=cut))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy=policy)
    list(compiled.run(columnar(stream), counters=whole))
    assert cut.instances_created == whole.instances_created


@settings(max_examples=max(10, settings().max_examples // 3))
@given(stream=drifting_streams(), text=st.sampled_from(JOINED + CONDITIONED),
       w=st.integers(0, 4), cuts=st.lists(st.integers(1, 6), max_size=8),
       block=st.integers(1, 4))
def test_tree_over_columns_in_batches_cut_anywhere_equals_reference(
        stream: Stream, text: str, w: int, cuts: list[int], block: int) -> None:
    """The re-planned tree over a source read in batches ending anywhere (its pieces
    and its spans cut independently): the reference's matches, once each."""
    pattern = parse_operator(text.format(w=w))
    expected = reference_or_reject(pattern, stream, "any")
    e = engine("nfa-tree")
    tree = e.compile(Query.of(pattern))
    assert isinstance(tree, CompiledNFA)
    tree.block = block
    got = list(tree.run(Cut(stream, cuts)))
    assert len(got) == len(set(got))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy="any")


def test_chain_over_columns_holds_candidates_of_two_windows_and_a_batch() -> None:
    """3,000 events A B C … (ts = position), batches of 1–40 rows cut at random, τ = 10:
    the candidates held at once never exceed those of 2τ of stream (21 events) plus
    the largest batch, and the matches are the event-by-event chain's."""
    import random

    rng = random.Random(3)
    s = Stream.from_rows([{"ts": i, "type": "ABC"[i % 3], "V": rng.randrange(4)}
                          for i in range(3000)])
    cuts = [rng.randint(1, 40) for _ in range(3000)]
    pattern = parse_operator("PATTERN SEQ(A a, B b, C c) WHERE a.V < c.V WITHIN 10")
    chain = variant("nfa-chain", dict.fromkeys("ABC", 1))
    compiled = chain.compile(Query.of(pattern))
    by_events, joined = Counters(), Counters()
    expected = sorted(compiled.run(s, counters=by_events))
    source = Cut(s, cuts)
    got = sorted(compiled.run(source, counters=joined))
    assert got == expected and len(expected) > 1000
    assert joined.peak_instances == 0  # the join ran, not the event-by-event chain
    assert joined.peak_candidates <= 21 + max(source.sizes)
    assert joined.instances_created == by_events.instances_created
