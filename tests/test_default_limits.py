"""The default limits of ``kleene match`` (issue 29 item 2; docs/architecture.md, "Engine
budgets"): the memory ceiling is a share of the machine that leaves the rest of it usable,
and each engine family stops an exponential case (a group variable with 40 candidates:
2^40 - 1 matches) within the default limits in seconds, with the budget error."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from kleene.cli.common import DEFAULT_MEMORY_SHARE, default_memory_mb, make_budget
from kleene.cli.watchdog import limits
from kleene.engines.fastest import run_engine
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Stream
from kleene.reference.query import Query

ROOT = Path(__file__).resolve().parent.parent

SES = "PATTERN <{a+}, {b}>\nWHERE a.type = 'A' AND b.type = 'B'\nWITHIN 100000"
OPERATOR = "PATTERN SEQ(A+ a[], B b) WITHIN 1000"
SREMO = "mark {~.type = 'A'} ; ({TRUE}* ; mark {~.type = 'A'})* ; {TRUE}* ; mark {~.type = 'B'}"

#: one engine of each family that has an exponential case: (language, pattern, policy)
FAMILIES = {"windows+ses": ("ses", SES, "any"), "ses-automaton": ("ses", SES, "any"),
            "nfa-chain": ("operator", OPERATOR, "any"), "srt": ("sremo", SREMO, "stream")}


def test_the_default_memory_limit_leaves_most_of_the_machine():
    machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    ceiling = default_memory_mb()
    assert ceiling is not None and DEFAULT_MEMORY_SHARE == 0.25
    assert machine / 4 - 1 <= ceiling <= machine / 4   # three quarters stay for the others
    doc = (ROOT / "docs" / "architecture.md").read_text()
    assert "a quarter of the machine's memory" in doc


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_stops_an_exponential_case_within_the_default_limits(name):
    language, text, policy = FAMILIES[name]
    query = Query.parse(text, language=language, policy=policy)
    events = Stream.from_rows([{"ts": i, "type": "A"} for i in range(40)]
                              + [{"ts": 40, "type": "B"}])
    budget = make_budget(None, memory_mb=default_memory_mb())   # what kleene match makes
    began = time.monotonic()
    with pytest.raises(BudgetExceeded, match="budget steps=200000 exceeded"):
        with limits(None, budget.memory_mb, f"running engine {name}"):
            run_engine(name, query, events, budget=budget)
    assert time.monotonic() - began < 30
