"""Which pruning steps keep a policy's match set: the one place that decides it.

Seed 001 Sec. 4 cuts the work of matching three ways: *filtering* (Thm 1: drop
the events that satisfy no variable's properties), *partitioning* (Def. 6:
match each part of the stream that shares the values of the partitioning
attributes X on its own) and, for a distributed run, *time slices* that
overlap by a multiple of the window τ. Each is sound for some selection
policies only. A :class:`Pruning` value records, for one pattern and policy,
which steps may be taken and why; every engine that prunes (the match-window
framework, Spark) asks the pattern's language for it through the registry
(:attr:`kleene.reference.languages.Language.pruning`), so the decision is
made once. ``tests/test_pruning.py`` checks, against the reference, that each
permitted step leaves the match set unchanged.

A language that has not worked its proofs out answers :func:`whole_stream`:
nothing is pruned, which is always sound.
"""

from __future__ import annotations

from dataclasses import dataclass

from kleene.reference.conditions import Condition
from kleene.reference.durations import Duration


@dataclass(frozen=True)
class Pruning:
    """The pruning steps that keep ``policy``'s matches of one pattern.

    ``filter`` is the Thm 1 condition over the variable ``e``
    (:data:`kleene.reference.ses.filtering.EVENT`); ``None`` keeps every
    event. ``keys`` are the attributes the stream may be partitioned by (Def. 6,
    grouped by :func:`kleene.reference.policies.partition_key`); empty: none.
    ``reach`` is ``(L, A)``: the verdict on a match reads only events with
    ``ts`` in ``[first.ts − L·τ, first.ts + A·τ]``, so time slices holding that
    much around the matches they own are sound; ``None``: no slices. ``window``
    is the τ the reach counts in when it is not the language's
    ``window(pattern)``: an ``int`` is a count of positions (SREMO's ``[1..w]``:
    slices are then cut by position, ``ts`` reads ``position`` above), a
    :class:`~kleene.reference.durations.Duration` a time window. ``notes`` say
    in words what was decided and why.
    """

    policy: str
    filter: Condition | None = None
    keys: tuple[str, ...] = ()
    reach: tuple[int, int] | None = None
    notes: tuple[str, ...] = ()
    window: int | Duration | None = None

    @property
    def by_position(self) -> bool:
        """Whether slices are cut by position (a count window), not by timestamp."""
        return isinstance(self.window, int)

    def explain(self) -> str:
        """The decisions, one per line."""
        return "\n".join(self.notes)


def whole_stream(pattern: object, policy: str) -> Pruning:
    """No pruning: one run over the whole stream (sound for every policy)."""
    return Pruning(policy, notes=("no pruning is worked out for this language: the whole "
                                  "stream is matched at once",))
