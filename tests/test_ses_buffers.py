"""The match-window engines' matches as columns (``run_columns``, issue 33 item 1: no
:class:`~kleene.reference.match.Match` made for a match written) are the reference's
matches, and the Match path's in its order.

1. A case computed by hand: ``<{a}, {b+}, {c}>`` on six events.
2. Differential (Hypothesis): every registered match-window engine that claims a policy,
   over a stream held as events and as columns, gives by ``run_columns`` exactly the
   reference's matches (no duplicates), the very list its ``run`` reports.
3. :func:`~kleene.engines.ses.buffers.instance_columns` against
   :meth:`Instance.match <kleene.engines.ses.run.Instance.match>` on drawn buffers,
   which may bind different variables (one batch of columns per set of variables).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches
from kleene.engines.protocol import claims_policy
from kleene.engines.registry import engine, engine_names
from kleene.engines.ses.buffers import instance_columns
from kleene.engines.ses.run import Instance
from kleene.engines.windows.engine import CompiledWindows, WindowsEngine
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.policies import POLICIES
from tests.helpers import SES_PATTERNS, SES_STREAMS, columnar, ses_reference

ENGINES = [engine(n) for n in engine_names() if isinstance(engine(n), WindowsEngine)]


def columns_of_run(name: str, query: Query, stream: Stream) -> list[Match]:
    """The matches of ``run_columns``, batch after batch, as canonical matches."""
    compiled = engine(name).compile(query)
    assert isinstance(compiled, CompiledWindows)
    return [m for batch in compiled.run_columns(stream) for m in batch.matches()]


def test_a_hand_computed_case():
    """a is an A; b+ one or more B after it; c a C after them, all within 10. The A at
    4 has no B after it; the A at 0 takes {1}, {2} or {1, 2} for b and 3 or 5 for c."""
    stream = columnar(Stream.from_rows([{"ts": t, "L": label} for t, label in
                                        enumerate("ABBCAC")]))
    query = Query.parse("PATTERN <{a}, {b+}, {c}>\nWHERE a.L = 'A' AND b.L = 'B' AND "
                        "c.L = 'C'\nWITHIN 10\n", policy="any")
    got = columns_of_run("windows+ses", query, stream)
    expected = [Match.of({"a": [0], "b": b, "c": [c]})
                for b in ([1], [2], [1, 2]) for c in (3, 5)]
    assert sorted(got, key=Match.dumps) == sorted(expected, key=Match.dumps)
    assert len(got) == 6


CLAIMED = [p for p in POLICIES if any(claims_policy(e, "ses", p) for e in ENGINES)]


@pytest.mark.parametrize("policy", CLAIMED)
@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_columns_are_the_reference_and_the_match_path(policy, pattern, stream):
    expected = ses_reference(pattern, stream, policy)
    query = Query.of(pattern, policy=policy, time_unit=stream.time_unit)
    for eng in ENGINES:
        if not claims_policy(eng, "ses", policy):
            continue
        for held in (stream, columnar(stream)):
            got = columns_of_run(eng.name, query, held)
            assert_same_matches(eng, pattern=pattern, stream=held, policy=policy, got=got,
                                expected=expected)
            assert got == list(eng.compile(query).run(held))


BUFFERS = st.lists(st.dictionaries(st.sampled_from(["a", "b", "x_1", "z"]),
                                   st.sets(st.integers(0, 40), min_size=1, max_size=3),
                                   min_size=1, max_size=3), max_size=12)


@given(BUFFERS)
def test_instance_columns_are_the_instances_matches(buffers):
    instances = [Instance(frozenset({"q"}), {v: tuple(Event(p, p, None, {}) for p in sorted(ps))
                                for v, ps in beta.items()}, Event(0, 0, None, {}))
                 for beta in buffers]
    batches = instance_columns(instances)
    made = [i.match() for i in instances]
    assert sum(map(len, batches)) == len(made)
    assert [b.variables for b in batches] == list(dict.fromkeys(m.variables for m in made))
    for b in batches:
        assert list(b.matches()) == [m for m in made if m.variables == b.variables]
