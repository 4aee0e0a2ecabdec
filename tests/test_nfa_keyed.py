"""The chain over columns keyed by partition (engines/nfa/keyed.py) and the policies
``next`` and ``partition-contiguous`` decided over its instances (policy_columns.py).

Differential: partitioned sequences (``PARTITION BY``, or equalities that connect the
variables in a chain, a star or not at all before the last one), extra conditions,
other event types, missing and mixed-kind keys, ties in ``ts``, against the
reference under both policies (and ``any``), loaded and in batches cut anywhere.
By hand: the funnel's choices on a few clicks.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.data.columnar import columns_of
from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.nfa.keyed import Keys
from kleene.engines.protocol import Counters
from kleene.engines.registry import engine
from kleene.reference.events import Stream
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query
from tests.helpers import Cut, columnar, m

#: A key: integers, a float equal to one of them, a string, or missing (a column of
#: several kinds is a text column, its cells typed one by one).
KEYS = st.sampled_from((0, 1, 1.0, "k", None))


@st.composite
def clicks(draw: st.DrawFn, max_size: int = 12) -> Stream:
    """Events of types A, B, C and X (in no pattern), keys ``U`` of mixed kinds or missing,
    values ``V``, gaps 0–2 (0 a tie)."""
    rows: list[dict[str, object]] = []
    ts = 0
    for _ in range(draw(st.integers(0, max_size), label="size")):
        ts += draw(st.integers(0, 2), label="gap") if rows else 0
        row: dict[str, object] = {"ts": ts, "type": draw(st.sampled_from("ABCX"), label="type"),
                                  "V": draw(st.integers(0, 3), label="V")}
        key = draw(KEYS, label="U")
        if key is not None:
            row["U"] = key
        rows.append(row)
    return Stream.from_rows(rows)


@st.composite
def partitioned(draw: st.DrawFn) -> str:
    """``SEQ`` of 1–4 single events of types A–C, related by ``U``: ``PARTITION BY U``
    (or ``U, V``), or equalities in a chain, in a star on the last variable, or none;
    sometimes a condition on ``V``."""
    k = draw(st.integers(1, 4), label="slots")
    names = [f"v{i}" for i in range(k)]
    slots = ", ".join(f"{draw(st.sampled_from('ABC'), label='type')} {v}" for v in names)
    how = draw(st.sampled_from(("partition", "partition2", "chain", "star", "none")),
               label="keys")
    where = []
    if how == "chain":
        where += [f"{a}.U = {b}.U" for a, b in zip(names, names[1:], strict=False)]
    elif how == "star":
        where += [f"{a}.U = {names[-1]}.U" for a in names[:-1]]
    extra = draw(st.sampled_from(("", "lt", "unary")), label="condition")
    if extra == "lt" and k > 1:
        where.append(f"{names[0]}.V <= {names[-1]}.V")
    elif extra == "unary":
        where.append(f"{names[-1]}.V > 0")
    partition = {"partition": " PARTITION BY U", "partition2": " PARTITION BY U, V"}.get(how, "")
    text = f"PATTERN SEQ({slots}){partition}"
    if where:
        text += " WHERE " + " AND ".join(where)
    return text + f" WITHIN {draw(st.integers(0, 6), label='window')}"


def same_as_reference(name: str, text: str, stream: Stream, policy: str,
                      source: object) -> Counters:
    pattern = parse_operator(text)
    expected = reference_or_reject(pattern, stream, policy)
    e = engine(name)
    counted = Counters()
    got = list(e.compile(Query.of(pattern, policy=policy)).run(source,  # type: ignore[arg-type]
                                                               counters=counted))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy=policy)
    return counted


@pytest.mark.parametrize("policy", ["next", "partition-contiguous"])
@settings(max_examples=300)
@given(text=partitioned(), stream=clicks(), name=st.sampled_from(("nfa-chain", "nfa-tree")))
def test_partitioned_sequences_over_columns_equal_reference(policy: str, text: str,
                                                            stream: Stream, name: str) -> None:
    """Over a loaded stream's columns (no event built), the reference's matches."""
    counted = same_as_reference(name, text, stream, policy, columnar(stream))
    assert counted.peak_instances == 0   # the chain over columns ran


@settings(max_examples=150)
@given(text=partitioned(), stream=clicks(max_size=14),
       policy=st.sampled_from(("any", "next", "partition-contiguous")),
       cuts=st.lists(st.integers(1, 5), max_size=8))
def test_partitioned_sequences_in_batches_cut_anywhere_equal_reference(
        text: str, stream: Stream, policy: str, cuts: list[int]) -> None:
    """Batches ending anywhere: the parts' codes and ranks carry over, the same matches."""
    same_as_reference("nfa-chain", text, stream, policy, Cut(stream, cuts, last=3))


# ---------------------------------------------------------------- by hand

FUNNEL = ("PATTERN SEQ(view v, cart c, purchase p) PARTITION BY user WITHIN 30")

#: ts, user, action (one event per line; positions 0..9).
CLICKS = [
    (0, "u1", "view"),       # 0
    (1, "u2", "cart"),       # 1  another user's cart: not u1's to take
    (1, "u1", "view"),       # 2
    (2, "u1", "cart"),       # 3  u1's first cart after both views
    (3, "u1", "search"),     # 4  no variable's; breaks u1's contiguity
    (4, "u1", "cart"),       # 5
    (5, "u2", "purchase"),   # 6
    (6, "u1", "purchase"),   # 7
    (6, "u1", "purchase"),   # 8  a tie with 7
    (40, "u1", "purchase"),  # 9  past every window
]


def funnel(policy: str) -> tuple[set[object], Counters]:
    s = Stream.from_rows([{"ts": t, "user": u, "type": a} for t, u, a in CLICKS])
    counted = Counters()
    compiled = engine("nfa-chain").compile(Query.of(parse_operator(FUNNEL), policy=policy))
    assert isinstance(compiled, CompiledNFA)
    return set(compiled.run(columnar(s), counters=counted)), counted


def test_funnel_next_by_hand() -> None:
    """u1's views 0 and 2 each take u1's first cart after them (3, not u2's 1) and then
    u1's first purchase after it (7: 8 ties with it, 9 is later still)."""
    got, counted = funnel("next")
    assert got == {m(v=0, c=3, p=7), m(v=2, c=3, p=7)}
    assert counted.peak_candidates > 0 and counted.peak_instances == 0   # over columns


def test_funnel_any_by_hand() -> None:
    """Every u1 view, cart after it and purchase after that within 30: 2 × 2 × 2."""
    got, _ = funnel("any")
    assert got == {m(v=v, c=c, p=p) for v in (0, 2) for c in (3, 5) for p in (7, 8)}


def test_funnel_partition_contiguous_by_hand() -> None:
    """u1's part is 0 2 3 4 5 7 8 9: only view 2, cart 3 … would be contiguous, but the
    search 4 lies between 3 and any purchase; no match keeps every u1 event between."""
    got, _ = funnel("partition-contiguous")
    assert got == set()


def test_funnel_partition_contiguous_without_the_search() -> None:
    """Without the search (4) and the second cart (5), u1's part is 0 2 3 5 6 7 (new
    positions; 5 and 6 the tied purchases): of Γ = {0, 2} × {3} × {5, 6}, only
    (2, 3, 5) binds every u1 event from its first to its last."""
    rows = [r for i, r in enumerate(CLICKS) if i not in (4, 5)]
    s = Stream.from_rows([{"ts": t, "user": u, "type": a} for t, u, a in rows])
    compiled = engine("nfa-chain").compile(Query.of(parse_operator(FUNNEL),
                                                    policy="partition-contiguous"))
    assert set(compiled.run(columnar(s))) == {m(v=2, c=3, p=5)}


def test_keys_share_a_code_iff_equality_holds_and_rank_rows_across_batches() -> None:
    """Def. 6's keys: 1 and 1.0 one part, "k" another, True another, a missing value
    -1; ranks count the part's rows in earlier batches too (one batch per kind)."""
    keys = Keys(("U",))

    def batch(*values: object) -> tuple[list[int], list[int]]:
        rows = [{"ts": i} if v is None else {"ts": i, "U": v} for i, v in enumerate(values)]
        codes, ranks = keys.of(columns_of(list(Stream.from_rows(rows))))
        return codes.tolist(), ranks.tolist()

    codes, ranks = batch(1, "k", None, 1)          # a text column
    assert codes[0] == codes[3] != codes[1] and codes[2] == -1
    assert ranks[0] == 0 and ranks[1] == 0 and ranks[3] == 1
    floats, float_ranks = batch(1.0, 2.5, 1.0)      # a float column
    assert floats[0] == floats[2] == codes[0] and float_ranks == [2, 0, 3]
    assert floats[1] not in codes
    bools, bool_ranks = batch(True)                 # a boolean column
    assert bools[0] not in codes + floats and bool_ranks == [0]
    strings, string_ranks = batch("k")              # a string column
    assert strings == [codes[1]] and string_ranks == [1]


@pytest.mark.parametrize("policy", ["any", "next", "partition-contiguous"])
def test_parts_by_the_event_type_itself(policy: str) -> None:
    """``a.type = b.type`` keys by the event's own type (Event.value reads ``type``),
    not by an attribute named so: the reference's matches."""
    s = Stream.from_rows([{"ts": i // 2, "type": t} for i, t in enumerate("ABABBAAB")])
    same_as_reference("nfa-chain", "PATTERN SEQ(ANY a, ANY b) WHERE a.type = b.type WITHIN 3",
                      s, policy, columnar(s))
