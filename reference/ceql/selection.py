"""CEL's selection strategies, CORE's consumption policies and CORE's ``LIMIT``, each a
function of the ``ALL`` set of complex events (docs/ceql.md, "Strategies and consumption").

A complex event here is a set of positions (a SREMO match: :mod:`.formula`); its interval
is ``[first, last]``. The ``ALL`` set is what the query's SREMO translation matches
(windows and ``PARTITION BY`` included); then, in CORE's order of evaluation, the strategy,
the consumption policy and the limit each keep some of it.

Selection strategies (Grez, Riveros, Ugarte, Vansummeren, "A Formal Framework for Complex
Event Recognition", TODS 2021, Sec. 4, "selection strategies"; cited as CEL). Each compares
a complex event only with the complex events of the same interval (CEL's ``time(C) =
time(C')``), by an order on sets of positions, with ``C Δ C'`` their symmetric difference:

- ``NEXT`` (CEL's NXT): ``C ≤next C'`` iff ``C = C'`` or ``min(C Δ C') ∈ C``; the complex
  event least in ``≤next`` (it takes the earliest events: skip-till-next-match), one per
  interval since the order is total;
- ``LAST``: ``C ≤last C'`` iff ``C = C'`` or ``max(C Δ C') ∈ C'``; the complex event
  greatest in ``≤last`` (it takes the latest events), one per interval;
- ``MAX``: the complex events of their interval that no other one contains (``⊆``-maximal);
- ``STRICT``: the complex events that are intervals (every position between first and last);
- ``ALL``: every complex event.

Consumption policies (CORE, ``CONSUME BY``; what its evaluator does, read in
src/core_server/internal/evaluation/evaluator.hpp and
interface/modules/query/evaluators/dynamic_evaluator.hpp of github:CORE-cer/CORE, and
measured on pycer 0.1.6, docs/ceql.md): when a complex event is output at position ``j``,
the evaluator is reset before the next event, so no complex event starting at or before
``j`` is output afterwards. Over the ``ALL`` set, from ``r = 0``: ``j`` is the least last
position of the complex events that start at ``r`` or later; those of them that end at
``j`` are output; ``r`` becomes ``j + 1``; repeat.

- ``NONE``: every complex event (no reset);
- ``ANY``: the procedure over all complex events: an output in one partition resets every
  partition (CORE flags every partition's evaluator);
- ``PARTITION``: the procedure per partition (complex events of one ``PARTITION BY`` key),
  an output resetting its own partition only; without ``PARTITION BY``, ``ANY``.

``LIMIT k`` (CORE's enumeration limit: measured on pycer, docs/ceql.md): at each position,
at most ``k`` of the complex events ending there are output. Which ``k`` is CORE's order of
enumeration, which CEL does not fix; Kleene keeps the ``k`` least by canonical text
(:meth:`~kleene.reference.match.Match.dumps`), so a comparison with CORE is by the number
output at each position.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.pattern import Pattern
from kleene.reference.policies import part_of
from kleene.reference.sremo.expressions import Expr, Partition

#: The selection strategies CEQL's grammar has.
STRATEGIES = ("ALL", "ANY", "LAST", "MAX", "NEXT", "STRICT")
#: CORE's consumption policies.
CONSUMPTIONS = ("NONE", "ANY", "PARTITION")

Positions = frozenset[int]


@dataclass(frozen=True, slots=True)
class Selected(Pattern):
    """A CEQL query whose ``SELECT``, ``CONSUME BY`` or ``LIMIT`` keeps part of the ``ALL``
    set of ``body`` (its SREMO translation): ``strategy`` (:data:`STRATEGIES` but ``ANY``),
    ``consumption`` (:data:`CONSUMPTIONS`), ``limit`` (``None``: no limit)."""

    body: Expr
    strategy: str = "ALL"
    consumption: str = "NONE"
    limit: int | None = None

    @property
    def partition_by(self) -> tuple[str, ...]:
        """The attributes of the query's ``PARTITION BY`` (none: ``()``)."""
        return self.body.by if isinstance(self.body, Partition) else ()


def _interval(m: Match) -> tuple[int, int]:
    return m.first, m.last


def _by_interval(ms: Iterable[Match]) -> dict[tuple[int, int], list[Match]]:
    groups: dict[tuple[int, int], list[Match]] = defaultdict(list)
    for m in ms:
        groups[_interval(m)].append(m)
    return groups


def next_key(m: Match) -> tuple[int, ...]:
    """``≤next`` as a sort key: ``C <next C'`` iff ``min(C Δ C') ∈ C``, which is the
    ascending tuple of ``C``'s positions less than ``C'``'s where they first differ (the
    same interval: neither is a prefix of the other but at their shared last position)."""
    return tuple(sorted(set(m.positions)))


def last_key(m: Match) -> tuple[int, ...]:
    """``≤last`` as a sort key: ``C <last C'`` iff ``max(C Δ C') ∈ C'``, which is the
    descending tuple of ``C``'s positions less than ``C'``'s where they first differ."""
    return tuple(sorted(set(m.positions), reverse=True))


def select(ms: set[Match], strategy: str) -> set[Match]:
    """The complex events of ``ms`` (an ``ALL`` set) that ``SELECT strategy`` keeps."""
    if strategy == "ALL":
        return set(ms)
    if strategy == "STRICT":
        return {m for m in ms if len(set(m.positions)) == m.last - m.first + 1}
    groups = _by_interval(ms).values()
    if strategy == "NEXT":
        return {min(g, key=next_key) for g in groups}
    if strategy == "LAST":
        return {max(g, key=last_key) for g in groups}
    if strategy == "MAX":
        return {m for g in groups for m in g
                if not any(set(m.positions) < set(o.positions) for o in g)}
    raise ValueError(f"no selection strategy {strategy!r}")


def consumed(ms: Iterable[Match]) -> set[Match]:
    """The complex events output when each output resets the evaluator (the module
    docstring's procedure, over one evaluator's complex events)."""
    by_last = sorted(ms, key=lambda m: (m.last, m.first))
    out: set[Match] = set()
    r = 0
    j: int | None = None
    for m in by_last:
        if j is not None and m.last > j:
            r, j = j + 1, None
        if m.first < r:
            continue
        if j is None:
            j = m.last
        if m.last == j:
            out.add(m)
    return out


def consume(ms: set[Match], policy: str, key: Callable[[Match], object]) -> set[Match]:
    """The complex events of ``ms`` that ``CONSUME BY policy`` outputs; ``key`` is a
    complex event's partition (``PARTITION``: one evaluator per key)."""
    if policy == "NONE":
        return set(ms)
    if policy == "ANY":
        return consumed(ms)
    if policy == "PARTITION":
        parts: dict[object, list[Match]] = defaultdict(list)
        for m in ms:
            parts[key(m)].append(m)
        return {m for part in parts.values() for m in consumed(part)}
    raise ValueError(f"no consumption policy {policy!r}")


def limited(ms: set[Match], k: int | None) -> set[Match]:
    """At most ``k`` complex events ending at each position (the ``k`` least by canonical
    text); ``None``: all."""
    if k is None:
        return set(ms)
    ending: dict[int, list[Match]] = defaultdict(list)
    for m in ms:
        ending[m.last].append(m)
    return {m for group in ending.values() for m in sorted(group, key=Match.dumps)[:k]}


def partition_key(q: Selected, event: Callable[[int], Event]) -> Callable[[Match], object]:
    """A complex event's partition: its first event's part by ``PARTITION BY``'s attributes
    (every event of it is in the same part: :func:`~kleene.reference.policies.part_of`);
    ``event`` gives the event at a position."""
    attrs = q.partition_by
    return lambda m: part_of(event(m.first), attrs)


def kept(q: Selected, everything: set[Match], s: Stream | Callable[[int], Event]) -> set[Match]:
    """What ``q`` outputs of ``everything``, its body's ``ALL`` set on ``s`` (the stream,
    or the event at each position): strategy, then consumption, then limit (the module
    docstring)."""
    event = s.__getitem__ if isinstance(s, Stream) else s
    chosen = select(everything, q.strategy)
    return limited(consume(chosen, q.consumption, partition_key(q, event)), q.limit)
