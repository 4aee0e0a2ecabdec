"""What a proof returns: a value, never a print (docs/architecture.md, Style 9).

Every check states a *universal claim* ("no event satisfies the properties of
c", "no window of at most 6 events violates Thm 2") and returns one of

- :class:`Proved`: the claim holds; ``bound`` is ``None`` when it holds for
  streams of any length, else the largest number of events it was checked for;
- :class:`CounterExample`: a concrete :class:`~kleene.reference.events.Stream`
  (and, where the claim is about a match, the match) that refutes the claim.
  Before it is returned the stream is replayed through the reference (and the
  engine, where one is involved), so a counterexample is never only Z3's word;
- :class:`Unknown`: Z3 gave up (timeout) or its model did not replay; the
  reason says which.

Existential questions are asked as the claim that nothing exists: "transition
δ never fires" is refuted by a witness stream that fires δ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kleene.reference.events import Stream
from kleene.reference.match import Match


@dataclass(frozen=True)
class Proved:
    """``claim`` holds (for every stream, or for streams of at most ``bound`` events);
    ``note`` says why, where that helps (a window too short for the events' order)."""

    claim: str
    bound: int | None = None
    note: str = ""

    @property
    def verdict(self) -> str:
        return "proved" if self.bound is None else f"proved for at most {self.bound} events"


@dataclass(frozen=True)
class CounterExample:
    """``stream`` refutes ``claim``; ``match`` is the match involved, if any."""

    claim: str
    stream: Stream
    match: Match | None = None
    note: str = ""

    @property
    def verdict(self) -> str:
        return "counterexample" + (f": {self.note}" if self.note else "")

    def rows(self) -> list[dict[str, Any]]:
        """The stream as JSON rows (one object per event, in stream order)."""
        return self.stream.to_json()


@dataclass(frozen=True)
class Unknown:
    """Z3 could not decide ``claim``: ``reason`` says why."""

    claim: str
    reason: str

    @property
    def verdict(self) -> str:
        return f"unknown ({self.reason})"


Result = Proved | CounterExample | Unknown


#: What a check's outcome means for the pattern or the engine.
Status = Literal["ok", "problem", "info", "unknown"]


@dataclass(frozen=True)
class Check:
    """One reported check: its section, its subject, its result, and what each outcome
    means (``ok``, ``problem`` or ``info``): a dead variable is *proved* dead, a
    problem; two variables that are not exclusive are only worth knowing (``info``)."""

    section: str
    subject: str
    result: Result
    if_proved: Status = "ok"
    if_refuted: Status = "problem"
    proved_says: str = ""
    refuted_says: str = ""

    @property
    def sentence(self) -> str:
        """The outcome in plain words: what was proved, or what the example shows
        (``proved_says`` / ``refuted_says``; the claim itself when they are empty)."""
        r = self.result
        if isinstance(r, Unknown):
            return f"{self.subject}: undecided ({r.reason})"
        if isinstance(r, Proved):
            bound = "" if r.bound is None else f", for streams of at most {r.bound} events"
            why = f": {r.note}" if r.note else ""
            return (self.proved_says or f"proved: {r.claim}") + bound + why
        note = f" ({r.note})" if r.note and not self.refuted_says else ""
        return (self.refuted_says or f"refuted: {r.claim}{note}") + ", for example:"

    @property
    def status(self) -> Status:
        """``ok``, ``problem``, ``info`` or ``unknown``."""
        if isinstance(self.result, Unknown):
            return "unknown"
        return self.if_proved if isinstance(self.result, Proved) else self.if_refuted
