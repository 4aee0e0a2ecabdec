"""Proofs about any compiled automaton, read through ``iter_transitions()``.

Every engine lists its transitions as data (:class:`kleene.engines.protocol.Transition`):
a guard (a condition AST) over the event read now and what the run holds
(bound events of SES and NFA runs, registers of an SRT). These properties
need nothing else, so a new engine family gets them for free:

- :func:`unsatisfiable_guards`: a transition whose guard no event can satisfy,
  whatever the run holds, can never fire (it is dead; the converse needs
  reachability, which :mod:`kleene.proofs.ses.witnesses` decides for the SES
  automaton);
- :func:`overlapping_guards`: two transitions leaving one state that one event
  can enable together, given the same run (the automaton may branch there:
  seed 000 Lemma 1 and Theorem 1 for the SES automaton, the determinism of a
  DSRT, report Alg. 7).

The encoding: every variable a guard names stands for one or two bound
events (two are enough for ``prev``, which relates consecutive events), and
the variable the transition reads (``variable``, or
the head ``~`` of a SREMO atom) for those plus the event read now, shared
between the two transitions compared. Only the instantiations that involve
the event read now are encoded, as the engines evaluate them. ``epsilon``
transitions read no event and are skipped. A counterexample is the bound
events and the event read, as a stream ordered by timestamp.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from itertools import combinations

from kleene.engines.labels import canonical, group_variables, transition_name, variable_label
from kleene.engines.protocol import Compiled, Transition
from kleene.proofs.encode import (
    Member,
    SymEvent,
    as_z3,
    concrete_event,
    holds_over,
    symbolic_event,
    true_in,
)
from kleene.proofs.results import Check, CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema, schema_for
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.reference.conditions import Condition, decomposed_variables
from kleene.reference.events import Event, Stream
from kleene.reference.sremo.valuations import HEAD

#: The name of the event read now in the encoding.
NOW = "now"


def read_variable(t: Transition) -> str:
    """The variable the event read now is bound to in ``t``'s guard."""
    return t.variable if t.variable is not None else HEAD


class _Run:
    """The symbolic run both compared transitions share: bound events per variable."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.now = symbolic_event(schema, NOW)
        self.bound: dict[str, list[tuple[object, SymEvent]]] = {}

    def members(self, variable: str) -> list[Member]:
        import z3

        if variable not in self.bound:
            self.bound[variable] = [(z3.Bool(f"{variable}#{i}?"),
                                     symbolic_event(self.schema, f"{variable}#{i}"))
                                    for i in range(2)]
        return list(self.bound[variable])

    def guard(self, t: Transition) -> object:
        """The guard holds for the event read now, given that the run holds at least
        one event of every other variable the guard names."""
        import z3

        read = read_variable(t)
        members = {v: self.members(v) for v in decomposed_variables(t.guard)}
        held = [z3.Or(*[lit for lit, _ in members[v]]) for v in members if v != read]
        members[read] = [*self.members(read), (True, self.now)]
        return z3.And(*held, as_z3(holds_over(t.guard, members,
                                               anchor={read: len(members[read]) - 1})))

    def constraints(self) -> list[object]:
        events = [self.now] + [e for pairs in self.bound.values() for _, e in pairs]
        return [c for e in events for c in e.constraints]

    def stream(self, model: object) -> Stream:
        chosen = [e for pairs in self.bound.values() for lit, e in pairs
                  if true_in(model, lit)]
        events = [concrete_event(model, e, 0) for e in [*chosen, self.now]]
        events.sort(key=lambda e: e.ts)
        return Stream(tuple(Event(i, e.ts, e.type, e.attrs) for i, e in enumerate(events)))


def _schema(transitions: Sequence[Transition]) -> Schema:
    guards: list[Condition] = [t.guard for t in transitions]
    return schema_for(guards)


def _reading(compiled: Compiled) -> list[Transition]:
    return [t for t in compiled.iter_transitions() if t.kind != "epsilon"]


def unsatisfiable_guards(compiled: Compiled, *, schema: Schema | None = None,
                         timeout_ms: int = TIMEOUT_MS) -> dict[Transition, Result]:
    """Per transition: :class:`Proved` that its guard is unsatisfiable (the
    transition is dead), or a :class:`CounterExample` holding an event (and run)
    that satisfies it."""
    transitions = _reading(compiled)
    schema = schema or _schema(transitions)
    out: dict[Transition, Result] = {}
    for t in transitions:
        claim = f"no event satisfies the guard of {t.source} -> {t.target}"
        run = _Run(schema)
        outcome = solve([run.guard(t), *run.constraints()], timeout_ms)
        if outcome.status == "unsat":
            out[t] = Proved(claim)
        elif outcome.status == "sat":
            out[t] = CounterExample(claim, run.stream(outcome.model), note="the guard holds")
        else:
            out[t] = Unknown(claim, outcome.reason)
    return out


def overlapping_guards(compiled: Compiled, *, schema: Schema | None = None,
                       timeout_ms: int = TIMEOUT_MS
                       ) -> dict[tuple[Transition, Transition], Result]:
    """Per pair of transitions leaving one state: :class:`Proved` that no event
    enables both (given the same run), or a :class:`CounterExample` of one that does."""
    transitions = _reading(compiled)
    schema = schema or _schema(transitions)
    by_state: dict[Hashable, list[Transition]] = {}
    for t in transitions:
        by_state.setdefault(t.source, []).append(t)
    out: dict[tuple[Transition, Transition], Result] = {}
    for outgoing in by_state.values():
        for t1, t2 in combinations(outgoing, 2):
            claim = f"no event enables both {t1.source} -> {t1.target} and -> {t2.target}"
            run = _Run(schema)
            outcome = solve([run.guard(t1), run.guard(t2), *run.constraints()],
                            timeout_ms)
            if outcome.status == "unsat":
                out[(t1, t2)] = Proved(claim)
            elif outcome.status == "sat":
                out[(t1, t2)] = CounterExample(claim, run.stream(outcome.model),
                                               note="the last event read enables both")
            else:
                out[(t1, t2)] = Unknown(claim, outcome.reason)
    return out


def deterministic(compiled: Compiled, *, schema: Schema | None = None,
                  timeout_ms: int = TIMEOUT_MS) -> Result:
    """:class:`Proved` when every pair of outgoing guards is exclusive; else the first
    counterexample (or unknown)."""
    results: Iterable[Result] = overlapping_guards(compiled, schema=schema,
                                                   timeout_ms=timeout_ms).values()
    for r in results:
        if not isinstance(r, Proved):
            return r
    return Proved("at most one transition is enabled per state and event")


def names(transitions: Iterable[Transition], groups: Iterable[str] | None = None,
          state: Callable[[Hashable], str] | None = None
          ) -> dict[tuple[Hashable, Hashable, str | None, Condition], str]:
    """Each transition named as ``kleene draw`` draws it: ``Θi`` in the picture's
    canonical numbering (:func:`kleene.engines.labels.canonical`, the legend's) and
    ``source --variable--> target`` (:func:`~kleene.engines.labels.transition_name`;
    ``state`` names the states where a family's picture names them its own way).
    Keyed by ``(source, target, variable, guard)``."""
    ordered = canonical(transitions)
    loops = list(group_variables(ordered) if groups is None else groups)

    def name(t: Transition) -> str:
        if state is None:
            return transition_name(t.source, t.variable, t.target, loops)
        return f"{state(t.source)} --{variable_label(t.variable, loops)}--> {state(t.target)}"
    return {(t.source, t.target, t.variable, t.guard): f"Θ{i} {name(t)}"
            for i, t in enumerate(ordered, start=1)}


def name_of(t: Transition, named: dict[tuple[Hashable, Hashable, str | None, Condition], str]
            ) -> str:
    """``t``'s name in ``named`` (:func:`names`)."""
    return named[(t.source, t.target, t.variable, t.guard)]


#: Per family of compiled automata: how ``kleene draw`` names its transitions.
Namer = Callable[[Compiled], Callable[[Transition], str]]
_NAMERS: dict[type, Namer] = {}


def register_namer(cls: type, namer: Namer) -> None:
    """Name the transitions of ``cls``'s automata with ``namer`` (a family whose picture
    names states or edges its own way registers one; the others get :func:`names`)."""
    _NAMERS[cls] = namer


def transition_namer(compiled: Compiled) -> Callable[[Transition], str]:
    """How ``kleene draw`` names each transition of ``compiled``: its family's namer
    (:func:`register_namer`), else ``Θi source --variable--> target`` (:func:`names`)."""
    for cls in type(compiled).__mro__:
        if cls in _NAMERS:
            return _NAMERS[cls](compiled)
    named = names(compiled.iter_transitions())
    return lambda t: name_of(t, named)


def checks(compiled: Compiled, *, schema: Schema | None = None,
           timeout_ms: int = TIMEOUT_MS) -> Iterator[Check]:
    """The language-neutral checks of ``compiled`` as :class:`Check` values: a guard
    proved unsatisfiable is a problem (a dead transition), an event enabling two
    transitions of one state is worth knowing (the automaton may branch)."""
    name_of_t = transition_namer(compiled)
    for t, r in unsatisfiable_guards(compiled, schema=schema, timeout_ms=timeout_ms).items():
        name = name_of_t(t)
        yield Check("guards", name, r, if_proved="problem", if_refuted="ok",
                    proved_says=f"{name} never fires: no event satisfies its guard",
                    refuted_says=f"{name} can fire")
    for (t1, t2), r in overlapping_guards(compiled, schema=schema,
                                          timeout_ms=timeout_ms).items():
        one, two = name_of_t(t1), name_of_t(t2)
        yield Check("determinism", f"{one} / {two}", r, if_refuted="info",
                    proved_says=f"no event enables both {one} and {two}",
                    refuted_says=f"one event enables both {one} and {two}")
