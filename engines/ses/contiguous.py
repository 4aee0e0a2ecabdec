"""The contiguity policies on the SES automaton: the engine ``ses-contiguous``.

``contiguous`` keeps the matches of Γ that bind every event from their first to
their last one, ``partition-contiguous`` those that bind every event of their
first event's part in between (:func:`kleene.reference.policies.is_contiguous`;
the parts are Def. 6's, seed 001 Sec. 4.4, by the pattern's partitioning
attributes X, :func:`kleene.reference.ses.partitioning.partitioning_attributes`;
contiguity is the strict selection of SASE+, seed 001 Sec. 3 and reference [3]).

*Exactness.* The SES automaton run under skip-till-any-match (seed 000 Sec. 4.3,
``policy="any"`` of :class:`~kleene.engines.ses.run.Execution`) reports every
match of Γ exactly once, each as the buffer of the one run that bound its events
in stream order. A match binds every event from its first to its last one iff its
run *took* every event it saw after its start. So the contiguous matches are the
accepted buffers of the runs that never skip: here an instance that takes no
transition on an event dies instead of staying beside its branches
(:class:`ContiguousExecution`). For ``partition-contiguous`` the runs are kept
per part, each part seeing only its own events: a match whose events lie in
several parts binds an event outside its first event's part, which is never
contiguous within that part, and Γ restricted to a part is the Γ of the part's
events (a condition reads only bound events: Def. 6, "matching per partition
equals matching the whole stream"). With no partitioning attribute the two
policies are the same. The event filter (seed 000 Sec. 4.5) drops only events
no variable can take, so a dropped event ends every run of its part, which is
what an instance that cannot take it does.

*Bound.* Every instance alive after event e took e and every earlier event of
its part since its start, within τ: per event, the work is the instances of e's
part alive on it, at most the runs started in the last τ that took every event
since; with singleton variables each run dies after |vars| events, so the run is
``O(n · k · |Θ|)`` for n events and k variables, linear in the stream. Group
variables make one instance per way to split a contiguous stretch between them,
the number of matches reported (output-sensitive); Ω is bounded by the run's
budget as under ``any``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

from kleene.engines.columns import PropertyBits
from kleene.engines.protocol import Counters, Feature, Query, require, window_in_units
from kleene.engines.registry import register
from kleene.engines.ses.automaton import SESAutomaton, required_features, ses_automaton
from kleene.engines.ses.filter import candidates, event_filter
from kleene.engines.ses.run import Execution, Instance, PicturedSES
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.languages import STRICT_WINDOW
from kleene.reference.match import Match
from kleene.reference.policies import part_of
from kleene.reference.ses.features import CONSTRUCTS
from kleene.reference.ses.partitioning import partitioning_attributes
from kleene.reference.ses.pattern import SESPattern

#: The policies this engine computes.
POLICIES = ("contiguous", "partition-contiguous")


class ContiguousExecution(Execution):
    """The SES automaton under skip-till-any-match in which a run must take every
    event it sees: an instance that takes no transition on ``e`` dies."""

    def _consume(self, inst: Instance, e: Event,
                 have: int | None = None) -> tuple[list[Instance], Instance | None]:
        fired, _ = super()._consume(inst, e, have)
        return fired, None


#: Events whose filter verdicts are evaluated at once (over their columns).
BATCH = 4096


def judged(pattern: SESPattern, events: Iterable[Event],
           counters: Counters) -> Iterator[tuple[Event, bool]]:
    """Each event with the verdict of the sound filter (seed 000 Sec. 4.5: it has every
    property of some variable, ē ≠ 0 of seed 001 Sec. 5), evaluated a batch at a time."""
    bits = PropertyBits(pattern) if event_filter(pattern, "sound", counters) is not None \
        else None
    it = iter(events)
    while batch := list(islice(it, BATCH)):
        if bits is None:
            yield from ((e, True) for e in batch)
            continue
        counters.predicate_evaluations += len(batch) * len(bits.masks)
        yield from zip(batch, (bits.of(batch) != 0).tolist(), strict=True)


def drive_contiguous(ex: ContiguousExecution, events: Iterable[tuple[Event, bool]],
                     attributes: tuple[str, ...], counters: Counters) -> Iterator[Match]:
    """Feed each event that passed the filter to the runs of its part (one part when
    ``attributes`` is empty); an event that did not pass ends its part's runs, and so
    does a gap in the positions (events the filter dropped before the driver: only
    with no ``attributes``). ``ex``'s Ω is swapped in for each part (only parts with
    live runs are kept)."""
    parts: dict[object, list[Instance]] = {}
    last = -2                        # with no attributes: the position of the last event
    for e, passed in events:
        counters.events_read += 1
        k = part_of(e, attributes) if attributes else ()
        omega = parts.pop(k, None)
        if not attributes:
            if e.position != last + 1:
                omega = None         # an event in between was dropped: every run ends
            last = e.position
        if not passed:
            counters.events_filtered += 1
            continue
        ex.omega = omega if omega is not None else []
        found = ex.step(e)
        if found:
            yield from found
        if ex.omega:
            parts[k] = ex.omega
        counters.observe_active(len(ex.omega))


@dataclass
class CompiledContiguous(PicturedSES):
    """An SES pattern compiled to its automaton (seed 000 Sec. 4.2), run so that no run
    skips an event of its part."""

    pattern: SESPattern
    automaton: SESAutomaton
    policy: str
    time_unit: str | None = None
    reading: str = "inclusive"

    @property
    def attributes(self) -> tuple[str, ...]:
        """The attributes whose parts are contiguous: X of Def. 6, or none."""
        return partitioning_attributes(self.pattern) \
            if self.policy == "partition-contiguous" else ()

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        """One pass; a match is emitted when its run accepts it (a contiguous buffer is
        final as a match: more events make other matches), counted into ``counters``;
        ``budget``'s limit bounds the instances of a part alive at once."""
        if self.policy not in POLICIES:   # compiled to be drawn: it runs only these
            raise Unsupported(f"ses-contiguous computes the policies {', '.join(POLICIES)}, "
                              f"not {self.policy!r}")
        c = Counters() if counters is None else counters
        win = window_in_units(self.pattern.window, self.time_unit, events, self.reading)
        if not win.fits(0):   # WITHIN 0 read strictly: no span fits, nothing matches
            return
        ex = ContiguousExecution(self.automaton, win=win, policy="any", variant="corrected",
                                 counters=c, budget=budget)
        attributes = self.attributes
        if attributes:   # every event's part is read, with the filter's verdict
            verdicts = judged(self.pattern, events, c)
        else:            # over a loaded stream only the rows the filter keeps are events
            kept, keep = candidates(self.pattern, "sound", events, c)
            verdicts = ((e, keep is None or keep(e)) for e in kept)
        yield from drive_contiguous(ex, verdicts, attributes, c)


@dataclass(frozen=True)
class ContiguousEngine:
    """``contiguous`` and ``partition-contiguous`` by the SES automaton's runs that
    never skip (see the module docstring). A query under another policy compiles (its
    automaton is drawn) but does not run."""

    name: str = "ses-contiguous"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return Feature.of("ses", *CONSTRUCTS, STRICT_WINDOW, *POLICIES)

    def compile(self, query: Query) -> CompiledContiguous:
        p = query.pattern
        if not isinstance(p, SESPattern):
            raise Unsupported(f"the SES engines take SES patterns, not {type(p).__name__}")
        require(self, required_features(p))
        return CompiledContiguous(p, ses_automaton(p), query.policy, query.time_unit,
                                  query.reading)


register("ses-contiguous", ContiguousEngine)
