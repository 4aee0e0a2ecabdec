"""Satisfiability of operator patterns (seed 003 Sec. 2.1): dead variables, dead ``OR``
branches and patterns without any match.

- :func:`dead_variables`: per positive variable ``v`` of type ``T``, "no event has
  type ``T`` and satisfies the properties of ``v``" (the conditions that read
  ``v`` alone, :func:`kleene.reference.conditions.is_property_of`).
- :func:`dead_branches`: per disjunction-free conjunct of the pattern (the DNF
  of Sec. 5, :func:`kleene.engines.nfa.disjunction.dnf`), "no stream has a match
  of it". The encoding is the smallest candidate match: one symbolic event per
  positive variable (one iteration of ``p{l,m}``, but see below), their types, the
  ``SEQ`` order (strict in ``ts``), the window, and the conditions the branch
  owns, decomposed (:func:`kleene.proofs.encode.holds_over`);
  ``A{l,m} a[]`` gets ``l`` events (a match's first ``l`` events of ``a``, whose
  consecutive pairs are consecutive in the match, as ``prev`` needs). Every
  match contains such a candidate, and more events only add instances of
  decomposed conditions, so *unsat* proves the branch dead. An aggregate
  (``SUM(b.V)``, :func:`kleene.proofs.encode.aggregate_value`) reads the whole
  sequence, whose value more events change: then every candidate with ``l`` to
  ``m`` events of each aggregated variable and at most :data:`AGGREGATE_BOUND`
  events in all is asked, and *unsat* proves the branch dead for matches of at
  most that many events (a bounded claim); a model is replayed
  through the reference and is a counterexample only if the reference finds a
  match on it (``NOT`` parts hold there: no event of their type is in the stream).
- :func:`no_match`: the pattern has no match (every branch is dead).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from kleene.engines.nfa.disjunction import branch_conditions, dnf
from kleene.proofs.encode import (
    Lit,
    SymEvent,
    concrete_event,
    conj,
    holds_for,
    holds_over,
    symbolic_event,
)
from kleene.proofs.nfa.classes import schema_of, types_of, window_bound
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.reference.conditions import Agg, Condition, is_property_of, subterms, variables
from kleene.reference.events import Event, Stream
from kleene.reference.operators.pattern import (
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
    positive_variables,
)
from kleene.reference.operators.policies import matches
from kleene.reference.operators.text import format_expr

#: Candidates of at most this many events when an aggregate reads a variable.
AGGREGATE_BOUND = 5


def _type_is(e: SymEvent, t: str | None) -> Lit:
    import z3

    return True if t is None else e.value("type").kinds[0][2] == z3.StringVal(t)


def dead_variables(pattern: OperatorPattern, *, schema: Schema | None = None,
                   timeout_ms: int = TIMEOUT_MS) -> dict[str, Result]:
    """Per positive variable: :class:`Proved` dead, or a one-event counterexample."""
    schema = schema or schema_of(pattern)
    types = types_of(pattern)
    out: dict[str, Result] = {}
    for v in pattern.names:
        e = symbolic_event(schema, v)
        props = [c for c in pattern.conditions if is_property_of(c, v)]
        claim = f"no event can bind {v}"
        r = solve([_type_is(e, types[v]), *(holds_for(c, v, e) for c in props),
                   *e.constraints], timeout_ms)
        if r.status == "unsat":
            out[v] = Proved(claim)
        elif r.status == "sat":
            assert r.model is not None
            out[v] = CounterExample(claim, Stream((concrete_event(r.model, e, 0),)))
        else:
            out[v] = Unknown(claim, r.reason)
    return out


def _copies(p: Node) -> dict[str, int]:
    """How many events the smallest candidate gives each variable: the lower bound ``l``
    of ``A{l,m} a[]`` (the first ``l`` events of ``a``, consecutive for ``prev``), else one."""
    if isinstance(p, Kleene) and isinstance(p.part, Primitive):
        return {p.part.var: max(p.low, 1)}
    out: dict[str, int] = {}
    for child in getattr(p, "parts", ()) or ((p.part,) if isinstance(p, Kleene | Neg) else ()):
        out.update(_copies(child))
    return out


def _order(p: Node, events: dict[str, list[SymEvent]]) -> list[Lit]:
    """``SEQ(p1, …, pn)``: every event of ``p_i`` strictly before every one of ``p_i+1``;
    nested ``SEQ`` under ``AND`` keeps its own order."""
    out: list[Lit] = []
    if isinstance(p, Seq):
        blocks = [b for part in p.parts if (b := sorted(positive_variables(part)))]
        for i in range(len(blocks) - 1):
            out += [x.ts < y.ts for a in blocks[i] for b in blocks[i + 1]
                    for x in events[a] for y in events[b]]
    for child in getattr(p, "parts", ()) or ((p.part,) if isinstance(p, Kleene) else ()):
        out += _order(child, events)
    return out


def _highs(p: Node) -> dict[str, int | None]:
    """The most events each iterated primitive ``A{l,m} a[]`` binds (``None``: unbounded)."""
    if isinstance(p, Kleene) and isinstance(p.part, Primitive):
        return {p.part.var: p.high}
    out: dict[str, int | None] = {}
    for child in getattr(p, "parts", ()) or ((p.part,) if isinstance(p, Kleene | Neg) else ()):
        out.update(_highs(child))
    return out


def _counts(branch: Node, aggregated: set[str], bound: int) -> list[dict[str, int]]:
    """The sizes of candidate matches to try: the smallest one (:func:`_copies`), and, for
    each variable an aggregate reads, every larger count up to its ``m`` while the
    candidate has at most ``bound`` events."""
    base = _copies(branch)
    names = sorted(positive_variables(branch))
    counts = {v: base.get(v, 1) for v in names}
    highs = _highs(branch)
    ranges = []
    for v in sorted(aggregated):
        top = highs.get(v, 1 if v not in highs else None)
        top = bound if top is None else min(top, bound)
        ranges.append([(v, c) for c in range(counts[v], max(top, counts[v]) + 1)])
    out = []
    for combo in itertools.product(*ranges):
        size = {**counts, **dict(combo)}
        if not aggregated or sum(size.values()) <= max(bound, sum(counts.values())):
            out.append(size)
    return out


def branch_satisfiable(pattern: OperatorPattern, branch: Node, *, schema: Schema,
                       timeout_ms: int = TIMEOUT_MS, bound: int = AGGREGATE_BOUND) -> Result:
    """"no stream has a match of ``branch``": proved, or a stream with a match. With an
    aggregate (``SUM(b.V) > 10``), more events of ``b`` change its value, so the claim is
    bounded: every candidate of at most ``bound`` events is asked (:func:`_counts`)."""
    names = sorted(positive_variables(branch))
    owned: Sequence[Condition] = [c for c in branch_conditions(branch, pattern.conditions)
                                  if variables(c) <= set(names)]
    aggregated = {t.var for c in owned for t in subterms(c) if isinstance(t, Agg)}
    claim = f"no stream has a match of {format_expr(branch)}" + (
        f" with at most {bound} events" if aggregated else "")
    notes = []
    for size in _counts(branch, aggregated, bound):
        r = _candidate(pattern, branch, owned, size, schema, timeout_ms, claim)
        if not isinstance(r, Proved):
            return r
        notes.append(r.note)
    return Proved(claim, bound if aggregated else None,
                  note=notes[0] if notes and all(notes) else "")


def _candidate(pattern: OperatorPattern, branch: Node, owned: Sequence[Condition],
               size: dict[str, int], schema: Schema, timeout_ms: int, claim: str) -> Result:
    """Whether a candidate match with ``size[v]`` events of each variable ``v`` exists."""
    events = {v: [symbolic_event(schema, f"{v}{i}") for i in range(k)] for v, k in size.items()}
    every = [e for es in events.values() for e in es]
    types = types_of(pattern)
    members = {v: [(True, e) for e in es] for v, es in events.items()}
    constraints: list[Lit] = [c for e in every for c in e.constraints]
    constraints += [_type_is(e, types[v]) for v, es in events.items() for e in es]
    constraints += [x.ts <= y.ts for es in events.values() for x, y in itertools.pairwise(es)]
    constraints += _order(branch, events)
    constraints += [holds_over(c, members) for c in owned]
    tau = window_bound(pattern)
    window = [] if tau is None else [y.ts - x.ts <= tau for x in every for y in every]
    r = solve([conj(*constraints, *window)], timeout_ms)
    if r.status == "unsat":
        if window and solve([conj(*constraints)], timeout_ms).status == "sat":
            return Proved(claim, note=f"its events, ordered by ts, cannot fit in the window "
                          f"{tau} with ts: {schema.sorts['ts']}")
        return Proved(claim)
    if r.status == "unknown":
        return Unknown(claim, r.reason)
    assert r.model is not None
    got = sorted((concrete_event(r.model, e, 0) for e in every), key=lambda e: e.ts)
    s = Stream(tuple(Event(i, e.ts, e.type, e.attrs) for i, e in enumerate(got)))
    found = matches(pattern, s, "any")
    if not found:
        return Unknown(claim, "the candidate Z3 found is no match of the reference "
                       "(iterations of sub-patterns or negations need more)")
    return CounterExample(claim, s, min(found))


def dead_branches(pattern: OperatorPattern, *, schema: Schema | None = None,
                  timeout_ms: int = TIMEOUT_MS) -> dict[str, Result]:
    """Per ``OR`` branch (a DNF conjunct), written as text: dead, or a stream matching it."""
    schema = schema or schema_of(pattern)
    return {format_expr(b): branch_satisfiable(pattern, b, schema=schema, timeout_ms=timeout_ms)
            for b in dnf(pattern.expr)}


def no_match(pattern: OperatorPattern, *, schema: Schema | None = None,
             timeout_ms: int = TIMEOUT_MS) -> Result:
    """:class:`Proved` when every branch is dead; else the first branch's example."""
    results = list(dead_branches(pattern, schema=schema, timeout_ms=timeout_ms).values())
    for r in results:
        if isinstance(r, CounterExample):
            return CounterExample("the pattern has no match", r.stream, r.match)
    if all(isinstance(r, Proved) for r in results):
        return Proved("the pattern has no match")
    return next(r for r in results if isinstance(r, Unknown))
