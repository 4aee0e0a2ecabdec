"""The buffers of SES automaton instances as match columns, no match made (issue 33,
item 1: a writer at the engine's speed).

A match of the SES automaton is the buffer β of an accepting instance (seed 000 Def. 4,
:class:`~kleene.engines.ses.run.Instance`): each variable's events, appended in stream
order, one event once. :meth:`Instance.match <kleene.engines.ses.run.Instance.match>`
makes one :class:`~kleene.reference.match.Match` of it (a Python object per match);
:func:`instance_columns` reads many buffers at once into
:class:`~kleene.engines.match_columns.MatchColumns` (each variable's positions as one
flat array), the same matches in the same order: the bindings walked by C loops
(``map``, ``itemgetter``, ``numpy.fromiter``), no Python step per match.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat
from operator import attrgetter, contains, itemgetter

import numpy as np

from kleene.engines.match_columns import MatchColumns, offsets_of
from kleene.engines.ses.run import Buffer, Instance

_POSITION = attrgetter("position")
_BETA = attrgetter("beta")


def instance_columns(found: Sequence[Instance]) -> list[MatchColumns]:
    """The matches of ``found`` (each an instance whose buffer is a match) as columns, one
    :class:`MatchColumns` per set of variables bound, in their order of first appearance;
    within one, the matches in the order of ``found``."""
    betas: list[Buffer] = list(map(_BETA, found))
    if not betas:
        return []
    same = _same_variables(betas)
    if same is not None:
        return [_columns(same, betas)]
    groups: dict[tuple[str, ...], list[Buffer]] = {}
    for beta in betas:
        groups.setdefault(tuple(sorted(beta)), []).append(beta)
    return [_columns(names, group) for names, group in groups.items()]


def _same_variables(betas: list[Buffer]) -> tuple[str, ...] | None:
    """The variables (sorted) every buffer of ``betas`` binds, if they all bind the same
    ones (the usual case), else ``None``: as many in each, and each of the first's."""
    if len(set(map(len, betas))) != 1:
        return None
    names = tuple(sorted(betas[0]))
    if not all(all(map(contains, betas, repeat(v))) for v in names):
        return None
    return names


def _columns(names: tuple[str, ...], betas: list[Buffer]) -> MatchColumns:
    """The buffers ``betas``, each binding exactly ``names`` (sorted), as columns."""
    offsets, positions = [], []
    for v in names:
        events = list(map(itemgetter(v), betas))
        lengths = np.fromiter(map(len, events), dtype=np.int64, count=len(events))
        total = int(lengths.sum())
        flat = chain.from_iterable(events) if total != len(events) else \
            map(itemgetter(0), events)
        positions.append(np.fromiter(map(_POSITION, flat), dtype=np.int64, count=total))
        offsets.append(offsets_of(lengths))
    return MatchColumns(names, tuple(offsets), tuple(positions))
