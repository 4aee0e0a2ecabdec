"""The classes of symbolic streams an operator pattern tells apart (seed 003 Sec. 2.1).

The engines and the reference read an event only through the pattern: its
type (``A a``: ``type = 'A'``), the comparisons of Θ (three-valued), the order
of timestamps (``SEQ`` is strict in ``ts``) and the window (``ts`` differences
against τ). :func:`atoms` lists these as Z3 literals over ``n`` symbolic events:

- ``type = T`` for each type of a primitive, per event;
- per pair of events of the pattern's types (events of other types are in no
  match and are filtered by every engine): ``ts_i < ts_j`` (``ts`` is
  non-decreasing, ``SEQ`` strict), ``ts_j − ts_i ≤ τ`` and ``< τ`` (both readings);
- for every comparison of Θ and every placement of its variables on events of
  the variables' types (``prev(v.A)`` on an earlier event than ``v.A``): the
  comparison is true, and is false (unknown is neither).

Two streams that agree on every atom get the same match set from any engine
that reads events only through the pattern, so one stream per satisfiable
assignment of the atoms (:func:`stream_classes`, Z3's models enumerated with
blocking clauses) stands for all streams of ``n`` events: running the engines
and the reference on these streams decides every stream of that length. That
premise is the proof's one assumption (an engine reading an attribute the
pattern does not mention would escape it). ``type`` is required (every event
has a type). An aggregate (``SUM(b.V)``) is placed on every subsequence of events
of its variable's type: an iteration binds one of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fractions import Fraction

import z3
from z3.z3util import get_vars

from kleene.proofs.encode import (
    Binding,
    Lit,
    SymEvent,
    concrete_event,
    conj,
    disj,
    evaluated,
    number,
    symbolic_event,
    truth,
)
from kleene.proofs.nfa.regions import Stamps, stamp_classes
from kleene.proofs.nfa.regions import number as ts_number
from kleene.proofs.schema import Schema, schema_for, unit_less
from kleene.proofs.solver import TIMEOUT_MS, TooManyModels, distinct_models
from kleene.reference.conditions import (
    Agg,
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Or,
    Prev,
)
from kleene.reference.events import Event, Stream
from kleene.reference.operators.pattern import OperatorPattern, primitives

#: At most this many classes of streams are enumerated (all lengths together).
MAX_CLASSES = 30_000


def comparisons(c: Condition) -> Iterator[Cmp]:
    """The comparisons of ``c``."""
    if isinstance(c, Cmp):
        yield c
    elif isinstance(c, And | Or):
        for p in c.parts:
            yield from comparisons(p)
    elif isinstance(c, Not):
        yield from comparisons(c.part)


def types_of(pattern: OperatorPattern) -> dict[str, str | None]:
    """Each variable's event type (``None``: any type), negated variables included."""
    return {p.var: p.type for p in primitives(pattern.expr)}


def schema_of(pattern: OperatorPattern, *, declared: Mapping[str, str] | None = None,
              stream: Stream | None = None, required: Iterable[str] = ()) -> Schema:
    """The pattern's schema (:func:`~kleene.proofs.schema.schema_for`), ``type`` required."""
    typed = [Cmp("=", Attr(v, "type"), Const(t)) for v, t in types_of(pattern).items()
             if t is not None]
    return schema_for([*pattern.conditions, *typed], pattern.window, declared=declared,
                      stream=stream, required=("type", *required))


def window_bound(pattern: OperatorPattern) -> int | float | None:
    """τ in the stream's units (a unit-less stream: a window with a unit is refused)."""
    if pattern.window is None:
        return None
    return unit_less(pattern.window)


def _is(u: SymEvent, t: str | None) -> Lit:
    return True if t is None else u.value("type").kinds[0][2] == z3.StringVal(t)


def reads_ts(pattern: OperatorPattern) -> bool:
    """Whether a condition of ``pattern`` reads a timestamp (``a.ts``, ``prev(a.ts)``)."""
    return any(getattr(t, "attr", None) == "ts" for c in pattern.conditions
               for x in comparisons(c) for t in (x.left, x.right))


def atoms(pattern: OperatorPattern, stream: list[SymEvent], *, times: bool = True
          ) -> list[z3.BoolRef]:
    """The atoms (module docstring) over ``stream``; without the timestamp atoms of pairs
    of events when ``times`` is false."""
    types = types_of(pattern)
    out: list[Lit] = [_is(u, t) for u in stream for t in sorted({t for t in types.values()
                                                                 if t is not None})]
    known = sorted({t for t in types.values() if t is not None})
    typed = [True if None in types.values() else disj(*(_is(u, t) for t in known))
             for u in stream]
    tau = window_bound(pattern)
    pairs = itertools.combinations(range(len(stream)), 2) if times else iter(())
    for i, j in pairs:
        both = conj(typed[i], typed[j])
        gap = stream[j].ts - stream[i].ts
        out += [conj(both, gap > 0)]
        if tau is not None:
            out += [conj(both, gap <= tau), conj(both, gap < tau)]
    for c in dict.fromkeys(x for cond in pattern.conditions for x in comparisons(cond)):
        out += _instances(c, types, stream)
    return [a for a in dict.fromkeys(out) if not isinstance(a, bool)]


def _subsets(n: int) -> list[tuple[int, ...]]:
    """The non-empty subsequences of positions ``0 .. n-1`` (what an iteration may bind)."""
    return [x for k in range(1, n + 1) for x in itertools.combinations(range(n), k)]


def _instances(c: Cmp, types: dict[str, str | None], stream: list[SymEvent]) -> list[Lit]:
    """``c`` true and ``c`` false, per placement of its terms: an attribute or ``prev`` on
    one event, an aggregate (``SUM(b.V)``) on every subsequence of events of ``b``'s type
    (containing ``b``'s current event when ``c`` reads that too)."""
    keys = sorted({(t.var, isinstance(t, Prev)) for t in (c.left, c.right)
                   if isinstance(t, Attr | Prev)})
    summed = sorted({t.var for t in (c.left, c.right) if isinstance(t, Agg)})
    out: list[Lit] = []
    for places in itertools.product(range(len(stream)), repeat=len(keys)):
        at = dict(zip(keys, places, strict=True))
        if any((v, False) in at and at[(v, True)] >= at[(v, False)]
               for v, prev in at if prev):
            continue
        for seqs in itertools.product(_subsets(len(stream)), repeat=len(summed)):
            seq = dict(zip(summed, seqs, strict=True))
            if any((v, False) in at and at[(v, False)] not in seq[v] for v in summed):
                continue
            gate = conj(*(_is(stream[p], types.get(v)) for (v, _), p in at.items()),
                        *(_is(stream[p], types.get(v)) for v in summed for p in seq[v]))
            if gate is False:
                continue
            b = Binding({v: stream[p] for (v, prev), p in at.items() if not prev},
                        {v: stream[p] for (v, prev), p in at.items() if prev},
                        {v: [(True, stream[p]) for p in seq[v]] for v in summed})
            t, f = truth(c, b)
            out += [conj(gate, t), conj(gate, f)]
    return out


def other_type(known: Iterable[str]) -> str:
    """A type no primitive names (the representative of every other type)."""
    name = "other"
    while name in set(known):
        name += "_"
    return name


def stream_classes(pattern: OperatorPattern, bound: int, *, schema: Schema | None = None,
                   limit: int = MAX_CLASSES, timeout_ms: int = TIMEOUT_MS) -> Iterator[Stream]:
    """One stream per class of streams of at most ``bound`` events, shortest first.
    The types are enumerated here (each pattern type, or one other type, per event);
    when no condition reads ``ts`` the timestamps too (:func:`.regions.stamp_classes`,
    independent of the values), and the values by Z3 with the types substituted; else
    both by Z3. :class:`~kleene.proofs.solver.TooManyModels` past ``limit`` classes."""
    schema = schema or schema_of(pattern)
    types = types_of(pattern)
    known = sorted({t for t in types.values() if t is not None})
    other = other_type(known)
    direct = not reads_ts(pattern)
    tau = window_bound(pattern)
    left = limit
    for n in range(bound + 1):
        stream = [symbolic_event(schema, f"e{i}") for i in range(n)]
        constraints: list[Lit] = [c for u in stream for c in u.constraints]
        constraints += [stream[i].ts <= stream[i + 1].ts for i in range(n - 1)]
        every = atoms(pattern, stream, times=not direct)
        for kinds in itertools.product([*known, other], repeat=n):
            fixed = [(u.value("type").kinds[0][2], z3.StringVal(t))
                     for u, t in zip(stream, kinds, strict=True)]
            here = [z3.simplify(z3.substitute(a, *fixed)) for a in every]
            live = [a for a in dict.fromkeys(here) if not z3.is_true(a) and not z3.is_false(a)]
            given = [*constraints, *(x == v for x, v in fixed)]
            typed = tuple(None in types.values() or k != other for k in kinds)
            stamps = (stamp_classes(typed, None if tau is None else Fraction(tau))
                      if direct else None)
            try:
                found = list(_streams(stream, given, live, left, timeout_ms, stamps))
            except TooManyModels as err:
                if str(err).startswith("Z3"):
                    raise
                raise TooManyModels(f"more than {limit} classes of streams") from err
            yield from found
            left -= len(found)


def _timed(atom: z3.BoolRef) -> bool | None:
    """``True`` when ``atom`` reads only timestamps, ``False`` when it reads none."""
    names = {str(v) for v in get_vars(atom)}
    ts = {n for n in names if n.endswith(".ts")}
    return None if ts and ts != names else bool(ts)


def _streams(stream: list[SymEvent], given: list[Lit], live: list[z3.BoolRef], limit: int,
             timeout_ms: int, stamps: Sequence[Stamps] | None = None) -> Iterator[Stream]:
    """One stream per satisfiable assignment of ``live``. ``stamps``: the classes of the
    timestamps, enumerated apart (``live`` then reads no timestamp). Else, when every
    atom reads either only timestamps or none, the two groups are independent too: each
    is enumerated alone by Z3 and the classes are their product."""
    if stamps is not None:
        values = [[concrete_event(m, u, i) for i, u in enumerate(stream)]
                  for m in distinct_models(given, live, limit=limit, timeout_ms=timeout_ms)]
        yield from _product([[ts_number(t) for t in x] for x in stamps], values, limit)
        return
    kinds = [_timed(a) for a in live]
    if None in kinds:
        for model in distinct_models(given, live, limit=limit, timeout_ms=timeout_ms):
            yield Stream(tuple(concrete_event(model, u, i) for i, u in enumerate(stream)))
        return
    timed = [a for a, k in zip(live, kinds, strict=True) if k]
    other = [a for a, k in zip(live, kinds, strict=True) if not k]
    found = [[number(evaluated(m, u.ts)) for u in stream]
             for m in distinct_models(given, timed, limit=limit, timeout_ms=timeout_ms)]
    values = [[concrete_event(m, u, i) for i, u in enumerate(stream)]
              for m in distinct_models(given, other, limit=limit, timeout_ms=timeout_ms)]
    yield from _product(found, values, limit)


def _product(stamps: Sequence[Sequence[int | float]], values: Sequence[Sequence[Event]],
             limit: int) -> Iterator[Stream]:
    """Every timestamp class with every value class (the two are independent)."""
    if len(stamps) * len(values) > limit:
        raise TooManyModels(f"more than {limit} classes of streams")
    for ts in stamps:
        for events in values:
            yield Stream(tuple(Event(i, t, e.type, e.attrs)
                               for i, (t, e) in enumerate(zip(ts, events, strict=True))))
