"""Random draws of the generated corpus (:mod:`kleene.conformance.corpus`): patterns and streams.

Deterministic given the ``random.Random``; the shapes follow
:mod:`kleene.conformance.strategies` (small alphabets, ties, group variables,
``prev``, key equalities for partitioning, small windows) so that small
examples separate the policies. Operator patterns cover ``SEQ``, ``AND``,
``OR``, ``NOT`` (leading, inner, trailing), iteration and repetition, and
their pairs; a draw the well-formedness check rejects is drawn again.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from kleene.reference.conditions import Attr, Cmp, Condition, Const, Or, Prev
from kleene.reference.durations import Duration
from kleene.reference.errors import KleeneError
from kleene.reference.languages import language_named
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
)
from kleene.reference.ses.pattern import SESPattern, Variable

LABELS = ("A", "B", "C")

#: The longest generated stream.
MAX_EVENTS = 12
NAMES = ("a", "b", "c", "d", "e")


def citations(language: str) -> list[dict[str, str]]:
    """The seed sections a generated test of ``language`` exercises (its registry
    entry's ``specification``)."""
    return [{"seed": seed, "section": section}
            for seed, section in language_named(language).specification]


def positional(rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``ts`` is the position of every row (the SREMO route needs it)."""
    return bool(rows) and all(r["ts"] == i for i, r in enumerate(rows)) and "type" in rows[0]


def stream(rng: random.Random, *, positional: bool = False, types: bool = False,
           size: int | None = None) -> list[dict[str, Any]]:
    """A stream of 2 to :data:`MAX_EVENTS` events: SES rows ``L, ID, V`` or operator rows
    ``type, x, ID``."""
    n = size if size is not None else rng.randint(2, MAX_EVENTS)
    ts, out = 0, []  # type: tuple[int | float, list[dict[str, Any]]]
    for i in range(n):
        ts = i if positional else ts + (rng.choice((0, 1, 1, 2)) if out else 0)
        if types:
            out.append({"ts": ts, "type": rng.choice(LABELS), "x": rng.randint(0, 2),
                        "ID": rng.randint(0, 1)})
        else:
            out.append({"ts": ts, "L": rng.choice(LABELS), "ID": rng.randint(0, 1),
                        "V": rng.randint(0, 3)})
    return out


def _property(rng: random.Random, var: str) -> list[Condition]:
    kind = rng.choice(("none", "eq", "eq", "ne", "or"))
    label = Attr(var, "L")
    if kind == "none":
        return []
    if kind == "or":
        x, y = rng.sample(LABELS, 2)
        return [Or((Cmp("=", label, Const(x)), Cmp("=", label, Const(y))))]
    return [Cmp("=" if kind == "eq" else "!=", label, Const(rng.choice(LABELS)))]


def ses_pattern(rng: random.Random) -> SESPattern:
    """An SES pattern of 1–3 variables in 1–3 sets, with properties, relationships, τ."""
    n = rng.randint(1, 3)
    k = rng.randint(1, n)
    cuts = sorted(rng.sample(range(1, n), k - 1)) if k > 1 else []
    variables = tuple(Variable(NAMES[i], group=rng.random() < 0.35) for i in range(n))
    bounds = [0, *cuts, n]
    sets = tuple(variables[bounds[j]:bounds[j + 1]] for j in range(k))
    conds: list[Condition] = []
    for v in variables:
        conds += _property(rng, v.name)
    names = [v.name for v in variables]
    if len(names) >= 2 and rng.random() < 0.6:
        x, y = rng.sample(names, 2)
        attr, op = rng.choice((("ID", "="), ("ID", "="), ("V", "<"), ("V", "!=")))
        conds.append(Cmp(op, Attr(x, attr), Attr(y, attr)))
    for v in variables:
        if v.group and rng.random() < 0.3:
            conds.append(Cmp(rng.choice(("<", "<=")), Prev(v.name, "V"), Attr(v.name, "V")))
    return SESPattern(sets, tuple(conds), Duration(rng.randint(0, 6)))


def _leaf(rng: random.Random, names: list[str]) -> Node:
    name = names.pop(0)
    t = rng.choice(LABELS)
    kind = rng.choice(("prim", "prim", "prim", "plus", "rep"))
    if kind == "plus":
        return Kleene(Primitive(t, name))
    if kind == "rep":
        low = rng.randint(1, 2)
        return Kleene(Primitive(t, name), low, rng.choice((low, low + 1)))
    return Primitive(t, name)


def _part(rng: random.Random, names: list[str], depth: int) -> Node:
    kind = rng.choice(("leaf", "leaf", "leaf", "or", "or", "and", "iter")) if depth else "leaf"
    if kind == "and":
        return Conj((_leaf(rng, names), _leaf(rng, names)))
    if kind == "or":
        return Disj((_leaf(rng, names), _leaf(rng, names)))
    if kind == "iter":
        return Kleene(Seq((Primitive(rng.choice(LABELS), names.pop(0)),
                           Primitive(rng.choice(LABELS), names.pop(0)))))
    return _leaf(rng, names)


def operator_pattern(rng: random.Random, tries: int = 20) -> OperatorPattern | None:
    """A pattern of the regular fragment: a ``SEQ`` of 1–3 parts (leaves, ``AND``,
    ``OR``, an iterated ``SEQ``), sometimes a ``NOT`` before, between or after,
    a property on ``x``, a key equality, a window."""
    for _ in range(tries):
        names = list("abcdefgh")
        parts = [_part(rng, names, 1) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.15:
            where = rng.randint(0, len(parts))
            parts.insert(where, Neg(Primitive(rng.choice(LABELS), names.pop(0))))
        expr: Node = parts[0] if len(parts) == 1 else Seq(tuple(parts))
        used = [v for v in "abcdefgh" if v not in names]
        conds: list[Condition] = []
        if rng.random() < 0.5:
            v = rng.choice(used)
            conds.append(Cmp(rng.choice(("=", "<", "!=")), Attr(v, "x"),
                             Const(rng.randint(0, 2))))
        if len(used) >= 2 and rng.random() < 0.3:
            x, y = rng.sample(used, 2)
            conds.append(Cmp("=", Attr(x, "ID"), Attr(y, "ID")))
        window = Duration(rng.randint(1, 5)) if rng.random() < 0.4 else None
        try:
            return OperatorPattern(expr, tuple(conds), window)
        except KleeneError:
            continue
    return None
