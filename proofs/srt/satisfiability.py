"""Satisfiability of SREMO (seed 004, report Defs. 15–18) on its ε-free SRT (Thm 19).

- :func:`nonempty`: "no string of at most ``bound`` elements is in ``Lang(e)``",
  refuted by a string the SRT accepts (replayed through the engine's edge tests
  and the reference, Def. 18);
- :func:`dead_branches`: the same per part of every ``+`` (choice) whose
  registers are its own (it reads only registers it writes);
- :func:`unwritten_reads`: per transition, the registers it reads that no path
  from the start writes before it (:func:`kleene.engines.srt.complement.written_before`):
  every run reads ♯ there, so each comparison over them is false (Def. 13 case 2);
- :func:`dead_transitions`: per transition, "no element fires it", registers
  free where some path wrote them and empty where none did; refuted by the
  element and the registers' elements.
"""

from __future__ import annotations

import z3

from kleene.engines.srt.automaton import SRT, Edge
from kleene.engines.srt.compile import compile_sremo
from kleene.engines.srt.complement import written_before
from kleene.proofs.encode import concrete_event, symbolic_event, true_in
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema
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
from kleene.reference.events import Event, Stream
from kleene.reference.sremo.expressions import Choice, Expr, reads, walk, written
from kleene.reference.sremo.semantics import accepts as reference_accepts
from kleene.reference.sremo.text import format_sremo

#: Strings of at most this many elements, when the expression has no count window.
BOUND = 4


def nonempty(e: Expr, bound: int = BOUND, *, schema: Schema | None = None,
             timeout_ms: int = TIMEOUT_MS) -> Result:
    """"``Lang(e)`` has no string of at most ``bound`` elements", or a string it has."""
    claim = f"no string of at most {bound} elements is in Lang(e)"
    a = compile_sremo(e)
    schema = schema or schema_of(a)
    for n in range(bound + 1):
        string = symbolic_string(schema, n)
        try:
            accepted = acceptance(a, string, schema, "a")
        except TooManyPaths as err:
            return Unknown(claim, str(err))
        r = solve([accepted, *string_constraints(string)], timeout_ms)
        if r.status == "unknown":
            return Unknown(claim, f"{r.reason} at length {n}")
        if r.status == "sat":
            assert r.model is not None
            s = concrete_string(r.model, string)
            if accepts(a, s) and reference_accepts(e, s):
                return CounterExample(claim, s, note="the SRT and the reference accept it")
            return Unknown(claim, "Z3's model did not replay")
    return Proved(claim, bound)


def dead_branches(e: Expr, bound: int = BOUND, *, schema: Schema | None = None,
                  timeout_ms: int = TIMEOUT_MS) -> dict[str, Result]:
    """Per part of a choice that reads only registers it writes: :func:`nonempty`."""
    out: dict[str, Result] = {}
    for node in walk(e):
        if isinstance(node, Choice):
            for part in node.parts:
                reading = {r for x in walk(part) for r in _atom_reads(x)}
                if reading <= written(part):
                    out[format_sremo(part)] = nonempty(part, bound, schema=schema,
                                                       timeout_ms=timeout_ms)
    return out


def _atom_reads(x: Expr) -> frozenset[str]:
    condition = getattr(x, "condition", None)
    return reads(condition) if condition is not None else frozenset()


def unwritten_reads(a: SRT) -> dict[Edge, Result]:
    """Per transition reading a register: :class:`Proved` that no path writes one of its
    registers before it (a problem), or a :class:`CounterExample` without a stream when
    some path writes each of them (the claim is refuted by the graph, not by Z3)."""
    before = written_before(a)
    out: dict[Edge, Result] = {}
    for e in a.edges:
        read = e.reads() - {c.register for c in e.clocks}
        if not read:
            continue
        never = sorted(read - before[e.source])
        if never:
            out[e] = Proved(f"no path writes {', '.join(never)} before this transition "
                            "reads it")
        else:
            out[e] = CounterExample(f"no path writes {', '.join(sorted(read))} before this "
                                    "transition reads it", Stream(()),
                                    note="some path writes every register it reads")
    return out


def dead_transitions(a: SRT, *, schema: Schema | None = None,
                     timeout_ms: int = TIMEOUT_MS) -> dict[Edge, Result]:
    """Per transition: :class:`Proved` that no element fires it, or an example."""
    schema = schema or schema_of(a)
    before = written_before(a)
    names = a.registers()
    out: dict[Edge, Result] = {}
    for e in a.edges:
        u = symbolic_event(schema, "u")
        regs = {r: Register(z3.Bool(f"{r}.filled") if r in before[e.source] else False,
                            symbolic_event(schema, f"reg.{r}")) for r in names}
        events = [u, *(x.event for x in regs.values())]
        claim = "no element fires this transition"
        r = solve([fires(e, u, regs), *(c for x in events for c in x.constraints)], timeout_ms)
        if r.status == "unsat":
            out[e] = Proved(claim)
        elif r.status == "unknown":
            out[e] = Unknown(claim, r.reason)
        else:
            assert r.model is not None
            held = [concrete_event(r.model, x.event, 0) for x in regs.values()
                    if true_in(r.model, x.filled)]
            last = concrete_event(r.model, u, 0)
            s = Stream(tuple(Event(i, ev.ts, ev.type, ev.attrs)
                             for i, ev in enumerate([*held, last])))
            out[e] = CounterExample(claim, s, note="the last element fires it, the others "
                                    "are what its registers hold")
    return out

