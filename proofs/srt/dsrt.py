"""Proofs about the determinized SRT: seed 004, report Thm 41 / Alg. 7 (minterms,
determinization) and bounded language equivalence of an SRT and its DSRT.

- :func:`minterms_partition`: the minterms of a tuple of atoms (as
  :func:`kleene.engines.srt.complement.minterms` builds them, the syntactically
  unsatisfiable ones already dropped) are pairwise disjoint and exhaustive: every
  element and registers satisfy exactly one. Exhaustiveness is what proves the
  dropping sound.
- :func:`deterministic` / :func:`complete`: at most / at least one transition of
  each DSRT state fires per element and registers.
- :func:`equivalent`: two SRTs accept the same strings of at most ``bound``
  elements (:func:`kleene.proofs.srt.symbolic.acceptance`);
  :func:`dsrt_equivalence` applies it to ``srt`` (:func:`compile_sremo`) and
  ``dsrt`` (:func:`compile_dsrt`) of a count-windowed expression up to its width.

Registers are free here (filled or empty, holding any element): a claim proved
holds for every valuation, reachable or not. Every counterexample is replayed
through the engine's own edge tests before it is returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import z3

from kleene.engines.registry import engine
from kleene.engines.srt.automaton import SRT, Edge, Held, compile_edge
from kleene.engines.srt.compile import compile_sremo
from kleene.engines.srt.complement import Minterm, minterms
from kleene.engines.srt.dsrt import compile_dsrt
from kleene.proofs.encode import Lit, concrete_event, disj, neg, symbolic_event, true_in
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema, schema_for
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.proofs.srt.symbolic import (
    Register,
    TooManyPaths,
    acceptance,
    accepts,
    concrete_string,
    fires,
    schema_of,
    string_constraints,
    symbolic_string,
)
from kleene.reference.conditions import TRUE, Condition, conjunction
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event, Stream
from kleene.reference.query import Query
from kleene.reference.sremo.expressions import Expr, Window
from kleene.reference.sremo.semantics import accepts as reference_accepts


class _Valuation:
    """A symbolic element and free registers, shared by the edges compared."""

    def __init__(self, schema: Schema, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.u = symbolic_event(schema, "u")
        self.regs = {r: Register(z3.Bool(f"{r}.filled"), symbolic_event(schema, f"reg.{r}"))
                     for r in names}

    def constraints(self) -> list[Lit]:
        return [c for x in (self.u, *(r.event for r in self.regs.values()))
                for c in x.constraints]

    def concrete(self, model: z3.ModelRef) -> tuple[Event, tuple[Held | None, ...], Stream]:
        """The element, the registers as the engine holds them, and both as a stream
        (the registers' elements first, the element last)."""
        held: list[Held | None] = []
        events: list[Event] = []
        for r in self.names:
            reg = self.regs[r]
            if true_in(model, reg.filled):
                e = concrete_event(model, reg.event, len(events))
                events.append(e)
                held.append(Held(e))
            else:
                held.append(None)
        u = concrete_event(model, self.u, len(events))
        return u, tuple(held), Stream((*events, u))


def _edges_fired(edges: Sequence[Edge], names: Sequence[str], u: Event,
                 regs: tuple[Held | None, ...]) -> list[Edge]:
    slots = {r: i for i, r in enumerate(names)}
    return [e for e in edges if compile_edge(e, slots)(u, regs)]


def _registers(edges: Sequence[Edge]) -> tuple[str, ...]:
    return SRT(1, 0, frozenset(), tuple(e.moved(0, 0) for e in edges)).registers()


def _schema(edges: Sequence[Edge], schema: Schema | None) -> Schema:
    return schema or schema_for([c for e in edges for c in (e.guard, *e.unless)])


def pairwise_disjoint(edges: Sequence[Edge], claim: str, *, schema: Schema | None = None,
                      timeout_ms: int = TIMEOUT_MS) -> Result:
    """No element and registers make two of ``edges`` fire."""
    schema, names = _schema(edges, schema), _registers(edges)
    for e1, e2 in combinations(edges, 2):
        v = _Valuation(schema, names)
        out = solve([fires(e1, v.u, v.regs), fires(e2, v.u, v.regs), *v.constraints()],
                    timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, out.reason)
        if out.status == "sat":
            assert out.model is not None
            u, regs, stream = v.concrete(out.model)
            if len(_edges_fired((e1, e2), names, u, regs)) == 2:
                return CounterExample(claim, stream, note="the last element fires two "
                                      "transitions, the others are the registers' elements")
            return Unknown(claim, "Z3's model did not replay through the engine's guards")
    return Proved(claim)


def exhaustive(edges: Sequence[Edge], claim: str, *, schema: Schema | None = None,
               timeout_ms: int = TIMEOUT_MS) -> Result:
    """Every element and registers make one of ``edges`` fire."""
    schema, names = _schema(edges, schema), _registers(edges)
    v = _Valuation(schema, names)
    out = solve([neg(disj(*(fires(e, v.u, v.regs) for e in edges))), *v.constraints()],
                timeout_ms)
    if out.status == "unsat":
        return Proved(claim)
    if out.status == "unknown":
        return Unknown(claim, out.reason)
    assert out.model is not None
    u, regs, stream = v.concrete(out.model)
    if not _edges_fired(edges, names, u, regs):
        return CounterExample(claim, stream, note="no transition fires on the last element")
    return Unknown(claim, "Z3's model did not replay through the engine's guards")


def minterm_edges(terms: Sequence[Minterm]) -> list[Edge]:
    """Each minterm as the edge :func:`~kleene.engines.srt.complement.determinize` makes."""
    return [Edge(0, 0, conjunction(sorted(yes, key=repr)) if yes else TRUE, False, (),
                 tuple(sorted(no, key=repr))) for yes, no in terms]


def minterms_partition(atoms: tuple[Condition, ...], terms: Sequence[Minterm] | None = None,
                       *, schema: Schema | None = None,
                       timeout_ms: int = TIMEOUT_MS) -> tuple[Result, Result]:
    """(disjoint, exhaustive) for the minterms of ``atoms`` (default: Alg. 7's)."""
    edges = minterm_edges(minterms(atoms) if terms is None else terms)
    return (pairwise_disjoint(edges, "no element satisfies two minterms", schema=schema,
                              timeout_ms=timeout_ms),
            exhaustive(edges, "every element satisfies some minterm", schema=schema,
                       timeout_ms=timeout_ms))


def deterministic(d: SRT, *, schema: Schema | None = None,
                  timeout_ms: int = TIMEOUT_MS) -> Result:
    """At most one transition of each state fires per element and registers."""
    schema = schema or schema_of(d)
    for q in range(d.size):
        r = pairwise_disjoint(d.out[q], f"at most one transition of state {q} fires per "
                              "element", schema=schema, timeout_ms=timeout_ms)
        if not isinstance(r, Proved):
            return r
    return Proved("at most one transition fires per state and element")


def complete(d: SRT, *, schema: Schema | None = None, timeout_ms: int = TIMEOUT_MS) -> Result:
    """At least one transition of each state fires per element and registers."""
    schema = schema or schema_of(d)
    for q in range(d.size):
        r = exhaustive(d.out[q], f"some transition of state {q} fires on every element",
                       schema=schema, timeout_ms=timeout_ms)
        if not isinstance(r, Proved):
            return r
    return Proved("some transition fires per state and element")


def equivalent(a: SRT, b: SRT, bound: int, *, claim: str = "",
               schema: Schema | None = None, timeout_ms: int = TIMEOUT_MS) -> Result:
    """``a`` and ``b`` accept the same strings of at most ``bound`` elements."""
    claim = claim or f"both automata accept the same strings of at most {bound} elements"
    schema = schema or schema_of(a, b)
    for n in range(bound + 1):
        string = symbolic_string(schema, n)
        try:
            differ = acceptance(a, string, schema, "a") != acceptance(b, string, schema, "b")
        except TooManyPaths as err:
            return Unknown(claim, str(err))
        out = solve([z3.simplify(differ) if not isinstance(differ, bool) else differ,
                     *string_constraints(string)], timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, f"{out.reason} at length {n}")
        if out.status == "sat":
            assert out.model is not None
            s = concrete_string(out.model, string)
            got = accepts(a, s), accepts(b, s)
            if got[0] == got[1]:
                return Unknown(claim, "Z3's model did not replay through the engine's guards")
            which = "the first" if got[0] else "the second"
            return CounterExample(claim, s, note=f"accepted by {which} automaton only")
    return Proved(claim, bound)


def count_width(e: Expr) -> int:
    """The width ``w`` of a count-windowed ``e[1..w]`` (the bound of the language proofs)."""
    if not (isinstance(e, Window) and isinstance(e.width, int)):
        raise Unsupported("bounded language proofs need a count window e[1..w] at the top")
    return e.width


def dsrt_equivalence(e: Expr, *, bound: int | None = None, schema: Schema | None = None,
                     timeout_ms: int = TIMEOUT_MS) -> Result:
    """``srt`` and ``dsrt`` of ``e = body[1..w]`` accept the same strings of at most ``w``
    elements; a counterexample's note gives the reference's verdict (Def. 18)."""
    w = count_width(e) if bound is None else bound
    a, compiled = compile_sremo(e), compile_dsrt(e)
    r = equivalent(a, compiled.dsrt, w, claim=f"srt and dsrt accept the same strings of at "
                   f"most {w} elements", schema=schema, timeout_ms=timeout_ms)
    if isinstance(r, CounterExample):
        said = {"the reference": reference_accepts(e, r.stream),
                "the srt engine": bool(list(engine("srt").compile(Query.of(e, policy="literal"))
                                            .run(r.stream))),
                "the dsrt engine": compiled.accepts(r.stream)}
        verdicts = ", ".join(f"{who} {'accepts' if yes else 'rejects'} it"
                             for who, yes in said.items())
        return CounterExample(r.claim, r.stream, note=f"{r.note}; {verdicts}")
    return r
