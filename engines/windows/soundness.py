"""Which selection policies each step of seed 001's framework preserves, and the
attributes it may partition by (Sec. 4 and Algorithm 1, read against the
policies of :mod:`kleene.reference.ses.policies`).

- *Per-window evaluation* (Def. 3/4, the calls of A in Algorithm 1): the
  matches starting at e are computed from the match window W_e alone, so a
  policy is preserved iff its verdict on a match depends only on the events
  in [first.ts, first.ts + τ] from the first event on. True for ``any``,
  ``next`` (a run started at f only sees events until it expires, and W_f
  keeps the original positions), ``earliest-maximal`` (it compares matches
  with the same first event), ``contiguous`` and ``partition-contiguous``
  (the events between a match's first and last are in W_f). Not for
  ``next-literal``: its conditions 4 and 5 read all of Γ, also matches that
  start before W_f (:data:`PER_WINDOW`).
- *Filtering* (Thm 1): :data:`~kleene.reference.ses.filtering.FILTER_INVARIANT_POLICIES`;
  ``contiguous`` and ``partition-contiguous`` read the dropped events
  (``docs/errata.md#seed-001-filter-contiguous``).
- *Necessary match conditions* (Thm 2, 3): a window that fails them has no
  match of Γ starting at its first event, and every policy selects from Γ:
  they preserve everything per-window evaluation preserves.
- *Partitioning* (Def. 6): every match lies in one partition, so Γ is
  unchanged and so are the policies that compare matches with the same first
  event (``any``, ``earliest-maximal``). ``next`` is different: a run over the
  whole stream may *take* an event of another partition before any equality
  relates it to what the run has bound, and then no longer waits for the event
  of its own partition (``docs/errata.md#seed-001-partitioning-next``). It is
  preserved for the attributes that every transition of the SES automaton
  pins (:func:`next_partitioning_attributes`). ``contiguous`` and
  ``partition-contiguous`` are not partitioned: the first reads other
  partitions, and the second groups values with plain ``==`` (``1`` with
  ``TRUE``, missing with missing), which Def. 6's ``=`` does not.
"""

from __future__ import annotations

from kleene.engines.ses.automaton import SESTransition, ses_automaton
from kleene.reference.conditions import Attr, Cmp, Prev, conjuncts
from kleene.reference.ses.filtering import FILTER_INVARIANT_POLICIES
from kleene.reference.ses.partitioning import partitioning_attributes
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import POLICIES

#: The policies that A(P, W_e) computes exactly, one match window at a time.
PER_WINDOW: tuple[str, ...] = ("any", "next", "earliest-maximal", "contiguous",
                               "partition-contiguous")

#: The policies for which partitioning by all of Def. 6's X is sound.
PARTITION_BY_X: tuple[str, ...] = ("any", "earliest-maximal")


def preserved_policies(*, filtering: bool, paper_faithful: bool = False) -> frozenset[str]:
    """The policies the framework computes exactly (given an exact A) with these steps.

    Partitioning and the necessary conditions never remove a policy (the
    engine partitions only by :func:`partitioning_attributes_for`); the
    paper-faithful Algorithm 1 preserves none (its update rule and final loop
    lose matches, ``docs/errata.md``).
    """
    if paper_faithful:
        return frozenset()
    kept = set(PER_WINDOW)
    if filtering:
        kept &= set(FILTER_INVARIANT_POLICIES)
    return frozenset(p for p in POLICIES if p in kept)


def pins(delta: SESTransition, attribute: str) -> bool:
    """Whether Θ_δ forces the bound event to share ``attribute`` with what is bound:
    an equality ``u.A = v.A`` with ``u`` bound (u ≠ v), or, on a loop of a group
    variable, ``prev(v.A) = v.A``."""
    v, target = delta.variable, Attr(delta.variable, attribute)
    for c in (x for theta in delta.conditions for x in conjuncts(theta)):
        if not (isinstance(c, Cmp) and c.op == "=") or target not in (c.left, c.right):
            continue
        other = c.right if c.left == target else c.left
        if isinstance(other, Attr) and other.attr == attribute and other.var != v \
                and other.var in delta.source:
            return True
        if other == Prev(v, attribute) and delta.is_loop:
            return True
    return False


def next_partitioning_attributes(pattern: SESPattern) -> tuple[str, ...]:
    """The attributes of Def. 6's X by which partitioning preserves ``next``.

    A ``next`` run binds an event only through a transition of the SES automaton
    (seed 000 Sec. 4.2; :func:`kleene.reference.ses.policies.can_take`). If
    every transition that leaves a non-empty state pins A, a run started at f
    binds only events with f's value of A; an event with another value is
    neither taken nor a veto, so the run is the same in f's partition.
    """
    x = partitioning_attributes(pattern)
    if not x:
        return ()
    moves = [d for d in ses_automaton(pattern).transitions if d.source]
    return tuple(a for a in x if all(pins(d, a) for d in moves))


def partitioning_attributes_for(pattern: SESPattern, policy: str, *,
                                paper_faithful: bool = False) -> tuple[str, ...]:
    """The attributes the engine partitions by under ``policy``: X of Def. 6 where
    that is sound, the attributes that preserve ``next`` for ``next``, none for the
    others; the paper-faithful Algorithm 1 uses X for every policy."""
    if paper_faithful or policy in PARTITION_BY_X:
        return partitioning_attributes(pattern)
    if policy == "next":
        return next_partitioning_attributes(pattern)
    return ()
