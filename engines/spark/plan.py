"""How a run is cut for Spark (docs/architecture.md, "Spark").

Three steps of seed 001 Sec. 4 can cut one run into many: filtering (Thm 1),
partitioning by the Def. 6 attributes, and time slices that overlap by a
multiple of τ. Whether each is sound for a pattern and policy is decided in
one place for every engine, by the pattern's language
(:attr:`kleene.reference.languages.Language.pruning`; for SES patterns
:mod:`kleene.reference.ses.pruning`). The :class:`Plan` adds what only the
runner knows: whether the engine *claims* the query (an engine not known to
compute the reference policy runs on the whole stream in one task, exactly as
the single-process engine does, since none of the proofs apply to it) and τ in
timestamp units. Everything here is pure Python (no Spark), so it is
unit-tested on its own.

**Time slices**: the stream is cut at boundaries ``b_1 < ... < b_{K-1}``; slice
``j`` *owns* the matches whose first event has ``ts`` in ``[b_j, b_{j+1})``
and holds the events with ``ts`` in ``[b_j − L·τ, b_{j+1} + A·τ]`` where
``(L, A)`` is the pruning's ``reach``; so every match is reported once, by its
owner. A SREMO count window ``[1..w]`` cuts by *position* instead
(:attr:`Plan.by_position`, τ = w): the same rule with positions for timestamps.

Some queries cannot run on Spark at all (each language's ``spark_unsupported`` in the
registry, :mod:`kleene.reference.languages`); :func:`check_supported`
says so in one line on the driver, before any job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kleene.engines.protocol import Engine, Query, claims
from kleene.reference.conditions import Agg, Attr, Condition, Prev, reads_like
from kleene.reference.durations import Duration
from kleene.reference.errors import Unsupported
from kleene.reference.schema import nodes, partition_attributes

#: Features no Spark run supports, with the reason.


@dataclass(frozen=True)
class Plan:
    """The pruning steps that are sound for one (engine, pattern, policy).

    ``filter`` is the Thm 1 condition over the variable ``e`` (``None``: keep
    every event); ``keys`` the attributes to partition by (empty: none);
    ``reach`` the ``(L, A)`` of time slices in units of τ (``None``: no
    slices); ``tau`` τ in timestamp units, or in positions when ``by_position``
    (``None`` when there is no window to slice by). ``notes`` say, in words,
    what was decided and why.
    """

    policy: str
    filter: Condition | None = None
    keys: tuple[str, ...] = ()
    reach: tuple[int, int] | None = None
    tau: int | float | None = None
    notes: tuple[str, ...] = ()
    by_position: bool = False

    @property
    def whole(self) -> bool:
        """Whether the run is one task over the whole stream (nothing is cut)."""
        return not self.keys and self.reach is None

    def explain(self) -> str:
        """The decisions in one line each."""
        return "\n".join(self.notes)


def attributes_read(pattern: Any) -> frozenset[str]:
    """Every attribute name the pattern reads (``v.A``, ``prev(v.A)``, ``SUM(v.A)``,
    ``PARTITION BY A``), in any pattern language's AST
    (:func:`kleene.reference.schema.nodes`)."""
    found = {node.attr for node in nodes(pattern)
             if isinstance(node, (Attr, Prev, Agg)) and node.attr is not None}
    found.update(partition_attributes(pattern))
    return frozenset(found)


def check_supported(query: Query) -> None:
    """Raise :class:`Unsupported` (one line) for a query no Spark run supports."""
    reason = query.lang.spark_unsupported.get(query.policy)
    if reason is not None:
        raise Unsupported(f"policy {query.policy!r} of {query.lang.title} does not run on "
                          f"Spark: {reason}; drop --spark to run it single-process")


def plan_for(engine: Engine, query: Query, *, tau: int | float | None) -> Plan:
    """The :class:`Plan` for running ``engine`` on ``query``.

    ``tau`` is the pattern's window in timestamp units (``None`` if unknown or
    none); a pruning that counts its reach in another window
    (:attr:`~kleene.reference.pruning.Pruning.window`) overrides it, converted
    with the query's time unit. Raises :class:`~kleene.reference.errors.Unsupported`
    for a policy Spark does not run.
    """
    check_supported(query)
    lang, pattern, policy, time_unit = query.lang, query.pattern, query.policy, query.time_unit
    if not claims(engine, query):
        return Plan(policy, notes=(f"engine {engine.name!r} does not claim "
                                   f"{', '.join(sorted(map(str, query.features())))}: run on "
                                   "the whole stream in one task, unfiltered",))
    pruning = lang.pruning(pattern, policy)
    if isinstance(pruning.window, Duration):
        tau = pruning.window.in_units_of(time_unit)
    elif isinstance(pruning.window, int):
        tau = pruning.window
    reach = pruning.reach if tau is not None else None
    notes = pruning.notes if tau is not None or pruning.reach is None else tuple(
        n for n in pruning.notes if not n.startswith("time slices")) + (
        "time slices: none, the pattern has no window in timestamp units",)
    kept = pruning.filter
    if kept is not None and reads_like(kept):   # Spark's rlike is Java's dialect, not RE2's
        kept, notes = None, (*notes, "filter: none pushed to Spark, it reads LIKE (an RE2 "
                             "pattern; Spark's rlike reads Java's dialect)")
    return Plan(policy, kept, pruning.keys, reach, tau, notes, by_position=pruning.by_position)
