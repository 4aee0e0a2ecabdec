"""Negation: seed 004, Cor. 4.12 (report Cor. 43) and Alg. 8: the complement automaton
accepts exactly the strings the original rejects.

:func:`complement_exact` asks Z3 for a symbolic string of at most ``bound``
elements that both automata accept, or both reject
(:func:`kleene.proofs.srt.symbolic.acceptance`); :func:`negation_exact` applies
it to a count-windowed expression ``e = body[1..w]`` and the complement
:func:`kleene.engines.srt.complement.complement` builds of its SRT, on strings of
at most ``w`` elements. A counterexample is replayed through both automata (the
engine's edge tests) and carries the reference's verdict on ``e`` (Def. 18).
"""

from __future__ import annotations

import z3

from kleene.engines.srt.automaton import SRT
from kleene.engines.srt.compile import MAX_STATES, compile_sremo
from kleene.engines.srt.complement import complement
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.proofs.srt.dsrt import count_width
from kleene.proofs.srt.symbolic import (
    TooManyPaths,
    acceptance,
    accepts,
    concrete_string,
    schema_of,
    string_constraints,
    symbolic_string,
)
from kleene.reference.sremo.expressions import Expr
from kleene.reference.sremo.semantics import accepts as reference_accepts


def complement_exact(a: SRT, c: SRT, bound: int, *, schema: Schema | None = None,
                     timeout_ms: int = TIMEOUT_MS) -> Result:
    """``c`` accepts exactly the strings of at most ``bound`` elements ``a`` rejects."""
    claim = f"the complement accepts exactly the strings of at most {bound} elements " \
            "the automaton rejects"
    schema = schema or schema_of(a, c)
    for n in range(bound + 1):
        string = symbolic_string(schema, n)
        try:
            same = acceptance(a, string, schema, "a") == acceptance(c, string, schema, "c")
        except TooManyPaths as err:
            return Unknown(claim, str(err))
        out = solve([same if isinstance(same, bool) else z3.simplify(same),
                     *string_constraints(string)], timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, f"{out.reason} at length {n}")
        if out.status == "sat":
            assert out.model is not None
            s = concrete_string(out.model, string)
            both = accepts(a, s)
            if both != accepts(c, s):
                return Unknown(claim, "Z3's model did not replay through the engine's guards")
            return CounterExample(claim, s, note="both accept it" if both else "both reject it")
    return Proved(claim, bound)


def negation_exact(e: Expr, *, bound: int | None = None, schema: Schema | None = None,
                   timeout_ms: int = TIMEOUT_MS) -> Result:
    """The complement of ``e``'s SRT (Alg. 8) against the SRT, on strings up to the window."""
    w = count_width(e) if bound is None else bound
    a = compile_sremo(e)
    r = complement_exact(a, complement(a, MAX_STATES), w, schema=schema,
                         timeout_ms=timeout_ms)
    if isinstance(r, CounterExample):
        verdict = "accepts" if reference_accepts(e, r.stream) else "rejects"
        return CounterExample(r.claim, r.stream, note=f"{r.note}; the reference {verdict} "
                              "it under e")
    return r
