"""The canonical match: one hashable, JSON-serializable form for every engine.

docs/architecture.md, "The shared core": a match maps each variable to a non-empty tuple
of event positions in stream order (seed 001 Def. 2 substitutions
``{v1/<e..>, ...}``, with 0-based positions instead of event ids). SREMO
matches (seed 004 Def. 18) are sets of marked positions; they use the single
variable :data:`MARKED`. Results of engines compare as ``set[Match]``; a
duplicate reported by an engine is a defect the harness reports.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kleene.reference.events import Event

#: The variable name under which SREMO matches record their marked positions.
MARKED = "~"
#: The name outputs give :data:`MARKED` (``kleene match``'s lines, tables and files, the
#: rows of ``kleene.match``): a name a reader, a shell and a SQL engine take as it is.
#: ``~`` stays the canonical form (``Match.dumps``, the conformance protocol, the case
#: files; docs/outputs.md, "Names").
MARKED_NAME = "marked"
#: Whether a variable name is written in JSON as it is (ASCII letters, digits, ``_ ~``).
plain_name = re.compile(r"[A-Za-z0-9_~]+").fullmatch


def readable_name(variable: str) -> str:
    """The name outputs print for ``variable``: :data:`MARKED_NAME` for SREMO's marked
    positions, any other variable as its pattern names it."""
    return MARKED_NAME if variable == MARKED else variable


@dataclass(frozen=True, slots=True, order=True)
class Match:
    """A match ``m``: ``bindings`` is a sorted tuple of ``(variable, positions)``."""

    bindings: tuple[tuple[str, tuple[int, ...]], ...]

    @classmethod
    def of(cls, mapping: Mapping[str, Iterable[int | Event]]) -> Match:
        """Build a match from ``{var: positions or events}`` (sorted, validated)."""
        items = []
        for var, seq in mapping.items():
            positions = tuple(sorted(e.position if isinstance(e, Event) else int(e) for e in seq))
            if not positions:
                raise ValueError(f"variable {var!r} binds no event")
            if len(set(positions)) != len(positions):
                raise ValueError(f"variable {var!r} binds an event twice: {positions}")
            items.append((var, positions))
        return cls(tuple(sorted(items)))

    @classmethod
    def marked(cls, positions: Iterable[int]) -> Match:
        """A SREMO match: the set of marked positions."""
        return cls.of({MARKED: positions})

    def __getitem__(self, var: str) -> tuple[int, ...]:
        for name, positions in self.bindings:
            if name == var:
                return positions
        raise KeyError(var)

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.bindings)

    @property
    def positions(self) -> tuple[int, ...]:
        """All bound positions, sorted."""
        return tuple(sorted(p for _, ps in self.bindings for p in ps))

    @property
    def first(self) -> int:
        """The position of the match's first event."""
        return min(ps[0] for _, ps in self.bindings)

    @property
    def last(self) -> int:
        """The position of the match's last event."""
        return max(ps[-1] for _, ps in self.bindings)

    def to_json(self) -> dict[str, list[int]]:
        """``{"c": [0], "p": [2, 8], "b": [10]}``."""
        return {var: list(ps) for var, ps in self.bindings}

    @classmethod
    def from_json(cls, data: Mapping[str, Sequence[int]]) -> Match:
        return cls.of(data)

    def dumps(self) -> str:
        """One canonical JSON line: ``{"b": [11], "c": [0], "p": [3, 8]}`` (keys sorted,
        one space after each separator). Written directly when every variable is a
        plain name (what ``json.dumps`` writes the same: nothing to escape; 5× faster,
        for the ids of every match a Spark task reports), else by ``json``."""
        if all(plain_name(var) for var, _ in self.bindings):
            return "{" + ", ".join(f'"{var}": [{", ".join(map(str, ps))}]'
                                   for var, ps in self.bindings) + "}"
        return json.dumps(self.to_json(), sort_keys=True, separators=(", ", ": "))

    def __str__(self) -> str:
        return "{" + ", ".join(f"{v}/{list(ps)}" for v, ps in self.bindings) + "}"


def substitution(m: Match, events: Sequence[Event]) -> dict[str, tuple[Event, ...]]:
    """The substitution ``{v: (e, ...)}`` that ``m`` denotes over the stream ``events``."""
    return {var: tuple(events[p] for p in ps) for var, ps in m.bindings}


def matches_from_json(rows: Iterable[Any]) -> set[Match]:
    """A set of matches from their JSON form."""
    return {Match.from_json(r) for r in rows}
