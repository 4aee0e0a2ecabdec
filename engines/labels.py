"""How the pictures and the traces name states, transitions and guards, after seed 000
(Sec. 4.1, Figs. 3–5; docs/architecture.md, Style 8).

- an SES state (a set of variable names, Def. 3) is written as a set,
  ``{c, d, p+}`` and ``∅``, or in the paper's concatenated form ``cdp+``
  (Example 5: "we denote states by the concatenation of the corresponding
  event variables"); group variables (those that loop) carry their ``+``;
- a guard Θ_δ is the set of its conjuncts (Fig. 4 lists ``{c.L = 'C', c.ID = d.ID}``),
  each printed by :func:`kleene.reference.condition_text.format_condition`;
- transitions are numbered in a canonical order (states by size, then by name;
  variables by name within a state), which for Q1 is the paper's own numbering
  Θ1..Θ17 (:func:`canonical`);
- a state that is a pair ``(name, q)`` belongs to the automaton ``name`` of a set of
  automata run in parallel (:func:`split_state`; seed 000 Sec. 5.2).

:mod:`kleene.engines.draw` draws with these names, the traces
(:mod:`kleene.engines.trace`) and the proofs (:mod:`kleene.proofs.automata`) print
with them, so a picture, a trace and a proof name a transition alike.
"""

from __future__ import annotations

import textwrap
from collections.abc import Hashable, Iterable, Sequence

from kleene.engines.protocol import Transition
from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import And, Condition, Truth

EMPTY = "∅"
#: Lines of a guard on an edge are wrapped at this width.
WRAP = 30


def split_state(q: Hashable) -> tuple[str | None, Hashable]:
    """``(automaton name, state)``: a pair ``(name, q)`` is a state of automaton ``name``."""
    if isinstance(q, tuple) and len(q) == 2 and isinstance(q[0], str):
        return q[0], q[1]
    return None, q


def state_key(q: Hashable) -> tuple[object, ...]:
    """A sort key for any state: sets by size then names, pairs by parts, the rest as text."""
    if isinstance(q, (frozenset, set)):
        return (0, len(q), tuple(sorted(map(str, q))))
    if isinstance(q, tuple):
        return (1, tuple(state_key(x) for x in q))
    return (2, str(q))


def canonical(transitions: Iterable[Transition]) -> list[Transition]:
    """The transitions in the order seed 000 numbers them (Fig. 4, Fig. 5: Θ1..Θ17).

    By automaton (:func:`split_state`), then by the *depth* of the variable
    (the size of the smallest state it leaves from: 0 for V1's variables, |V1|
    for V2's, so N1's transitions come before N2's), then by source state
    (:func:`state_key`), then by variable name.
    """
    ts = list(transitions)
    depth: dict[tuple[str | None, str | None], int] = {}
    for t in ts:
        name, q = split_state(t.source)
        size = len(q) if isinstance(q, (frozenset, set)) else 0
        depth[name, t.variable] = min(depth.get((name, t.variable), size), size)

    def key(t: Transition) -> tuple[object, ...]:
        name, q = split_state(t.source)
        return (name or "", depth[name, t.variable], state_key(q), t.variable or "")
    return sorted(ts, key=key)


def group_variables(transitions: Iterable[Transition]) -> frozenset[str]:
    """The variables that loop: the group variables ``v+`` of an SES automaton."""
    return frozenset(t.variable for t in transitions
                     if t.variable is not None and t.source == t.target)


def state_label(q: Hashable, *, order: Sequence[str] = (), groups: Iterable[str] = (),
                style: str = "set") -> str:
    """``{c, d, p+}`` (``set``) or ``cdp+`` (``concat``); ``∅`` for the empty set.

    Variables are written in ``order`` (the rest by name), group variables with ``+``.
    """
    _, inner = split_state(q)
    if not isinstance(inner, (frozenset, set)):
        return str(inner)
    if not inner:
        return EMPTY
    rank, loops = {v: i for i, v in enumerate(order)}, set(groups)
    names = sorted(map(str, inner), key=lambda v: (rank.get(v, len(rank)), v))
    marked = [v + "+" if v in loops else v for v in names]
    return "".join(marked) if style == "concat" else "{" + ", ".join(marked) + "}"


def conjuncts(guard: Condition) -> tuple[Condition, ...]:
    """Θ_δ as the set of its conditions (seed 000 writes guards as sets): ``TRUE`` is ∅."""
    if isinstance(guard, And):
        return guard.parts
    if isinstance(guard, Truth) and guard.value:
        return ()
    return (guard,)


def guard_lines(guard: Condition, width: int = WRAP) -> list[str]:
    """The guard printed one conjunct a line, long conjuncts wrapped at ``width``."""
    return [line for c in conjuncts(guard)
            for line in textwrap.wrap(format_condition(c), width) or [""]]


def guard_set(guard: Condition) -> str:
    """``{c.L = 'C', c.ID = d.ID}``: the guard as Fig. 4 lists it (``∅`` when empty)."""
    parts = [format_condition(c) for c in conjuncts(guard)]
    return "{" + ", ".join(parts) + "}" if parts else EMPTY


def variable_label(v: str | None, groups: Iterable[str]) -> str:
    """An edge's variable, ``p+`` for a group variable, ``ε`` for none."""
    if v is None:
        return "ε"
    return v + "+" if v in set(groups) else v

def transition_name(source: Hashable, variable: str | None, target: Hashable,
                    groups: Iterable[str] = ()) -> str:
    """``{c} --p+--> {c, p+}``: a transition named as the pictures label it (states as
    :func:`state_label`, the variable as :func:`variable_label`)."""
    loops = list(groups)
    return (f"{state_label(source, groups=loops)} --{variable_label(variable, loops)}--> "
            f"{state_label(target, groups=loops)}")
