"""SES patterns: seed 000 Def. 1 and seed 001 Def. 1.

``P = (<B1, ..., Bk>, Θ, τ)``: a sequence of pairwise disjoint sets of
variables, singleton ``v`` or group ``v+``; a set of conditions Θ over them;
a duration τ. Seed 001 splits Θ into *properties* (``v.A φ C``) and
*relationships* (``v.A φ w.B`` and ``prev(v.A) φ v.A``); :meth:`SESPattern.properties`
and :meth:`SESPattern.relationships` expose that split.
"""

from __future__ import annotations

from dataclasses import dataclass

from kleene.reference.conditions import (
    Agg,
    Condition,
    conjunction,
    is_property_of,
    subterms,
    variables,
)
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError
from kleene.reference.pattern import Pattern

#: Words that cannot name a variable (they are keywords of the text syntax).
KEYWORDS = frozenset({"PATTERN", "WHERE", "WITHIN", "AND", "OR", "NOT", "TRUE", "FALSE",
                      "PREV", "SUM", "AVG", "MIN", "MAX", "COUNT"})


@dataclass(frozen=True, slots=True)
class Variable:
    """An event variable: ``name`` binds one event, ``name+`` (``group``) one or more."""

    name: str
    group: bool = False

    def __str__(self) -> str:
        return self.name + ("+" if self.group else "")


@dataclass(frozen=True)
class SESPattern(Pattern):
    """``(<B1..Bk>, Θ, τ)``: ``sets`` B1..Bk, ``conditions`` Θ, ``window`` τ."""

    sets: tuple[tuple[Variable, ...], ...]
    conditions: tuple[Condition, ...]
    window: Duration

    def __post_init__(self) -> None:
        if not self.sets or any(not b for b in self.sets):
            raise PatternError("an SES pattern needs at least one set, and no set may be empty")
        seen: set[str] = set()
        for b in self.sets:
            for v in b:
                if v.name in seen:
                    raise PatternError(f"variable {v.name!r} appears twice; the sets of an SES "
                                       "pattern are pairwise disjoint (seed 000 Def. 1)")
                if v.name.upper() in KEYWORDS or v.name == "~":
                    raise PatternError(f"{v.name!r} is a keyword and cannot name a variable")
                seen.add(v.name)
        for c in self.conditions:
            unknown = variables(c) - seen
            if unknown:
                raise PatternError(f"condition refers to undeclared variable(s) "
                                   f"{', '.join(sorted(unknown))}")
            if any(isinstance(t, Agg) for t in subterms(c)):
                raise PatternError("SES conditions cannot use aggregates; use an operator "
                                   "pattern (seed 003) for that")

    # -- the variables
    @property
    def variables(self) -> tuple[Variable, ...]:
        """All variables V = B1 ∪ ... ∪ Bk, in set order."""
        return tuple(v for b in self.sets for v in b)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variables)

    def variable(self, name: str) -> Variable:
        for v in self.variables:
            if v.name == name:
                return v
        raise KeyError(name)

    def set_index(self, name: str) -> int:
        """The 0-based index i of the set B(i+1) that holds variable ``name``."""
        for i, b in enumerate(self.sets):
            if any(v.name == name for v in b):
                return i
        raise KeyError(name)

    # -- Θ split as in seed 001 Sec. 3
    def properties(self, name: str) -> tuple[Condition, ...]:
        """Θp_v: the conditions that test one event bound to ``name`` alone."""
        return tuple(c for c in self.conditions if is_property_of(c, name))

    def property_of(self, name: str) -> Condition:
        """The conjunction of Θp_v (``TRUE`` when there is none)."""
        return conjunction(self.properties(name))

    @property
    def relationships(self) -> tuple[Condition, ...]:
        """Θr: every condition that is not a property of a single variable."""
        return tuple(c for c in self.conditions
                     if not any(is_property_of(c, n) for n in self.names))
