"""Shared test configuration: Hypothesis profiles.

``ci`` (used when ``CI`` is set, as in ``.ci/run``) is derandomized so a red
run reproduces; ``dev`` draws fresh examples each run. Both run the number of
examples the issues ask for (≥ 200–300 per property); ``KLEENE_EXAMPLES``
overrides it.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_examples = int(os.environ.get("KLEENE_EXAMPLES", "300"))
settings.register_profile("ci", max_examples=_examples, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=_examples, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def spark():
    """One SparkSession for the whole run (starting one costs ~10 s): ``local[2,2]``,
    two threads, and a failed task is retried once (the Spark fault tests need it)."""
    from kleene.engines.spark.session import session

    return session("local[2,2]")
