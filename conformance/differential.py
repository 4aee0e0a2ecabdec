"""The differential runner: an engine against the reference, failures that explain
themselves (docs/architecture.md, Style 7; docs/architecture.md, "Engines").

:func:`check_engine` runs a compiled engine over a stream and compares its
matches, as a set, with the reference under the same policy;
:func:`assert_same_matches` raises an ``AssertionError`` whose message is a
copy-paste reproduction: the pattern text, the events as JSON rows, what is
missing, what is extra, and what the engine reported more than once (a
duplicate is a defect even when the sets agree). Its own frame is hidden from
pytest tracebacks. :func:`assert_matches_between` does the same for engines
whose documented result lies between two reference sets (a paper-faithful
variant that is not claimed as equal to any policy).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from kleene.engines.protocol import Engine, Query, WindowReading
from kleene.engines.registry import engine_names
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Stream
from kleene.reference.languages import language_of
from kleene.reference.match import Match
from kleene.reference.pattern import Pattern


def reference_matches(pattern: Pattern, stream: Stream, policy: str, *,
                      budget: Budget | None = None,
                      reading: WindowReading | None = None) -> set[Match]:
    """The reference result of ``pattern`` on ``stream`` under ``policy``: the query a
    test door builds (:meth:`Query.of`; ``reading`` ``None`` is the language's)."""
    return Query.of(pattern, policy=policy, reading=reading).reference(stream, budget=budget)


def reference_or_reject(pattern: Pattern, stream: Stream, policy: str, *, steps: int = 20_000,
                        reading: WindowReading | None = None) -> set[Match]:
    """The reference result within a small budget, or a Hypothesis ``reject()`` when
    the drawn example is too large to enumerate (generated tests only)."""
    from hypothesis import reject

    try:
        return reference_matches(pattern, stream, policy, budget=budget(steps), reading=reading)
    except BudgetExceeded:
        reject()
        raise  # unreachable: reject() raises


def budget(steps: int = 20_000) -> Budget:
    """The budget of a generated example's reference run."""
    return Budget(limit=steps)


def pattern_text(pattern: object) -> str:
    """The pattern as text its language's parser reads back."""
    return language_of(pattern).format(pattern)


def reproduction(engine: Engine, policy: str, pattern: object, stream: Stream) -> str:
    """Python source that reruns this comparison."""
    rows = ",\n".join("    " + json.dumps(e.to_json()) for e in stream)
    name = engine.name if engine.name in engine_names() else "<register your engine>"
    return (
        "from kleene.conformance.differential import check_engine\n"
        "from kleene.engines.registry import engine\n"
        "from kleene.reference.events import Stream\n"
        "from kleene.reference.languages import language_named\n"
        "import json\n\n"
        f'pattern = language_named({language_of(pattern).name!r}).parse("""\n'
        f'{pattern_text(pattern)}""", "<pattern>")\n'
        f'stream = Stream.from_rows(json.loads("""[\n{rows}\n]"""), '
        f"time_unit={stream.time_unit!r})\n"
        f"check_engine(engine({name!r}), {policy!r}, pattern, stream)\n")


def _listing(title: str, ms: Iterable[Match]) -> str:
    lines = [f"  {m}" for m in sorted(ms)]
    return f"{title}:\n" + ("\n".join(lines) if lines else "  (none)")


def _report(engine: Engine, policy: str | None, pattern: object, stream: Stream,
            problems: list[tuple[str, Iterable[Match]]]) -> str:
    head = f"engine {engine.name!r} (policy {policy}) disagrees with the reference"
    body = "\n".join(_listing(title, ms) for title, ms in problems)
    return f"{head}\n{body}\n\nReproduce:\n\n{reproduction(engine, policy or '?', pattern, stream)}"


def duplicates(got: Iterable[Match]) -> list[Match]:
    """The matches that occur more than once in ``got``."""
    return [m for m, k in Counter(got).items() if k > 1]


def assert_same_matches(engine: Engine, *, pattern: object, stream: Stream,
                        got: Iterable[Match], expected: set[Match],
                        policy: str | None = None) -> None:
    """Fail, with a reproduction, unless ``got`` is ``expected`` without duplicates."""
    __tracebackhide__ = True
    got = list(got)
    missing, extra, twice = expected - set(got), set(got) - expected, duplicates(got)
    if missing or extra or twice:
        raise AssertionError(_report(engine, policy, pattern, stream, [
            ("missing (the reference has them, the engine did not report them)", missing),
            ("extra (reported by the engine, not in the reference)", extra),
            ("reported more than once (a defect)", twice)]))


def assert_matches_between(engine: Engine, *, pattern: object, stream: Stream,
                           got: Iterable[Match], at_least: set[Match], at_most: set[Match],
                           policy: str | None = None) -> None:
    """Fail unless ``at_least ⊆ got ⊆ at_most`` and nothing is reported twice."""
    __tracebackhide__ = True
    got = list(got)
    missing, extra, twice = at_least - set(got), set(got) - at_most, duplicates(got)
    if missing or extra or twice:
        raise AssertionError(_report(engine, policy, pattern, stream, [
            ("missing (in the lower bound, not reported)", missing),
            ("extra (reported, beyond the upper bound)", extra),
            ("reported more than once (a defect)", twice)]))


def reported_matches(engine: Engine, policy: str, pattern: Pattern, stream: Stream, *,
                     reading: WindowReading | None = None) -> list[Match]:
    """Compile ``pattern`` for ``policy`` and run it over ``stream``: every reported match
    (the query built as :func:`reference_matches` builds it)."""
    query = Query.of(pattern, policy=policy, reading=reading, time_unit=stream.time_unit)
    return list(engine.compile(query).run(stream))


def check_engine(engine: Engine, policy: str, pattern: Pattern, stream: Stream, *,
                 budget: Budget | None = None) -> list[Match]:
    """Assert that ``engine`` reports exactly the reference's matches; return them.

    The reference enumerates by brute force within ``budget``; it raises
    :class:`~kleene.reference.errors.BudgetExceeded` rather than hang.
    """
    __tracebackhide__ = True
    expected = reference_matches(pattern, stream, policy, budget=budget)
    got = reported_matches(engine, policy, pattern, stream)
    assert_same_matches(engine, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy=policy)
    return got
