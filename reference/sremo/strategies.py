"""Selection strategies as operators: seed 004, report Sec. 5.2, Defs. 44 and 45
(paper Def. 4.13).

A strategy is not a policy over a match set: it is an operator that rewrites
its operand into plain SREMO, which then has the ordinary semantics of
Def. 17. :func:`rewrite` removes every :class:`Strategy` node.

- skip-till-any-match, Def. 44: ``⟲(e1, ..., en) := e1 · (⊤↑⊗)* · e2 ··· (⊤↑⊗)* · en``.
- skip-till-next-match, Def. 45: ``@(e1, ..., en) := e1 · (!e2)* · e2 ··· (!en)* · en``.
  Read literally, ``(!e2)*`` skips *any* gap of two or more elements (each
  such gap is one piece outside Lang(e2) when e2 reads one element), so later
  instances of e2 are not ignored (``docs/errata.md#seed-004-def45-next``).
  The normative reading is the one the text states ("between instances of e1
  and e2, no other instance of e2 may occur") and Wayeb implements
  (``SelectionUtils``: ``R1;!(T*;R2;T*);R2``): the gap is
  ``!((⊤↑⊗)* · e2 · (⊤↑⊗)*)``. When e2 is a condition φ this equals the
  logical negation ``(¬φ ↑ ⊗)*`` the report suggests (and needs no window),
  except on elements where φ is unknown (a missing attribute): those are not
  instances of e2, so the gap may skip them, while ``¬φ`` would not hold.
  ``reading="literal"`` keeps Def. 45 as printed.
- On an iteration (the report: "similar definitions may be provided"; these
  are Wayeb's): ``⟲(e*) := ϵ + e · ((⊤↑⊗)* · e)*`` and
  ``@(e*) := ϵ + e · (gap(e) · e)*``.
- On any other operator (a disjunction, a condition, a window, ...) a strategy
  has no effect (Sec. 5.2: "a selection strategy applied on a disjunction
  operator has no effect"); nested strategies apply to their own operand only.
"""

from __future__ import annotations

from kleene.reference.errors import PatternError
from kleene.reference.sremo.expressions import (
    SKIP,
    Choice,
    Concat,
    Epsilon,
    Expr,
    Intersect,
    Not,
    Star,
    Strategy,
    Window,
)

READINGS = ("normative", "literal")


def rewrite(e: Expr, reading: str = "normative") -> Expr:
    """``e`` with every strategy operator replaced by its definition (innermost first)."""
    if reading not in READINGS:
        raise PatternError(f"unknown reading {reading!r} of Def. 45; choose normative or literal")
    if isinstance(e, (Choice, Concat, Intersect)):
        return type(e)(tuple(rewrite(p, reading) for p in e.parts))
    if isinstance(e, Star):
        return Star(rewrite(e.body, reading))
    if isinstance(e, Window):
        return Window(rewrite(e.body, reading), e.width)
    if isinstance(e, Not):
        return Not(rewrite(e.body, reading))
    if isinstance(e, Strategy):
        return apply(e.kind, rewrite(e.body, reading), reading)
    return e


def strict_contiguity(e: Expr) -> Expr:
    """``e`` with every strategy operator removed, its operand kept: the same sequence
    under strict contiguity (report Sec. 5.2: plain concatenation; the benchmark and
    demo compare ``srt`` with ``dsrt`` on such variants of Wayeb's queries)."""
    if isinstance(e, (Choice, Concat, Intersect)):
        return type(e)(tuple(strict_contiguity(p) for p in e.parts))
    if isinstance(e, Star):
        return Star(strict_contiguity(e.body))
    if isinstance(e, Window):
        return Window(strict_contiguity(e.body), e.width)
    if isinstance(e, Not):
        return Not(strict_contiguity(e.body))
    if isinstance(e, Strategy):
        return strict_contiguity(e.body)
    return e


def apply(kind: str, body: Expr, reading: str = "normative") -> Expr:
    """The strategy ``kind`` applied to the top-level operator of ``body`` (which holds no
    strategy any more)."""
    if isinstance(body, Concat):
        out: list[Expr] = [body.parts[0]]
        for part in body.parts[1:]:
            out += [gap(kind, part, reading), part]
        return Concat(tuple(out))
    if isinstance(body, Star):
        e = body.body
        return Choice((Epsilon(), Concat((e, Star(Concat((gap(kind, e, reading), e)))))))
    return body


def gap(kind: str, following: Expr, reading: str = "normative") -> Expr:
    """What a strategy lets a match skip before ``following``."""
    if kind == "any":
        return Star(SKIP)
    if reading == "literal":
        return Star(Not(following))
    return Not(Concat((Star(SKIP), following, Star(SKIP))))
