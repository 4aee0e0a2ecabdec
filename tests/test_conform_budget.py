"""An in-process engine under ``kleene conform`` works within the default budget
(issue 27 item 4): a generated case whose match set explodes (a group variable under
``any``: one match per non-empty subset of the B events, 2^23 - 1 of them) is the
``budget`` error, a verdict, not a run until the timeout."""

from __future__ import annotations

import pytest

from kleene.conformance.backends import find_backend
from kleene.conformance.wire import Request

ROWS = tuple([{"ts": 0, "type": "A"}] + [{"ts": i, "type": "B"} for i in range(1, 24)])

EXPLODING = [
    ("nfa-chain", "operator", "PATTERN SEQ(A a, B+ b[]) WITHIN 100"),
    ("windows+ses", "ses", "PATTERN <{a}, {b+}>\nWHERE a.type = 'A' AND b.type = 'B'\n"
                           "WITHIN 100"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "language", "pattern"), EXPLODING)
def test_an_exploding_case_is_the_budget_error(name, language, pattern):
    outcome = find_backend(name).run(Request(language, pattern, "any", events=ROWS),
                                     timeout=60)
    assert outcome.broken is None, outcome.broken
    assert outcome.error is not None and outcome.error[0] == "budget", outcome.error
    assert f"running engine {name}" in outcome.error[1]


def test_a_small_case_is_untouched_by_the_budget():
    """Four B events: 2^4 - 1 = 15 matches, each the A and a non-empty subset of them."""
    rows = ROWS[:5]
    outcome = find_backend("nfa-chain").run(
        Request("operator", EXPLODING[0][2], "any", events=rows), timeout=60)
    assert outcome.error is None and outcome.matches is not None
    assert len(outcome.matches) == 15
