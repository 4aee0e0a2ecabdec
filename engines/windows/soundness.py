"""Which selection policies seed 001's framework computes exactly (Sec. 4 and
Algorithm 1, read against the policies of :mod:`kleene.reference.ses.policies`).

Filtering and partitioning are decided for every engine in one place,
:mod:`kleene.reference.ses.pruning`; what is particular to the framework is
*per-window evaluation* (Def. 3/4, the calls of A in Algorithm 1): the matches
starting at e are computed from the match window W_e alone, so a policy is
preserved iff its verdict on a match depends only on the events in
[first.ts, first.ts + τ] from the first event on. True for ``any``, ``next``
(a run started at f only sees events until it expires, and W_f keeps the
original positions), ``earliest-maximal`` (it compares matches with the same
first event), ``contiguous`` and ``partition-contiguous`` (the events between
a match's first and last are in W_f). Not for ``next-literal``: its
conditions 4 and 5 read all of Γ, also matches that start before W_f
(:data:`PER_WINDOW`).

The *necessary match conditions* (Thm 2, 3) reject only windows with no match
of Γ starting at their first event, and every policy selects from Γ: they
preserve everything per-window evaluation preserves.
"""

from __future__ import annotations

from kleene.reference.ses.filtering import FILTER_INVARIANT_POLICIES
from kleene.reference.ses.policies import POLICIES

#: The policies that A(P, W_e) computes exactly, one match window at a time.
PER_WINDOW: tuple[str, ...] = ("any", "next", "earliest-maximal", "earliest-maximal-contained",
                               "contiguous",
                               "partition-contiguous")


def preserved_policies(*, filtering: bool, paper_faithful: bool = False) -> frozenset[str]:
    """The policies the framework computes exactly (given an exact A) with these steps.

    Partitioning and the necessary conditions never remove a policy (the
    engine partitions only by
    :func:`kleene.reference.ses.pruning.partitioning_attributes_for`); the
    paper-faithful Algorithm 1 preserves none (its update rule and final loop
    lose matches, ``docs/errata.md``).
    """
    if paper_faithful:
        return frozenset()
    kept = set(PER_WINDOW)
    if filtering:
        kept &= set(FILTER_INVARIANT_POLICIES)
    return frozenset(p for p in POLICIES if p in kept)
