"""The deadline of ``--time-limit`` stops a body even when an interruption is lost
(cli/watchdog.py): a ``KeyboardInterrupt`` raised inside a finalizer is dropped by
Python, which is what happened after Spark jobs left py4j objects to collect."""

from __future__ import annotations

import time

import pytest

from kleene.cli.watchdog import limits
from kleene.reference.errors import BudgetExceeded


def test_a_deadline_stops_a_busy_body():
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match="budget seconds=0.2 exceeded while spinning"):
        with limits(0.2, None, "spinning"):
            while time.monotonic() - started < 30:
                pass
    assert time.monotonic() - started < 10


def test_a_lost_interruption_is_repeated():
    # The body swallows the first interruption, as a finalizer would; the watcher must
    # interrupt again (it interrupted once and left before).
    started = time.monotonic()
    swallowed: list[float] = []
    with pytest.raises(BudgetExceeded, match="budget seconds=0.2 exceeded"):
        with limits(0.2, None, "spinning"):
            while time.monotonic() - started < 30:
                try:
                    while time.monotonic() - started < 30:
                        pass
                except KeyboardInterrupt:
                    if swallowed:
                        raise
                    swallowed.append(time.monotonic() - started)
    assert len(swallowed) == 1
    assert time.monotonic() - started < 10


def test_no_limit_runs_the_body_as_is():
    with limits(None, None, "nothing"):
        total = sum(range(1000))
    assert total == 499500
