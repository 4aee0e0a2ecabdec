"""The deadline of ``kleene match --time-limit`` stops the run even when its
interrupt lands in a garbage-collector callback, where Python swallows it."""

from __future__ import annotations

import gc
import time

import pytest

from kleene.cli.watchdog import limits
from kleene.reference.errors import BudgetExceeded


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_deadline_stops_the_body_although_a_gc_callback_swallows_an_interrupt():
    swallowed = []

    def slow_callback(phase: str, info: dict) -> None:
        if phase == "start" and not swallowed:
            try:
                time.sleep(0.02)        # the first interrupt lands here, and is lost
            except KeyboardInterrupt:
                swallowed.append(1)
                raise

    gc.callbacks.append(slow_callback)
    started = time.monotonic()
    try:
        with pytest.raises(BudgetExceeded, match="seconds"), limits(0.3, None, "a loop"):
            while time.monotonic() - started < 30:
                a: list = []
                a.append(a)             # cyclic garbage: the collector runs often
                gc.collect(0)
    finally:
        gc.callbacks.remove(slow_callback)
    assert time.monotonic() - started < 10
    assert swallowed                    # the case this test is about did happen
