"""SRT edges and runs over symbolic strings: seed 004, report Def. 13 (conditions over
the head ``~`` and registers), Def. 4 (edges) and Def. 21 (runs), in Z3.

- A *register* is a symbolic event with a flag ``filled`` (a Python Boolean when
  it is known while encoding, as along one path). Def. 13 case 2: a comparison
  that reads an empty register is *false* (not unknown), so ``NOT r.V = 1``
  holds over an empty ``r`` (:func:`satisfied`, as
  :func:`kleene.reference.sremo.valuations.restrict` and the engine's guards);
  any other comparison is the shared three-valued one (:func:`kleene.proofs.encode.compare`).
- An edge *fires* (:func:`fires`) when its guard is satisfied, none of its
  ``unless`` conditions is (the minterms' "not satisfied", report Alg. 7), and
  its clocks hold (``~.ts − r.ts ≤ bound`` over a filled hidden register).
- A *symbolic string* (:func:`symbolic_string`) is ``n`` symbolic events with
  non-decreasing ``ts``. :func:`acceptance` is the formula "the SRT accepts the
  string" (Def. 18, ``Lang(e)``): the disjunction, over the edge paths of length
  ``n`` from the start to a final state, of "every edge of the path fires", the
  registers of each step being the events the path wrote before (static per
  path). Paths are enumerated, pruned to those that can still reach a final
  state; beyond :data:`MAX_PATHS` the encoding stops (:class:`TooManyPaths`).

:func:`accepts` replays a concrete string through the engine's own edge tests
(:func:`kleene.engines.srt.automaton.compile_edge`), so a Z3 counterexample is
checked by the code it is about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from kleene.engines.srt.automaton import SRT, Edge, Held, compile_edge
from kleene.proofs.encode import (
    TV,
    Binding,
    Lit,
    SymEvent,
    compare,
    concrete_event,
    conj,
    disj,
    neg,
    symbolic_event,
    term_value,
)
from kleene.proofs.schema import Schema, schema_for
from kleene.reference.conditions import And, Cmp, Condition, Not, Or, Truth
from kleene.reference.events import Event, Stream
from kleene.reference.sremo.expressions import HEAD, reads

#: The most paths of one length :func:`acceptance` encodes.
MAX_PATHS = 20_000


class TooManyPaths(Exception):
    """The SRT has more than :data:`MAX_PATHS` paths of one length."""


@dataclass(frozen=True)
class Register:
    """A register's content: ``filled`` (♯ when false) and the event it holds."""

    filled: Lit
    event: SymEvent


def _truth(c: Condition, u: SymEvent, regs: Mapping[str, Register]) -> TV:
    if isinstance(c, Cmp):
        current = {HEAD: u, **{r: regs[r].event for r in reads(c)}}
        t, f = compare(c.op, term_value(c.left, Binding(current, {})),
                       term_value(c.right, Binding(current, {})))
        filled = conj(*(regs[r].filled for r in reads(c)))
        return conj(filled, t), disj(neg(filled), f)
    if isinstance(c, And | Or):
        parts = [_truth(p, u, regs) for p in c.parts]
        ts, fs = [p[0] for p in parts], [p[1] for p in parts]
        return (conj(*ts), disj(*fs)) if isinstance(c, And) else (disj(*ts), conj(*fs))
    if isinstance(c, Not):
        t, f = _truth(c.part, u, regs)
        return f, t
    assert isinstance(c, Truth), c
    return c.value, not c.value


def satisfied(c: Condition, u: SymEvent, regs: Mapping[str, Register]) -> Lit:
    """``(u, v) ⊨ c`` (Def. 13): ``c`` is *true* for head ``u`` and registers ``regs``."""
    return _truth(c, u, regs)[0]


def fires(e: Edge, u: SymEvent, regs: Mapping[str, Register]) -> Lit:
    """Edge ``e`` fires on ``u`` with registers ``regs`` (guard, unless, clocks)."""
    clocks: list[Lit] = []
    for c in e.clocks:
        held = regs[c.register]
        gap = u.ts - held.event.ts
        clocks.append(conj(held.filled, gap <= c.bound if c.inside else gap > c.bound))
    return conj(satisfied(e.guard, u, regs), *(neg(satisfied(x, u, regs)) for x in e.unless),
                *clocks)


def schema_of(*automata: SRT, **options: Any) -> Schema:
    """The schema of every condition the automata test (guards and unless); ``options``
    as :func:`~kleene.proofs.schema.schema_for`'s (declared sorts, a stream, required)."""
    return schema_for([c for a in automata for e in a.edges for c in (e.guard, *e.unless)],
                      **options)


def symbolic_string(schema: Schema, n: int, name: str = "u") -> list[SymEvent]:
    """``n`` fresh symbolic events ``u0 .. u{n-1}``."""
    return [symbolic_event(schema, f"{name}{i}") for i in range(n)]


def string_constraints(string: Sequence[SymEvent]) -> list[Lit]:
    """The kinds' constraints of each event, and non-decreasing timestamps."""
    out: list[Lit] = [c for u in string for c in u.constraints]
    out += [string[i].ts <= string[i + 1].ts for i in range(len(string) - 1)]
    return out


def _finishing(a: SRT, n: int) -> list[frozenset[int]]:
    """``out[k]``: the states from which a final state is reached in exactly ``k`` steps."""
    out = [frozenset(a.finals)]
    for _ in range(n):
        out.append(frozenset(e.source for e in a.edges if e.target in out[-1]))
    return out


def paths(a: SRT, n: int) -> Iterator[tuple[Edge, ...]]:
    """The edge paths of length ``n`` from the start to a final state."""
    finishing = _finishing(a, n)
    count = 0

    def walk(q: int, left: int, path: tuple[Edge, ...]) -> Iterator[tuple[Edge, ...]]:
        nonlocal count
        if left == 0:
            count += 1
            if count > MAX_PATHS:
                raise TooManyPaths(f"more than {MAX_PATHS} paths of {n} edges")
            yield path
            return
        for e in a.out[q]:
            if e.target in finishing[left - 1]:
                yield from walk(e.target, left - 1, (*path, e))
    if a.start in finishing[n]:
        yield from walk(a.start, n, ())


def empty_registers(names: Sequence[str], schema: Schema, tag: str) -> dict[str, Register]:
    """Every register empty (♯), each with a placeholder event."""
    return {r: Register(False, symbolic_event(schema, f"{tag}.{r}")) for r in names}


def acceptance(a: SRT, string: Sequence[SymEvent], schema: Schema, tag: str, *,
               also: Callable[[Sequence[Edge], Sequence[SymEvent]], Lit] | None = None
               ) -> Lit:
    """``string ∈ Lang(a)``: some path of ``a`` to a final state fires on every element
    (and satisfies ``also(path, string)``, when given)."""
    options: list[Lit] = []
    for path in paths(a, len(string)):
        if also is not None:
            extra = also(path, string)
            if extra is False:
                continue
        fired = path_fires(path, string, empty_registers(a.registers(), schema, tag))
        options.append(conj(fired, *(() if also is None else (extra,))))
    return disj(*options)


def path_fires(path: Sequence[Edge], string: Sequence[SymEvent],
               regs: dict[str, Register]) -> Lit:
    """That every edge of ``path`` fires on its element of ``string``, the registers
    ``regs`` (updated in place) holding what the earlier edges wrote."""
    steps: list[Lit] = []
    for e, u in zip(path, string, strict=True):
        steps.append(fires(e, u, regs))
        if steps[-1] is False:
            break
        for r in e.writes:
            regs[r] = Register(True, u)
    return conj(*steps)


def concrete_string(model: z3.ModelRef, string: Sequence[SymEvent]) -> Stream:
    """The string a model assigns, as a stream."""
    return Stream(tuple(concrete_event(model, u, i) for i, u in enumerate(string)))


def accepts(a: SRT, string: Sequence[Event]) -> bool:
    """Whether ``a`` accepts ``string``, by the engine's own edge tests (every run kept)."""
    slots = {r: i for i, r in enumerate(a.registers())}
    tests = [[(compile_edge(e, slots), e) for e in a.out[q]] for q in range(a.size)]
    runs: set[tuple[int, tuple[Held | None, ...]]] = {(a.start, (None,) * len(slots))}
    for u in string:
        held = Held(u)
        nxt = set()
        for q, regs in runs:
            for test, e in tests[q]:
                if test(u, regs):
                    cells = list(regs)
                    for r in e.writes:
                        cells[slots[r]] = held
                    nxt.add((e.target, tuple(cells)))
        runs = nxt
    return any(q in a.finals for q, _ in runs)
