"""The DSRT with marks (seed 004, report Thm 41 / Alg. 7 with register copies, built lazily:
:mod:`kleene.engines.srt.lazy_dsrt`) against the SRT, on bounded symbolic strings: the
``dsrt`` and ``negation`` proofs of time windows and of bodies that write then read a
register, which the eager, output-agnostic DSRT does not cover.

The engine ``dsrt`` runs these expressions on :class:`LazyDSRT`: a state is a set of SRT
states with the DSRT register (*slot*) each SRT register reads, a transition is taken on a
*minterm* (the truth of every atomic test of the state: guards over slots, ``unless``
conditions, clocks ``~.ts − slot.ts ≤ τ``) and an *output* (marked or not). Determinism
and completeness hold by construction there (a minterm is a valuation of all of the
state's atoms, so exactly one holds per element and registers; each has one marked and
one unmarked output, ``-1`` the sink), so what is proved is the language with marks:

- :func:`marked_equivalence`: for every string of at most ``k`` elements, with symbolic
  values and symbolic timestamps ``t0 ≤ t1 ≤ ...`` (the clocks compare differences of
  timestamps, so nothing else is needed), and every sequence of outputs, the DSRT's walk
  ends in a state holding a final member iff some path of the SRT that marks exactly
  there fires on every element and ends final (report Def. 21; the marks of Def. 18).
- :func:`marked_complement`: Alg. 8 read on the DSRT with marks: a string is in the
  complement iff no sequence of outputs leads the DSRT to a final state; it is so
  exactly when the SRT rejects the string (Def. 18, outputs ignored, as ``!e``).

The DSRT is explored as the engine builds it (:meth:`LazyDSRT.move` on each minterm Z3
finds satisfiable after the path so far; the DSRT's registers are the string's elements,
known per path): level ``n`` holds every walk of ``n`` elements, with its path
condition. Each length is decided by one query; a counterexample is replayed through the
engines (``srt`` and the DSRT's own run, policy ``literal``) and the reference before it
is returned. Once a length is proved, each walk ending in a final state (at most
:data:`MAX_WITNESSES`) is replayed too: a string satisfying its path condition, run
through the DSRT's own run, must report the walk's marks (the automaton's compiled tests
against what is encoded of them: ``Table.shown`` and ``Table.clocks``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import z3

from kleene.engines.registry import engine
from kleene.engines.srt.automaton import SRT
from kleene.engines.srt.compile import compile_sremo
from kleene.engines.srt.lazy_dsrt import LazyDSRT, _slot
from kleene.engines.srt.lazy_pass import Table
from kleene.engines.srt.run import compile_expression
from kleene.proofs.encode import Lit, SymEvent, as_z3, conj, disj, symbolic_event
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.proofs.srt.symbolic import (
    Register,
    TooManyPaths,
    accepts,
    concrete_string,
    empty_registers,
    path_fires,
    paths,
    satisfied,
    schema_of,
    string_constraints,
    symbolic_string,
)
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.sremo.expressions import Expr, Partition

#: The most DSRT walks of one length the exploration keeps (each one Z3 query or more).
MAX_WALKS = 5_000

#: The most accepting walks of one length replayed through the DSRT's run.
MAX_WITNESSES = 50

#: Outputs along a walk: True where the element was marked.
Outputs = tuple[bool, ...]


class TooManyWalks(Exception):
    """The DSRT has more than :data:`MAX_WALKS` satisfiable walks of one length."""


@dataclass(frozen=True)
class Walk:
    """A walk of the DSRT over the first ``len(marks)`` elements: the state reached, the
    element (index into the string) each slot holds (``None``: ♯, slot 0), the outputs
    taken and the path condition (each step's minterm)."""

    sid: int
    regs: tuple[int | None, ...]
    marks: Outputs
    condition: tuple[Lit, ...]


def lazy_dsrt(e: Expr) -> LazyDSRT:
    """The DSRT with marks the engine ``dsrt`` runs ``e`` on, under policy ``literal``
    (one run from the first element: the language with marks). :class:`Unsupported` for
    ``PARTITION BY`` (one DSRT per part: prove the body)."""
    if isinstance(e, Partition):
        raise Unsupported("PARTITION BY runs one DSRT per part: prove its body")
    compiled = engine("dsrt").compile(Query.of(e, policy="literal"))
    if isinstance(compiled, LazyDSRT):
        return compiled
    return LazyDSRT(compile_expression(Query.of(e, policy="literal")).srt, "literal")


def _atoms(t: Table, u: SymEvent, regs: Sequence[int | None],
           string: Sequence[SymEvent], placeholder: SymEvent) -> list[Lit]:
    """The truth of each atom of ``t`` on ``u`` with the slots ``regs``."""
    held = {_slot(i): Register(x is not None, placeholder if x is None else string[x])
            for i, x in enumerate(regs)}
    clocks = {i: (slot, bound, inside) for i, slot, bound, inside in t.clocks}
    out: list[Lit] = []
    for i, c in enumerate(t.shown):
        if c is not None:
            out.append(satisfied(c, u, held))
            continue
        slot, bound, inside = clocks[i]
        x = regs[slot] if slot < len(regs) else None
        if x is None:
            out.append(False)
            continue
        gap = u.ts - string[x].ts
        out.append(gap <= bound if inside else gap > bound)
    return out


def _minterms(solver: z3.Solver, atoms: list[Lit]) -> Iterator[tuple[bool, ...]]:
    """Every valuation of ``atoms`` satisfiable with the solver's constraints."""
    solver.push()
    try:
        while True:
            status = solver.check()
            if status == z3.unsat:
                return
            if status != z3.sat:
                raise _GaveUp(solver.reason_unknown() or "unknown")
            model = solver.model()
            bits = tuple(z3.is_true(model.eval(as_z3(a), model_completion=True))
                         for a in atoms)
            yield bits
            solver.add(z3.Or(*[as_z3(a) != z3.BoolVal(b)
                               for a, b in zip(atoms, bits, strict=True)])
                       if atoms else z3.BoolVal(False))
    finally:
        solver.pop()


class _GaveUp(Exception):
    """Z3 answered unknown while the walks were enumerated."""


def _step(d: LazyDSRT, walks: list[Walk], string: Sequence[SymEvent],
          placeholder: SymEvent, timeout_ms: int) -> list[Walk]:
    """Every walk one element longer (element ``len(marks)`` of ``string``)."""
    out: list[Walk] = []
    for w in walks:
        i = len(w.marks)
        u = string[i]
        t = d.tables[w.sid]
        atoms = _atoms(t, u, w.regs, string, placeholder)
        solver = z3.Solver()
        solver.set("timeout", timeout_ms)
        solver.add(*[as_z3(c) for c in (*w.condition,
                                        *string_constraints(string[:i + 1]))])
        for bits in _minterms(solver, atoms):
            minterm = conj(*(a if b else z3.Not(as_z3(a))
                             for a, b in zip(atoms, bits, strict=True)))
            for mark, (target, keep, _) in zip((True, False), d.move(w.sid, bits),
                                                strict=True):
                if target < 0:
                    continue
                regs = w.regs if keep is None else \
                    (None, *((*w.regs, i)[k] for k in keep))
                out.append(Walk(target, regs, (*w.marks, mark), (*w.condition, minterm)))
                if len(out) > MAX_WALKS:
                    raise TooManyWalks(f"more than {MAX_WALKS} walks of the DSRT of "
                                       f"{i + 1} elements")
    return out


def _dsrt_accepts(d: LazyDSRT, walks: list[Walk]) -> dict[Outputs, Lit]:
    """Per outputs, the condition that the walk ends in a state holding a final member."""
    found: dict[Outputs, list[Lit]] = {}
    for w in walks:
        if d.finals(w.sid):
            found.setdefault(w.marks, []).append(conj(*w.condition))
    return {m: disj(*c) for m, c in found.items()}


def _srt_accepts(a: SRT, string: Sequence[SymEvent], schema: Schema) -> dict[Outputs, Lit]:
    """Per outputs, the condition that a path of ``a`` marking exactly there fires on every
    element of ``string`` and ends final (the registers those the path wrote)."""
    found: dict[Outputs, list[Lit]] = {}
    for path in paths(a, len(string)):
        regs = empty_registers(a.registers(), schema, "a")
        found.setdefault(tuple(edge.mark for edge in path), []).append(
            path_fires(path, string, regs))
    return {m: disj(*c) for m, c in found.items()}


def _matches(d: LazyDSRT, e: Expr, s: Stream) -> tuple[set[Match], set[Match], set[Match]]:
    """What the DSRT ``d``, the engine ``srt`` and the reference report on ``s`` (policy
    ``literal``: the marks of the whole string)."""
    query = Query.of(e, policy="literal")
    return set(d.run(s)), set(engine("srt").compile(query).run(s)), query.reference(s)


def _explored(e: Expr, bound: int, schema: Schema | None, timeout_ms: int,
              d: LazyDSRT | None, claim: str
              ) -> Iterator[tuple[LazyDSRT, list[SymEvent], list[Walk], SRT,
                                  dict[Outputs, Lit]] | Result]:
    """The DSRT and its walks per length ``0 .. bound``, with the string they read, the
    SRT and what it accepts on that string (:func:`_srt_accepts`); an :class:`Unknown`
    (with the largest length decided) ends it."""
    try:
        d = d or lazy_dsrt(e)
    except Unsupported as err:
        yield Unknown(claim, str(err))
        return
    a = compile_sremo(e)
    schema = schema or schema_of(a, d.srt)
    string = symbolic_string(schema, bound)
    placeholder = symbolic_event(schema, "sharp")
    walks = [Walk(d.start, (None,), (), ())]
    for n in range(bound + 1):
        if n:
            try:
                walks = _step(d, walks, string, placeholder, timeout_ms)
            except (TooManyWalks, _GaveUp) as err:
                yield Unknown(claim, f"{err} (decided up to {n - 1} elements)")
                return
        try:
            srt = _srt_accepts(a, string[:n], schema)
        except TooManyPaths as err:
            yield Unknown(claim, f"{err} (decided up to {n - 1} elements)")
            return
        yield d, string[:n], walks, a, srt


def marked_equivalence(e: Expr, bound: int, *, schema: Schema | None = None,
                       timeout_ms: int = TIMEOUT_MS, dsrt: LazyDSRT | None = None) -> Result:
    """The DSRT with marks of ``e`` (``dsrt``, default the engine's) and its SRT accept
    the same strings with the same marks, for strings of at most ``bound`` elements."""
    claim = f"srt and dsrt accept the same strings with the same marks, of at most " \
            f"{bound} elements"
    replayed = 0
    for step in _explored(e, bound, schema, timeout_ms, dsrt, claim):
        if not isinstance(step, tuple):
            return step
        d, string, walks, _, srt = step
        n = len(string)
        ours = _dsrt_accepts(d, walks)
        differ = z3.Or(z3.BoolVal(False), *(
            as_z3(srt.get(m, False)) != as_z3(ours.get(m, False))
            for m in sorted(set(srt) | set(ours))))
        out = solve([differ, *string_constraints(string)], timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, f"{out.reason} at length {n} (decided up to {n - 1})")
        found = _differs(d, e, concrete_string(out.model, string), claim) \
            if out.model is not None else _replay(d, e, walks, string, claim, timeout_ms)
        if not isinstance(found, int):
            return found
        replayed += found
    return Proved(claim, bound, note=f"the dsrt's {replayed} accepting walks replayed "
                  "through its run on a witness string each")


def _differs(d: LazyDSRT, e: Expr, s: Stream, claim: str) -> Result:
    """The counterexample ``s``, replayed: the engines report different marks on it."""
    got, srt_said, reference = _matches(d, e, s)
    if got == srt_said:
        return Unknown(claim, "Z3's model did not replay through the engines")
    return CounterExample(claim, s, note=f"the dsrt engine reports {_listed(got)}, the srt "
                          f"engine {_listed(srt_said)}, the reference {_listed(reference)}")


def _replay(d: LazyDSRT, e: Expr, walks: list[Walk], string: Sequence[SymEvent],
            claim: str, timeout_ms: int) -> int | Result:
    """Each walk ending in a final state (at most :data:`MAX_WITNESSES`), as a string
    satisfying its path condition, run through the DSRT's own run (policy ``literal``):
    it must report the walk's marks. The number replayed; else a counterexample when the
    ``srt`` engine reports other marks on that string, or ``unknown`` (the encoding and
    the DSRT's tests differ)."""
    done = 0
    for w in walks:
        if not d.finals(w.sid) or done >= MAX_WITNESSES:
            continue
        out = solve([*w.condition, *string_constraints(string)], timeout_ms)
        if out.model is None:
            return Unknown(claim, f"a witness of an accepting walk: {out.reason or out.status}")
        s = concrete_string(out.model, string)
        marks = [i for i, m in enumerate(w.marks) if m]
        if (Match.marked(marks) if marks else Match.of({})) not in set(d.run(s)):
            found = _differs(d, e, s, claim)
            return found if isinstance(found, CounterExample) else Unknown(
                claim, f"the dsrt's run does not report the marks {marks} of its walk on "
                "the witness string")
        done += 1
    return done


def marked_complement(e: Expr, bound: int, *, schema: Schema | None = None,
                      timeout_ms: int = TIMEOUT_MS, dsrt: LazyDSRT | None = None) -> Result:
    """Alg. 8 on the DSRT with marks: the strings of at most ``bound`` elements on which
    no sequence of outputs leads to a final state are exactly those the SRT rejects."""
    claim = f"the complement accepts exactly the strings of at most {bound} elements " \
            "the automaton rejects"
    for step in _explored(e, bound, schema, timeout_ms, dsrt, claim):
        if not isinstance(step, tuple):
            return step
        d, string, walks, a, accepted_by = step
        n = len(string)
        srt = disj(*accepted_by.values())
        complement = z3.Not(as_z3(disj(*_dsrt_accepts(d, walks).values())))
        out = solve([complement == as_z3(srt), *string_constraints(string)], timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, f"{out.reason} at length {n} (decided up to {n - 1})")
        if out.status == "sat":
            assert out.model is not None
            s = concrete_string(out.model, string)
            got, _, reference = _matches(d, e, s)
            rejected, accepted = not got, accepts(a, s)
            if rejected != accepted:
                return Unknown(claim, "Z3's model did not replay through the engines")
            both = "both accept it" if accepted else "both reject it"
            return CounterExample(claim, s, note=f"{both} (the dsrt engine reports "
                                  f"{_listed(got)}); the reference "
                                  f"{'accepts' if reference else 'rejects'} it under e")
    return Proved(claim, bound)


def _listed(found: set[Match]) -> str:
    if not found:
        return "no match"
    marks = sorted(sorted(p for _, ps in m.bindings for p in ps) for m in found)
    return ", ".join("{" + ", ".join(map(str, m)) + "}" for m in marks)
