"""Every SREMO conformance case (``conformance/cases/sremo-*.json``) run by the ``srt``
engine: the engine reports exactly the expected matches, once each, or refuses the
expression with a reason (:class:`Unsupported`) — never a wrong answer."""

from __future__ import annotations

import pytest

from kleene.engines.registry import engine
from kleene.engines.srt.run import CompiledSRT
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import matches_from_json
from kleene.reference.query import Query
from kleene.reference.sremo import parse_sremo
from tests.helpers import sremo_case_params

#: Cases the engine refuses, with the reason it must give (none today).
REFUSED: dict[str, str] = {}


@pytest.mark.parametrize("case, test, reading, expected", list(sremo_case_params()))
def test_srt_gives_the_expected_matches(case, test, reading, expected):
    s = Stream.from_rows(test.get("events", case.get("events")),
                         time_unit=test.get("time_unit", case.get("time_unit")))
    e = parse_sremo(case["pattern"])
    policy = test.get("policy", "stream")
    try:
        query = Query.of(e, policy=policy, time_unit=s.time_unit, reading=reading)
        compiled = engine("srt").compile(query)
    except Unsupported as err:
        assert test["description"] in REFUSED, err
        assert REFUSED[test["description"]] in str(err)
        return
    got = list(compiled.run(s))
    assert len(got) == len(set(got)), "a match reported twice"
    assert set(got) == matches_from_json(expected)


def test_transitions_are_named_with_top_never_true():
    """``kleene draw`` / ``prove`` / ``trace`` name an SRT's transitions with ``⊤`` for a
    guard that tests nothing (docs/proofs.md); a skip-till-next gap ``TRUE`` minus
    ``unless`` is named by its ``NOT`` alone (before: ``TRUE ∧ NOT ~.L = 'B'``)."""
    from kleene.engines.srt.draw import edge_name

    def names(text: str) -> list[str]:
        compiled = engine("srt").compile(Query.of(parse_sremo(text)))
        assert isinstance(compiled, CompiledSRT)
        return [edge_name(e) for e in compiled.srt.edges]

    assert names("NEXT(mark {~.L = 'A'}, mark {~.L = 'B'})") == [
        "q0 --~.L = 'A' ↑ ●--> q1", "q2 --NOT ~.L = 'B' ↑ ⊗--> q2",
        "q1 --NOT ~.L = 'B' ↑ ⊗--> q2", "q1 --~.L = 'B' ↑ ●--> q3",
        "q2 --~.L = 'B' ↑ ●--> q3"]
    assert "q1 --⊤ ↑ ⊗--> q2" in names("(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})")
