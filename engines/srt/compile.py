"""SREMO to SRT: seed 004, report Thm 19 / App. A.2 (the Thompson-style construction,
one case per operator of Def. 15) with ε-elimination (report Alg. 2) applied at
every composition, so each intermediate automaton is already ε-free.

Alg. 2 replaces each path ``ε* δ`` by one transition with δ's label and makes
a state final when an ε-path leads from it to a final state. For the automata
of App. A.2 the ε-paths are exactly the ones introduced by concatenation
(final of ``T1`` → start of ``T2``), disjunction (new start → both starts) and
iteration (new start → start, finals → start), so eliminating them at each
composition gives:

- ``e1 · e2``: every final of ``T1`` gets a copy of the start transitions of
  ``T2``; the finals are ``T2``'s, plus ``T1``'s when ``T2`` accepts ϵ;
- ``e1 + e2``: a new start with copies of both start's transitions, final
  when either start is;
- ``e*``: a new, final start with a copy of ``T``'s start transitions, and the
  same copy on every final of ``T`` (a further iteration).

Windows (:mod:`.windows`), intersection (:mod:`.product`, Thm 34) and
negation (:mod:`.complement`, Cor. 43) have their own modules; selection
strategies are rewritten into plain SREMO first (Defs. 44, 45, normative
reading, :func:`kleene.reference.sremo.strategies.rewrite`).

The report's *single-register* conversion (App. A.2 assumes each transition
writes at most one register) is not needed: our edges carry a tuple of
writes, which the product of Thm 34 produces directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kleene.engines.srt.automaton import SRT, Edge, trim
from kleene.engines.srt.complement import complement, complement_with_copies, reads_written
from kleene.engines.srt.product import intersect
from kleene.engines.srt.unroll import boundary_marked, longest_walk, unroll
from kleene.engines.srt.windows import count_window, time_window
from kleene.reference.errors import Unsupported
from kleene.reference.sremo.expressions import (
    Atom,
    Choice,
    Concat,
    Empty,
    Epsilon,
    Expr,
    Intersect,
    Not,
    Partition,
    Star,
    Strategy,
    Window,
)
from kleene.reference.sremo.strategies import rewrite

#: The largest SRT the compiler builds (states); beyond it, compilation stops.
MAX_STATES = 50_000


@dataclass(frozen=True)
class Options:
    """What compilation needs beyond the expression: the timestamps' unit, the window
    reading of time windows (``inclusive`` ≤ τ or ``strict`` < τ), the state cap."""

    time_unit: str | None = None
    reading: str = "inclusive"
    max_states: int = MAX_STATES


def epsilon() -> SRT:
    """``ϵ``: one start state, final."""
    return SRT(1, 0, frozenset({0}), ())


def empty() -> SRT:
    """``∅``: one start state, not final."""
    return SRT(1, 0, frozenset(), ())


def atom(a: Atom) -> SRT:
    """``φ ↑ o ↓ r``: ``0 --φ ↑ o ↓ r--> 1`` (App. A.2, cases 2 and 3)."""
    writes = (a.write,) if a.write else ()
    return SRT(2, 0, frozenset({1}), (Edge(0, 1, a.condition, a.marked, writes),))


def shift(a: SRT, k: int) -> SRT:
    """``a`` with every state renumbered ``q + k`` (sizes add up)."""
    return SRT(a.size + k, a.start + k, frozenset(q + k for q in a.finals),
               tuple(e.moved(e.source + k, e.target + k) for e in a.edges))


def _starting(a: SRT, at: int) -> list[Edge]:
    """Copies of ``a``'s start transitions leaving state ``at`` instead."""
    return [e.moved(at, e.target) for e in a.out[a.start]]


def concat(parts: Sequence[SRT]) -> SRT:
    """``e1 · e2 · ...`` (App. A.2 case 5, ε-eliminated)."""
    out = parts[0]
    for b in parts[1:]:
        b = shift(b, out.size)
        edges = list(out.edges) + list(b.edges)
        for f in out.finals:
            edges += _starting(b, f)
        finals = set(b.finals) | (set(out.finals) if b.start in b.finals else set())
        out = trim(SRT(b.size, out.start, frozenset(finals), tuple(edges)))
    return out


def choice(parts: Sequence[SRT]) -> SRT:
    """``e1 + e2 + ...`` (App. A.2 case 4, ε-eliminated)."""
    size, edges, finals = 1, [], set[int]()
    start_final = False
    for a in parts:
        a = shift(a, size)
        size = a.size
        edges += list(a.edges) + _starting(a, 0)
        finals |= a.finals
        start_final = start_final or a.start in a.finals
    if start_final:
        finals.add(0)
    return trim(SRT(size, 0, frozenset(finals), tuple(edges)))


def star(a: SRT) -> SRT:
    """``e*`` (App. A.2 case 6, ε-eliminated)."""
    s = a.size
    edges = list(a.edges) + _starting(a, s)
    for f in a.finals:
        edges += _starting(a, f)
    return trim(SRT(s + 1, s, frozenset(a.finals) | {s}, tuple(edges)))


def compile_sremo(e: Expr, options: Options | None = None) -> SRT:
    """The ε-free SRT of ``e`` (report Thm 19), windows, intersection and negation included."""
    options = options or Options()
    if isinstance(e, Partition):
        raise Unsupported("PARTITION BY splits the stream: an SRT reads one stream (the srt "
                          "engine runs one SRT per part)")
    return _compile(rewrite(e), options, [0])


def _compile(e: Expr, o: Options, counter: list[int]) -> SRT:
    if isinstance(e, Epsilon):
        out = epsilon()
    elif isinstance(e, Empty):
        out = empty()
    elif isinstance(e, Atom):
        out = atom(e)
    elif isinstance(e, Concat):
        out = concat([_compile(p, o, counter) for p in e.parts])
    elif isinstance(e, Choice):
        out = choice([_compile(p, o, counter) for p in e.parts])
    elif isinstance(e, Star):
        out = star(_compile(e.body, o, counter))
    elif isinstance(e, Window):
        body = _compile(e.body, o, counter)
        if isinstance(e.width, int):
            out = count_window(body, e.width, o.max_states)
        else:
            counter[0] += 1
            out = time_window(body, e.width.bound(o.time_unit, o.reading), f"@w{counter[0]}")
    elif isinstance(e, Intersect):
        out = intersect([_compile(p, o, counter) for p in e.parts], o.max_states)
    elif isinstance(e, Not):
        out = _negation(e, o, counter)
    elif isinstance(e, Strategy):  # pragma: no cover - rewritten away
        raise Unsupported("selection strategies are rewritten before compilation")
    else:  # pragma: no cover
        raise Unsupported(f"no SRT construction for {type(e).__name__}")
    if out.size > o.max_states:
        raise Unsupported(f"the SRT has {out.size} states, beyond the cap of {o.max_states}")
    return out


def _negation(e: Not, o: Options, counter: list[int]) -> SRT:
    """``!e`` (Cor. 43): the complement of e's DSRT (Alg. 8). A count-windowed body that
    reads a register it writes is unrolled and determinized with register copies
    first (Alg. 7, :func:`~.complement.complement_with_copies`): to the window's
    length when it is boundary-marked (then Def. 39's span is the length), else to
    the longest walk of the windowed body when it has no cycle (an unmarked body:
    the window bounds no length, the structure does); otherwise refused."""
    body = e.body
    if isinstance(body, Window) and isinstance(body.width, int):
        inner = _compile(body.body, o, counter)
        clash = reads_written(inner)
        if clash:
            if boundary_marked(inner):      # Def. 39's span is the string's length
                bounded, length = inner, body.width
            else:                           # the window bounds marks only: any bound?
                bounded = _compile(body, o, counter)
                found = longest_walk(bounded)
                if found is None:
                    raise Unsupported(
                        f"a negation whose body reads register(s) it writes "
                        f"({', '.join(sorted(clash))}) needs Alg. 7's register copies, "
                        f"which need a bound on the length of the body's strings; its "
                        f"window [1..{body.width}] bounds the marked positions only "
                        "(Def. 39) and an unmarked loop leaves the length unbounded")
                length = found
            counter[0] += 1
            return complement_with_copies(unroll(bounded, length, o.max_states),
                                          o.max_states, f"n{counter[0]}")
    return complement(_compile(body, o, counter), o.max_states)
