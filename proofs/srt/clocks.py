"""Time windows of SREMO (``e[WITHIN τ]``, docs/semantics.md "SREMO time windows"): the
SRT's clocks against the window's definition, on symbolic strings with timestamps.

The ``srt`` engine compiles ``body[WITHIN τ]`` into the body's SRT with a hidden
register holding the first marked element and a clock test ``~.ts − @w.ts ≤ τ``
on the marking transitions (:mod:`kleene.engines.srt.windows`). The definition
(:mod:`kleene.reference.sremo.semantics`) keeps a pair of the body when the
timestamps of its marks span at most τ. On a run of the body's SRT the marks
are the positions where the path's transitions mark, so "``s`` is in
``Lang(body[WITHIN τ])``" is, per path of the body's SRT to a final state,
"every transition fires" and "the last marked element's ``ts`` minus the first's
is at most τ" (no mark: any span). :func:`time_window_exact` asks Z3, per length
up to the bound, for a string the clocked SRT and this formula disagree on; a
counterexample is replayed through the engine's edge tests and the reference
(Def. 18) before it is returned.

The DSRT and the complement of a time-windowed expression are proved on the DSRT
with marks the engine ``dsrt`` runs it on (:mod:`kleene.proofs.srt.marked`): the
output-agnostic DSRT (report Alg. 7 / Alg. 8) determinizes count windows only, a time
window bounding time, not the number of elements (no unrolling, report Alg. 4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from kleene.engines.srt.automaton import SRT, Edge
from kleene.engines.srt.compile import compile_sremo
from kleene.proofs.encode import Lit, SymEvent
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema, in_timestamp_units, timestamp_unit, unit_less
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.proofs.srt.symbolic import (
    TooManyPaths,
    acceptance,
    accepts,
    concrete_string,
    schema_of,
    string_constraints,
    symbolic_string,
)
from kleene.reference.durations import Duration
from kleene.reference.errors import Unsupported
from kleene.reference.sremo.expressions import Expr, Window, children, walk
from kleene.reference.sremo.semantics import accepts as reference_accepts


def time_windows(e: Expr) -> list[Duration]:
    """The widths of the time windows ``[WITHIN τ]`` in ``e``."""
    return [x.width for x in walk(e) if isinstance(x, Window) and isinstance(x.width, Duration)]


def in_units(e: Expr, time_unit: str | None = None) -> Expr:
    """``e`` with every time window in timestamp units of ``time_unit`` (default
    :func:`~kleene.proofs.schema.timestamp_unit`): the bounded proofs read unit-less
    timestamps."""
    unit = timestamp_unit(time_windows(e), time_unit)

    def rebuilt(x: Expr) -> Expr:
        parts = tuple(rebuilt(c) for c in children(x))
        if isinstance(x, Window) and isinstance(x.width, Duration):
            return Window(parts[0], in_timestamp_units(x.width, unit))
        if not parts or parts == children(x):
            return x
        return replace(x, **({"body": parts[0]} if hasattr(x, "body") else
                             {"parts": parts}))
    return rebuilt(e)


def window_bound(e: Expr) -> int | float:
    """τ of ``e = body[WITHIN τ]`` (inclusive reading, unit-less timestamps)."""
    if not (isinstance(e, Window) and e.is_time):
        raise Unsupported("the time-window proof needs a time window e[WITHIN τ] at the top")
    assert not isinstance(e.width, int)
    return unit_less(e.width)


def within(tau: int | float) -> Callable[[Sequence[Edge], Sequence[SymEvent]], Lit]:
    """``also`` for :func:`~kleene.proofs.srt.symbolic.acceptance`: the path's marked
    elements span at most ``tau`` (timestamps are non-decreasing: last minus first)."""
    def span(path: Sequence[Edge], string: Sequence[SymEvent]) -> Lit:
        marked = [u for e, u in zip(path, string, strict=True) if e.mark]
        return True if not marked else marked[-1].ts - marked[0].ts <= tau
    return span


def time_window_exact(e: Expr, bound: int, *, schema: Schema | None = None,
                      timeout_ms: int = TIMEOUT_MS, clocked: SRT | None = None) -> Result:
    """The clocked SRT of ``e = body[WITHIN τ]`` (``clocked``, default the engine's)
    accepts exactly the strings of at most ``bound`` elements that a run of the body's
    SRT accepts with its marks within τ."""
    tau = window_bound(e)
    assert isinstance(e, Window)
    claim = f"the SRT's clocks accept exactly the strings whose marks span at most {tau}"
    clocked, body = clocked or compile_sremo(e), compile_sremo(e.body)
    schema = schema or schema_of(clocked, body)
    for n in range(bound + 1):
        string = symbolic_string(schema, n)
        try:
            differ = acceptance(clocked, string, schema, "a") != acceptance(
                body, string, schema, "b", also=within(tau))
        except TooManyPaths as err:
            return Unknown(claim, str(err))
        out = solve([differ, *string_constraints(string)], timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, f"{out.reason} at length {n}")
        if out.status == "sat":
            assert out.model is not None
            s = concrete_string(out.model, string)
            engine, reference = accepts(clocked, s), reference_accepts(e, s)
            if engine == reference:
                return Unknown(claim, "Z3's model did not replay through the engine and "
                               "the reference")
            said = "accepts" if engine else "rejects"
            return CounterExample(claim, s, note=f"the SRT {said} it, the reference does not")
    return Proved(claim, bound)
