"""Bounded equivalence of the SES automaton and the reference (``next``), seed 000 Sec. 4.

Claim: on every stream of at most k events, the SES automaton's accepted runs
(corrected Alg. 1, ``next``; :meth:`~kleene.proofs.ses.runs.RunEncoding.accepted`)
and the reference's ``next`` matches (:mod:`kleene.reference.ses.policies`)
are the same set. Both sides are encoded over one symbolic stream and one
symbolic substitution γ whose first event is e_0 (instances never interact,
and the reference's ``next`` judges each match from its first event, so a
difference starting later is one starting at e_0 of a shorter stream); Z3 is
asked for a stream and a γ on which they disagree. Lengths are tried from 1
up, so a counterexample is a shortest one; unsatisfiable at every length is a
proof up to k (a difference at length n < k would also be one at length k:
append events beyond the window).

The reference side is encoded from the pattern, never from the automaton:

- γ is a match: seed 001 Def. 2 (:func:`kleene.proofs.ses.symbolic.is_match`);
- no event within τ of e_0 that γ leaves unbound could be taken by the run
  holding γ's earlier bindings: :func:`kleene.reference.ses.policies.can_take`
  (a variable of the current set, unbound or a group; or of the next set once
  the current one is complete and strictly earlier; and every condition whose
  variables are then bound holds, evaluated in full).

A counterexample is confirmed by running the reference and the engine
(``CompiledSES`` over the given automaton, unfiltered) on the stream.
"""

from __future__ import annotations

from kleene.engines.ses.automaton import SESAutomaton, ses_automaton
from kleene.engines.ses.run import CompiledSES
from kleene.proofs.encode import Lit, as_z3, conj, disj, holds_over, implies, neg
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema, schema_for
from kleene.proofs.ses.runs import RunEncoding
from kleene.proofs.ses.symbolic import (
    Assignment,
    SymStream,
    assignment,
    is_match,
    match_from,
    stream_from,
    sym_stream,
)
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.reference.conditions import variables
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import matches

#: The default (and least) bound of the equivalence check.
EQUIVALENCE_BOUND = 5


def _touched(pattern: SESPattern, g: Assignment, i: int, j: int) -> Lit:
    return disj(*(g.bound_before(v.name, j) for v in pattern.sets[i]))


def _current_is(pattern: SESPattern, g: Assignment, i: int, j: int) -> Lit:
    """The last set the bindings before e_j touch is set ``i`` (-1: none)."""
    later = [neg(_touched(pattern, g, x, j)) for x in range(i + 1, len(pattern.sets))]
    return conj(_touched(pattern, g, i, j) if i >= 0 else True, *later)


def _options(pattern: SESPattern, s: SymStream, g: Assignment, v: str, j: int) -> Lit:
    """``v`` is among the variables ``can_take`` considers for e_j."""
    i = pattern.set_index(v)
    same = conj(_current_is(pattern, g, i, j),
                True if pattern.variable(v).group else neg(g.bound_before(v, j)))
    if i == 0:
        return disj(same, _current_is(pattern, g, -1, j))
    complete = conj(*(g.bound_before(u.name, j) for u in pattern.sets[i - 1]))
    earlier = conj(*(implies(g.binds(p, u.name), s.events[p].ts < s.events[j].ts)
                     for u in pattern.sets[i - 1] for p in range(j)))
    return disj(same, conj(_current_is(pattern, g, i - 1, j), complete, earlier))


def can_take(pattern: SESPattern, s: SymStream, g: Assignment, j: int) -> Lit:
    """The run holding γ's bindings before e_j can bind e_j to some variable."""
    out = []
    for v in pattern.names:
        members = g.members(s, upto=j)
        members[v] = members[v] + [(True, s.events[j])]
        checks = [implies(conj(*(True if u == v else g.bound_before(u, j)
                                 for u in sorted(variables(c)))),
                          holds_over(c, members))
                  for c in pattern.conditions]
        out.append(conj(_options(pattern, s, g, v, j), *checks))
    return disj(*out)


def reference_next(pattern: SESPattern, s: SymStream, g: Assignment) -> Lit:
    """γ is a ``next`` match of the reference whose first event is e_0."""
    parts: list[Lit] = [g.bound(0), is_match(pattern, s, g)]
    for j in range(1, len(s.events)):
        parts.append(implies(conj(neg(g.bound(j)), s.within(0, j)),
                             neg(can_take(pattern, s, g, j))))
    return conj(*parts)


def equivalent(pattern: SESPattern, n: SESAutomaton | None = None, *,
               schema: Schema | None = None, bound: int = EQUIVALENCE_BOUND,
               timeout_ms: int = 4 * TIMEOUT_MS) -> Result:
    """"Automaton ``n`` (default: ``pattern``'s) and the reference agree under ``next``
    on every stream of at most ``bound`` events": proved, or a stream where they differ."""
    n = n or ses_automaton(pattern)
    schema = schema or schema_for(pattern.conditions, pattern.window)
    claim = (f"the SES automaton and the reference (next) agree on every stream of at "
             f"most {bound} events")
    for size in range(1, bound + 1):
        s = sym_stream(schema, size, pattern.window)
        g = assignment(pattern.names, size)
        ref, aut = reference_next(pattern, s, g), RunEncoding(n, s, g).accepted()
        out = solve([*s.constraints, *g.constraints, as_z3(ref) != as_z3(aut)], timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, out.reason)
        if out.status == "sat" and out.model is not None:
            return _confirmed(claim, pattern, n, stream_from(out.model, s),
                              match_from(out.model, g))
    return Proved(claim, bound)


def _confirmed(claim: str, pattern: SESPattern, n: SESAutomaton, stream,
               gamma: Match | None) -> Result:
    """The counterexample, if the reference and the engine really differ on γ."""
    expected = matches(pattern, stream, "next")
    got = set(CompiledSES(pattern, n, filter="none").run(stream))
    if gamma is None or (gamma in expected) == (gamma in got):
        return Unknown(claim, "the reference and the engine agree on Z3's stream")
    side = ("the reference (next) reports it, the automaton does not" if gamma in expected
            else "the automaton reports it, the reference (next) does not")
    return CounterExample(claim, stream, gamma, side)
