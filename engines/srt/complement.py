"""Output-agnostic determinization and complement: seed 004, report Thm 41 / Alg. 7
(determinization with minterms) and Cor. 43 / Alg. 8 (complement).

:func:`determinize` is the subset construction of Alg. 7 over *minterms*: for
a subset ``S`` of states, the tests of the transitions leaving ``S`` are
split into atoms (every distinct guard, and every condition an edge requires
*not* to hold); a minterm assigns each atom "satisfied" or "not satisfied",
and its transition goes to every target whose test the minterm satisfies.
Minterms are pairwise exclusive and cover every element (each atom is either
satisfied or not, also when it is unknown: "not satisfied" is the edge's
``unless``, not ``NOT φ``), so exactly one transition fires per element: the
result is deterministic and complete (the empty subset is a sink).

Satisfiability of a minterm is decided *syntactically* and conservatively:
a minterm is dropped only when two of its satisfied atoms are equalities of
the same head attribute with different constants (``~.type = 'A'`` and
``~.type = 'B'``), or a satisfied atom is also required unsatisfied, or it
requires ``TRUE`` unsatisfied. Any other minterm is kept: an unsatisfiable
one is a transition that never fires, which costs size, not exactness
(``proofs/automata.py`` reports such dead guards through ``iter_transitions``).

Registers: Alg. 7 copies registers per state of the nSRA (the unrolled SRT of
a window). This module implements the register-free case and the case where
the automaton only *reads* registers written before it (its guards then
compare with values fixed for the whole run, Def. 13); an automaton that
reads a register it writes itself, or tests a time window, is
:class:`Unsupported` with that reason. Writes are dropped (output-agnostic),
marks become ⊗.

Caps: :data:`MAX_ATOMS` atoms per subset (2^atoms minterms) and the state cap
of compilation; beyond them a one-line :class:`Unsupported` names the cap.
"""

from __future__ import annotations

from kleene.engines.protocol import Limitation
from kleene.engines.srt.automaton import HIDDEN, SRT, Edge, trim
from kleene.reference.conditions import (
    TRUE,
    Attr,
    Cmp,
    Condition,
    Const,
    conjunction,
    conjuncts,
    rename,
)
from kleene.reference.errors import Unsupported
from kleene.reference.sremo.expressions import HEAD, reads

#: At most this many atoms per subset (2**MAX_ATOMS minterms).
MAX_ATOMS = 12

Minterm = tuple[frozenset[Condition], frozenset[Condition]]  # (satisfied, not satisfied)


def written_before(a: SRT) -> list[frozenset[str]]:
    """For each state, the registers some path from the start writes before reaching it."""
    out: list[frozenset[str]] = [frozenset()] * a.size
    changed = True
    while changed:
        changed = False
        for e in a.edges:
            now = out[e.source] | frozenset(e.writes)
            if not now <= out[e.target]:
                out[e.target] = out[e.target] | now
                changed = True
    return out


def reads_written(a: SRT) -> frozenset[str]:
    """The registers some transition of ``a`` reads after a path from the start may have
    written them (what needs Alg. 7's register copies)."""
    before = written_before(a)
    clash: set[str] = set()
    for e in a.edges:
        clash |= (reads(e.guard).union(*(reads(c) for c in e.unless))) & before[e.source]
    return frozenset(clash)


def check_determinizable(a: SRT) -> None:
    """Raise :class:`Unsupported` unless :func:`determinize` handles ``a``: no clocks, and
    no transition reads a register that a path from the start may have written (a
    :class:`~kleene.engines.protocol.Limitation`: ``dsrt`` claims such queries by their
    features and documents that it cannot determinize them)."""
    if any(e.clocks for e in a.edges):
        raise Unsupported("determinizing a time window is not implemented (Alg. 7 covers "
                          "count windows only)")
    clash = reads_written(a)
    if clash:
        raise Limitation(f"determinizing an SRT that reads register(s) it writes "
                          f"({', '.join(sorted(clash))}) needs Alg. 7's register copies, "
                          "which this engine does not implement")


def _head_equality(c: Condition) -> tuple[str, object] | None:
    if isinstance(c, Cmp) and c.op == "=":
        if isinstance(c.left, Attr) and c.left.var == HEAD and isinstance(c.right, Const):
            return c.left.attr, c.right.value
        if isinstance(c.right, Attr) and c.right.var == HEAD and isinstance(c.left, Const):
            return c.right.attr, c.left.value
    return None


def _conjuncts(c: Condition) -> list[Condition]:
    return list(conjuncts(c))


def plausible(yes: frozenset[Condition], no: frozenset[Condition]) -> bool:
    """``False`` when the minterm is syntactically unsatisfiable (module docstring)."""
    if TRUE in no or yes & no:
        return False
    seen: dict[str, object] = {}
    for c in yes:
        for part in _conjuncts(c):
            eq = _head_equality(part)
            if eq is None:
                continue
            attr, value = eq
            if attr in seen and seen[attr] != value:
                return False
            seen[attr] = value
    return True


def minterms(atoms: tuple[Condition, ...]) -> list[Minterm]:
    """Every plausible assignment of satisfied / not satisfied to ``atoms``."""
    if len(atoms) > MAX_ATOMS:
        raise Unsupported(f"determinization needs {len(atoms)} atomic conditions at one state, "
                          f"beyond the cap of {MAX_ATOMS} (2^{MAX_ATOMS} minterms)")
    out: list[Minterm] = [(frozenset(), frozenset())]
    for atom in atoms:
        nxt = []
        for yes, no in out:
            for m in ((yes | {atom}, no), (yes, no | {atom})):
                if plausible(*m):
                    nxt.append(m)
        out = nxt
    return out


def _fires(e: Edge, yes: frozenset[Condition]) -> bool:
    return (e.guard == TRUE or e.guard in yes) and not any(u in yes for u in e.unless)


def determinize(a: SRT, max_states: int, *,
                copies: bool = False) -> tuple[SRT, tuple[frozenset[int], ...]]:
    """The output-agnostic deterministic SRT of ``a`` (Alg. 7) and the subset each of its
    states stands for. Complete: the empty subset is a sink.

    ``copies``: ``a`` is an unrolled SRT (:func:`kleene.engines.srt.unroll.unroll`) whose
    register copies are each written with the element at one depth only, so every run
    agrees on a copy's content: the DSRT keeps the copies as its registers, each of its
    transitions writing every copy that a transition it stands for writes (Alg. 7's
    register handling). Without ``copies`` an SRT that reads a register it writes is
    refused."""
    if copies:
        if any(e.clocks for e in a.edges):
            raise Unsupported("determinizing a time window is not implemented")
    else:
        check_determinizable(a)
    start = frozenset({a.start})
    index = {start: 0}
    subsets = [start]
    edges: list[Edge] = []
    todo = [start]
    while todo:
        s = todo.pop()
        leaving = [e for q in sorted(s) for e in a.out[q]]
        atoms = tuple(dict.fromkeys([e.guard for e in leaving if e.guard != TRUE]
                                    + [u for e in leaving for u in e.unless]))
        for yes, no in minterms(atoms):
            target = frozenset(e.target for e in leaving if _fires(e, yes))
            if target not in index:
                if len(index) >= max_states:
                    raise Unsupported(f"determinization needs more than {max_states} states "
                                      "(the cap)")
                index[target] = len(index)
                subsets.append(target)
                todo.append(target)
            guard = conjunction(sorted(yes, key=repr)) if yes else TRUE
            writes = tuple(sorted({r for e in leaving if _fires(e, yes) for r in e.writes})) \
                if copies else ()
            edges.append(Edge(index[s], index[target], guard, False, writes,
                              tuple(sorted(no, key=repr))))
    finals = frozenset(i for s, i in index.items() if s & a.finals)
    return SRT(len(index), 0, finals, tuple(edges)), tuple(subsets)


def complement(a: SRT, max_states: int) -> SRT:
    """``!e`` (Cor. 43, Alg. 8): the deterministic SRT with final and non-final states
    swapped; it marks nothing and writes nothing."""
    d, _ = determinize(a, max_states)
    flipped = frozenset(range(d.size)) - d.finals
    return trim(SRT(d.size, d.start, flipped, d.edges))


def complement_with_copies(unrolled: SRT, max_states: int, tag: str) -> SRT:
    """``!(e[1..w])`` for a boundary-marked body that reads registers it writes (Alg. 7
    with register copies, then Alg. 8): ``unrolled`` is its unrolled SRT
    (:func:`kleene.engines.srt.unroll.unroll`), determinized keeping the copies
    ``r@d`` as registers, its finals swapped. The copies are renamed ``@<tag>.r@d``
    (hidden: no SREMO register, no other negation's); they are the complement's own
    scratch registers, written afresh at each depth of every pass through it, so the
    valuation of the expression around ``!`` is unchanged (Def. 17). Strings longer
    than ``w`` reach the empty subset, which the swap makes final: they are not in
    ``Lang(e[1..w])`` since every accepted string starts and ends marked (or, for an
    unmarked body, ``w`` is the longest walk of its acyclic windowed SRT)."""
    d, _ = determinize(unrolled, max_states, copies=True)
    copies = {r for e in d.edges for r in e.writes}
    names = {r: f"{HIDDEN}{tag}.{r}" for r in copies}

    def renamed(c: Condition) -> Condition:
        mapping = {r: names[r] for r in reads(c) if r in names}
        return rename(c, mapping) if mapping else c

    edges = tuple(Edge(e.source, e.target, renamed(e.guard), False,
                       tuple(names[r] for r in e.writes), tuple(renamed(u) for u in e.unless))
                  for e in d.edges)
    flipped = frozenset(range(d.size)) - d.finals
    return trim(SRT(d.size, d.start, flipped, edges))

