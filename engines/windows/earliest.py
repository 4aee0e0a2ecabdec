"""A(P, W) for the earliest-maximal policies of seed 001 Sec. 3, over the match windows.

Seed 001 Def. 4: A(P, W) returns the matches of the policy that start at W's first
event e1. ``earliest-maximal`` and ``earliest-maximal-contained``
(:mod:`kleene.reference.ses.policies`) judge a match only against the matches of Γ
with the same first event (its *group*): *earliest*, every variable starts at the
earliest start any match of the group gives it; *maximal*, no match of the group is it
with one more event bound to one variable (``earliest-maximal``), or contains it
(``earliest-maximal-contained``). The group of e1 is exactly what the SES automaton
under skip-till-any-match returns for W anchored at e1 (every match starting at e1
lies in W, Def. 3, and the anchored run reports each once,
:mod:`kleene.engines.windows.matching`), so :class:`EarliestMatcher` runs that A and
keeps, by :func:`select_group`, what the reference's selection keeps of the group: the
same definition over the same set (the framework's other steps keep these policies:
:mod:`kleene.engines.windows.soundness`).

*Cost.* A call costs what A under ``any`` costs on W (every match of the group is
enumerated), plus ``O(|group| · |match|)`` for the one-event reading (the matches one
event smaller than a member of the group are hashed once) or ``O(|earliest| · |group|)``
for the contained one. Over the stream, Algorithm 1 calls A at most once per event that
passes the filter and the necessary conditions: linear in the stream for a pattern and
a window whose groups are bounded, the same bound as ``any`` (seed 001 Sec. 4; a group
variable makes a group exponential in the events of W that it can take).
"""

from __future__ import annotations

from collections.abc import Sequence

from kleene.engines.protocol import Counters
from kleene.engines.windows.matching import WindowMatcher
from kleene.reference.events import Event
from kleene.reference.match import Match

#: The policies :class:`EarliestMatcher` selects.
EARLIEST_POLICIES: tuple[str, ...] = ("earliest-maximal", "earliest-maximal-contained")


def _one_smaller(g: Match) -> list[Match]:
    """Every match that ``g`` extends by one event bound to one of its variables."""
    out = []
    for i, (v, ps) in enumerate(g.bindings):
        if len(ps) < 2:
            continue
        for j in range(len(ps)):
            rest = (v, ps[:j] + ps[j + 1:])
            out.append(Match(g.bindings[:i] + (rest,) + g.bindings[i + 1:]))
    return out


def _contains(big: Match, small: Match) -> bool:
    return big != small and all(set(small[v]) <= set(big[v]) for v in small.variables)


def select_group(policy: str, group: Sequence[Match]) -> list[Match]:
    """The matches of ``group`` (the matches of Γ with one first event) that ``policy``
    keeps: earliest, and maximal in the policy's reading (module docstring)."""
    if not group:
        return []
    names = group[0].variables
    earliest = {v: min(m[v][0] for m in group) for v in names}
    early = [m for m in group if all(m[v][0] == earliest[v] for v in names)]
    if policy == "earliest-maximal":
        extended = {s for g in group for s in _one_smaller(g)}
        return [m for m in early if m not in extended]
    return [m for m in early if not any(_contains(g, m) for g in group)]


class EarliestMatcher:
    """A(P, W) under an earliest-maximal policy: ``inner`` (A under ``any``, anchored at
    W's first event) and :func:`select_group`."""

    def __init__(self, inner: WindowMatcher, policy: str) -> None:
        self.inner, self.policy = inner, policy
        self.counters: Counters = inner.counters
        self.reads_bits = inner.reads_bits

    def __call__(self, W: Sequence[Event], bits: Sequence[int] | None = None) -> list[Match]:
        return select_group(self.policy, self.inner(W, bits))
