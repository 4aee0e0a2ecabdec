"""Matches as columns (engines/match_columns.py) against the canonical match.

Expected values come from the canonical :class:`Match` (the reference's form):
the columns must give back the same matches, the same first positions, the
same JSON line as ``json.dumps`` and the same ids as ``match_id``."""

from __future__ import annotations

import hashlib
import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from kleene.engines.match_columns import MatchColumns, gathered, match_batches
from kleene.engines.spark.layout import owner, owners
from kleene.engines.spark.worker import match_id
from kleene.reference.match import Match

NAMES = st.sampled_from(["a", "b1", "x_y", "~", "Zed", "é", 'q"'])
MATCHES = st.lists(st.dictionaries(NAMES, st.sets(st.integers(0, 10**12), min_size=1,
                                                  max_size=4), min_size=1, max_size=3)
                   .map(Match.of), max_size=12)


def test_two_hand_built_matches_as_columns():
    found = [Match.of({"b": [3], "s": [7, 9]}), Match.of({"b": [1], "s": [2]}),
             Match.of({"a": [5]})]
    two, one = MatchColumns.of(found)
    assert two.variables == ("b", "s") and len(two) == 2 and one.variables == ("a",)
    assert two.offsets[1].tolist() == [0, 2, 3] and two.positions[1].tolist() == [7, 9, 2]
    assert two.first().tolist() == [3, 1]
    assert two.texts() == ['{"b": [3], "s": [7, 9]}', '{"b": [1], "s": [2]}']
    assert two.ids()[0] == hashlib.blake2b(b'{"b": [3], "s": [7, 9]}',
                                           digest_size=16).hexdigest()
    assert two.contiguous().tolist() == [False, True]   # 3, 7, 9 leave gaps; 1, 2 none
    assert list(two.take(np.array([False, True])).matches()) == [found[1]]
    moved = two.mapped(np.arange(100, 110))
    assert list(moved.matches()) == [Match.of({"b": [103], "s": [107, 109]}),
                                     Match.of({"b": [101], "s": [102]})]


@given(MATCHES)
def test_columns_give_back_the_matches_their_json_and_ids(found):
    batches = MatchColumns.of(found)
    back = [m for b in batches for m in b.matches()]
    assert sorted(back) == sorted(found)
    for b in batches:
        ms = list(b.matches())
        assert b.texts() == [json.dumps(m.to_json(), sort_keys=True, separators=(", ", ": "))
                             for m in ms]
        assert b.ids() == [match_id(m) for m in ms]
        assert b.first().tolist() == [m.first for m in ms]
        assert b.contiguous().tolist() == [m.last - m.first + 1 == len(m.positions)
                                           for m in ms]


@given(MATCHES, st.data())
def test_take_keeps_the_chosen_matches_in_order(found, data):
    for b in MatchColumns.of(found):
        keep = np.array(data.draw(st.lists(st.booleans(), min_size=len(b), max_size=len(b))),
                        dtype=bool)
        ms = list(b.matches())
        assert list(b.take(keep).matches()) == [m for m, k in zip(ms, keep, strict=True) if k]


def test_an_engine_without_columns_is_gathered_in_chunks():
    found = [Match.of({"a": [i]}) for i in range(20_000)]

    class OneByOne:
        def run(self, events, *, counters=None, budget=None):
            return iter(found)

    batches = list(match_batches(OneByOne(), []))
    assert [len(b) for b in batches] == [8192, 8192, 3616]
    assert [m for b in batches for m in b.matches()] == found
    assert list(gathered([])) == []


@given(st.lists(st.integers(-10**17, 10**17), max_size=5).map(sorted),
       st.lists(st.integers(-10**17, 10**17), max_size=20))
def test_owners_is_owner_for_each_value(bounds, values):
    at = np.array(values, dtype=np.int64)
    assert owners(bounds, at).tolist() == [owner(bounds, v) for v in values]
    floats = [b + 0.5 for b in bounds]     # integer values against float bounds: exact
    assert owners(floats, at).tolist() == [owner(floats, v) for v in values]


def test_rows_of_bound_events_by_hand():
    # by hand: match b binds x to 2 and y to 5 (its y row given twice: once), a binds x
    # to 1 and y to 3 and 4, c binds x alone to 9; the variable "~m" is printed as "m"
    groups = MatchColumns.from_rows(["b", "b", "a", "a", "a", "c", "b"],
                                    ["y", "x", "x", "y", "~m", "x", "y"],
                                    np.array([5, 2, 1, 3, 4, 9, 5]),
                                    name=lambda v: v.lstrip("~"))
    assert {m for g in groups for m in g.matches()} == {
        Match.of({"x": [2], "y": [5]}), Match.of({"x": [1], "y": [3], "m": [4]}),
        Match.of({"x": [9]})}
    assert sorted(len(g) for g in groups) == [1, 1, 1]
    assert MatchColumns.from_rows([], [], np.zeros(0, np.int64)) == []


@given(MATCHES, st.randoms(use_true_random=False))
def test_rows_of_bound_events_give_back_the_set_of_matches(found, rng):
    # the Spark runner's match rows: one per bound event, keyed by the match's id, in any
    # order, a match possibly given twice (its rows then twice under one id)
    rows = [(match_id(m), v, p) for m in found + found[:2] for v, ps in m.bindings
            for p in ps]
    rng.shuffle(rows)
    ids, names, positions = zip(*rows, strict=True) if rows else ((), (), ())
    groups = MatchColumns.from_rows(list(ids), list(names), np.array(positions, np.int64))
    got = [m for g in groups for m in g.matches()]
    assert len(got) == len(set(got)) and set(got) == set(found)
    assert all(len(set(map(len, g.offsets))) == 1 for g in groups)
