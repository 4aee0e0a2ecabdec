"""Negation: seed 004, Cor. 4.12 (report Cor. 43) and Alg. 8: the complement automaton
accepts exactly the strings the original rejects.

:func:`complement_exact` asks Z3 for a symbolic string of at most ``bound``
elements that both automata accept, or both reject
(:func:`kleene.proofs.srt.symbolic.acceptance`); :func:`negation_exact` applies
it to a count-windowed expression ``e = body[1..w]`` and the complement the
engine builds (:func:`complement_of`: Alg. 8 on the SRT, or Alg. 7 with register
copies on the unrolled body when it writes then reads a register), on strings
of at most ``w`` elements. A counterexample is replayed through both automata (the
engine's edge tests) and carries the reference's verdict on ``e`` (Def. 18).
"""

from __future__ import annotations

import z3

from kleene.engines.srt.automaton import SRT
from kleene.engines.srt.compile import MAX_STATES, compile_sremo
from kleene.engines.srt.complement import complement, complement_with_copies, reads_written
from kleene.engines.srt.unroll import boundary_marked, unroll
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
from kleene.reference.errors import Unsupported
from kleene.reference.sremo.expressions import Expr, Window
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


def complement_of(e: Expr) -> SRT:
    """The complement the engine builds for ``e``: Alg. 8 on its SRT when it reads no
    register it writes; else, for ``e = body[1..w]`` with a boundary-marked body, Alg. 7
    with register copies on the unrolled body (Algs. 3–6) then Alg. 8
    (:func:`~kleene.engines.srt.complement.complement_with_copies`). Any other
    expression is :class:`Unsupported`, with the reason."""
    a = compile_sremo(e)
    clash = reads_written(a)
    if not clash:
        return complement(a, MAX_STATES)
    if isinstance(e, Window) and isinstance(e.width, int):
        body = compile_sremo(e.body)
        if boundary_marked(body):
            return complement_with_copies(unroll(body, e.width, MAX_STATES), MAX_STATES,
                                          "proof")
    raise Unsupported(f"the SRT reads register(s) it writes ({', '.join(sorted(clash))}): "
                      "the engine complements it only with register copies, which need a "
                      "count window e[1..w] at the top and a body whose accepted strings "
                      "start and end marked (report Algs. 3-6)")


def negation_exact(e: Expr, *, bound: int | None = None, schema: Schema | None = None,
                   timeout_ms: int = TIMEOUT_MS) -> Result:
    """The complement of ``e``'s SRT (:func:`complement_of`) against the SRT, on strings
    up to the window."""
    w = count_width(e) if bound is None else bound
    a = compile_sremo(e)
    c = complement_of(e)
    r = complement_exact(a, c, w, schema=schema or schema_of(a, c), timeout_ms=timeout_ms)
    if isinstance(r, CounterExample):
        verdict = "accepts" if reference_accepts(e, r.stream) else "rejects"
        return CounterExample(r.claim, r.stream, note=f"{r.note}; the reference {verdict} "
                              "it under e")
    return r
