"""Hypothesis strategies for SREMO expressions (seed 004 and its extended report, cited
"report"; docs/architecture.md, Style 6), in the style of
:mod:`kleene.conformance.strategies` (whose default alphabet of labels, attribute
``L``, they share, so that SREMO runs over the same generated streams).

Expressions are well-formed (report Def. 15, with windows, intersection, windowed
negation and strategies): a register is read only after some part wrote it; atoms
are marked more often than not, so that matches are common; a negation is windowed
and given marked neighbours, so that matches cross it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from kleene.conformance.regex_strategies import regexes
from kleene.conformance.strategies import LABELS
from kleene.reference.conditions import LIKE, TRUE, And, Attr, Cmp, Condition, Const, Or
from kleene.reference.conditions import Not as NotCondition
from kleene.reference.durations import Duration
from kleene.reference.sremo.expressions import (
    HEAD,
    SKIP,
    Atom,
    Choice,
    Concat,
    Epsilon,
    Intersect,
    Not,
    Star,
    Strategy,
    Window,
    check,
)

_LABELS = st.sampled_from(LABELS)

#: Register names of drawn SREMO expressions.
REGISTERS = ("r", "s")
_SREMO_WINDOWS = st.integers(1, 4)


@st.composite
def sremo_conditions(draw: st.DrawFn, written: frozenset[str] = frozenset(), *,
                     labels: st.SearchStrategy[str] = _LABELS, like: bool = False) -> Condition:
    """A condition of report Def. 10 over the head ``~`` and the registers in ``written``:
    a label test, TRUE, or a comparison with a register's ``ID`` or ``V``; with ``like``
    also ``~.L LIKE 'regex'`` (a drawn pattern over the labels), its negation, and
    ``~.ID LIKE`` (unknown: ``ID`` holds numbers)."""
    kinds = ["eq", "ne", "ne", "true", "true", "or"] + (["reg", "reg", "and"] if written else [])
    kinds += ["like", "like", "like"] if like else []
    kind = draw(st.sampled_from(kinds), label="condition kind")
    label = Attr(HEAD, "L")
    if kind == "true":
        return TRUE
    if kind == "like":
        attr = draw(st.sampled_from(("L", "L", "L", "ID")), label="attribute matched")
        test = Cmp(LIKE, Attr(HEAD, attr), Const(draw(regexes(alphabet="".join(LABELS)),
                                                      label="pattern")))
        return NotCondition(test) if draw(st.booleans(), label="negated") else test
    if kind == "or":
        x, y = draw(st.lists(labels, min_size=2, max_size=2, unique=True), label="labels")
        return Or((Cmp("=", label, Const(x)), Cmp("=", label, Const(y))))
    if kind in ("eq", "ne"):
        return Cmp("=" if kind == "eq" else "!=", label, Const(draw(labels, label="label")))
    r = draw(st.sampled_from(sorted(written)), label="register read")
    attr, op = draw(st.sampled_from((("ID", "="), ("ID", "!="), ("V", "<"), ("V", ">="))),
                    label="register comparison")
    cmp = Cmp(op, Attr(HEAD, attr), Attr(r, attr))
    if kind == "and":
        test = Cmp("=", label, Const(draw(labels, label="label")))
        return And((test, cmp)) if draw(st.booleans(), label="plain") else NotCondition(cmp)
    return cmp


@st.composite
def sremo_expressions(draw: st.DrawFn, *, max_depth: int = 3,
                      windows: st.SearchStrategy[int] = _SREMO_WINDOWS,
                      time_windows: bool = False, negation: bool = True,
                      intersection: bool = True, strategies: bool = True,
                      written: frozenset[str] = frozenset(), like: bool = False):  # -> Expr
    """A well-formed SREMO (report Def. 15 with windows, intersection, windowed negation
    and strategies): registers written (``-> r``) and read by later conditions, marked
    and unmarked atoms; ``time_windows`` draws ``[WITHIN τ]`` windows as well, ``like``
    conditions with ``LIKE`` (:func:`sremo_conditions`)."""
    e, _ = draw(_sremo(max_depth, written, windows, time_windows, negation, intersection,
                       strategies, True, like), label="expression")
    check(e)
    return e


@st.composite
def _sremo(draw: st.DrawFn, depth: int, written: frozenset[str],
           windows: st.SearchStrategy[int], time_windows: bool, negation: bool,
           intersection: bool, strategies: bool, may_write: bool, like: bool = False):
    """``(e, registers e may write)``, reading only registers in ``written``."""
    kinds = ["atom"] * 3
    if depth > 0:
        kinds += ["concat", "concat", "choice", "star", "window"]
        kinds += ["intersect"] * intersection + ["not"] * negation + ["strategy"] * strategies
        kinds += ["eps"]
    kind = draw(st.sampled_from(kinds), label="operator")

    def sub(w: frozenset[str], writes: bool = may_write, d: int = depth - 1):
        return _sremo(d, w, windows, time_windows, negation, intersection, strategies, writes,
                      like)

    if kind == "eps":
        return Epsilon(), frozenset()
    if kind == "atom":
        cond = draw(sremo_conditions(written, like=like), label="condition")
        write = draw(st.sampled_from((None, None) + REGISTERS), label="write") \
            if may_write else None
        marked = draw(st.sampled_from((True, True, True, False)), label="marked")
        return Atom(cond, marked, write), \
            frozenset({write} if write else ())
    if kind == "concat":
        n = draw(st.integers(2, 3), label="parts")
        parts, w, out = [], written, frozenset[str]()
        for _ in range(n):
            p, pw = draw(sub(w), label="part")
            parts.append(p)
            w, out = w | pw, out | pw
        return Concat(tuple(parts)), out
    if kind == "choice":
        a, aw = draw(sub(written), label="left")
        b, bw = draw(sub(written), label="right")
        return Choice((a, b)), aw | bw
    if kind == "star":
        a, aw = draw(sub(written), label="body")
        return Star(a), aw
    if kind == "intersect":
        a, _ = draw(sub(written, False), label="left")
        b, _ = draw(sub(written, False), label="right")
        if draw(st.booleans(), label="loose right part"):
            # marks like the left part does, position by position: the product is seldom empty
            cond = draw(sremo_conditions(written, like=like), label="condition")
            b = Star(Choice((Atom(cond, True), Atom(TRUE, False))))
        return Intersect((a, b)), frozenset()
    if kind == "not":
        a, _ = draw(sub(written, False), label="negated")
        neg = Window(Not(a), draw(windows, label="width"))
        # a negation marks nothing: give it marked neighbours so that matches cross it
        first = Atom(draw(sremo_conditions(written, like=like), label="before"), True)
        last = Atom(draw(sremo_conditions(written, like=like), label="after"), True)
        return Concat((first, neg, last)), frozenset()
    if kind == "strategy":
        which = draw(st.sampled_from(("any", "next")), label="strategy")
        n = draw(st.integers(2, 3), label="parts")
        parts, w, out = [], written, frozenset[str]()
        for _ in range(n):
            p, pw = draw(sub(w, d=0) if which == "next" else sub(w), label="part")
            parts.append(p)
            w, out = w | pw, out | pw
        return Strategy(which, Concat(tuple(parts))), out
    a, aw = draw(sub(written), label="windowed")
    if time_windows and draw(st.booleans(), label="time window"):
        return Window(a, Duration(draw(st.integers(0, 4), label="tau"))), aw
    return Window(a, draw(windows, label="width")), aw


@st.composite
def windowed_sremo_expressions(draw: st.DrawFn, *, max_depth: int = 2):  # -> Window
    """A drawn SREMO under a top-level count ``[1..w]`` or time ``[WITHIN τ]`` window
    (the windows by which a stream may be cut into slices)."""
    e = draw(sremo_expressions(max_depth=max_depth), label="body")
    width = draw(st.integers(1, 4) | st.integers(0, 6).map(Duration), label="width")
    return Window(e, width)


@st.composite
def gapped_sremo_expressions(draw: st.DrawFn, *, max_atoms: int = 3):  # -> Expr
    """``⟲(mark φ1 -> r, ..., mark φn)`` (report Def. 44): marking atoms joined by gaps,
    sometimes after a leading gap and under a time window (SREMO's filterable form)."""
    n = draw(st.integers(1, max_atoms), label="atoms")
    atoms, written = [], frozenset[str]()
    for _ in range(n):
        cond = draw(sremo_conditions(written), label="condition")
        write = draw(st.sampled_from((None, *REGISTERS)), label="write")
        atoms.append(Atom(cond, True, write))
        written |= {write} if write else set()
    body: Any = Strategy("any", Concat(tuple(atoms))) if n > 1 else atoms[0]
    if draw(st.booleans(), label="leading gap"):
        body = Concat((Star(SKIP), body))
    if draw(st.booleans(), label="timed"):
        body = Window(body, Duration(draw(st.integers(0, 6), label="tau")))
    return body
