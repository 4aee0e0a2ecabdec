"""SREMO expressions whose one register holds a run's first element and is compared for
equality only: ``mark φ -> r ; ... ; mark {ψ AND ~.A = r.B} ...``, the ``PARTITION BY``
of a run written with a register (:mod:`kleene.engines.count.sremo`; docs/counting.md).

When every run writes ``r`` at its first element (the SRT's start transitions, marked,
and no other), ``r.B`` is the key of the run, and the key of its match: the first
element is ``min(M)``. The matches therefore split by key, and for a key ``x`` the guards
are unary once ``r.B`` reads ``x``: the count is the register-free count over the whole
stream in which a start transition is taken only by an element whose ``B`` is ``x``.
When every other guard is ``TRUE`` (unmarked: a gap) or holds a conjunct ``~.A = r.B``,
an element takes part in the key of its ``B`` (as a first element) and those of its
``A``\\ s, and is the letter that satisfies no guard (minterm 0) in every other key: so each
key reads only its own elements and the number of elements between them, linear in the
stream. Equal keys are those ``=`` says are equal (the kinds apart, a missing value or NaN
equal to nothing: :func:`kleene.engines.count.ses.key_value`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kleene.engines.count.ending import Element
from kleene.engines.count.ses import key_value
from kleene.engines.srt.automaton import SRT, Edge, Held, compile_guard
from kleene.reference.conditions import TRUE, Attr, Cmp, conjuncts, subterms
from kleene.reference.events import Event, Value
from kleene.reference.sremo.expressions import HEAD, reads

#: Per state, its transitions as (guard bit, 0 for TRUE; mark; target).
Labels = list[list[tuple[int, bool, int]]]


@dataclass(frozen=True)
class Keyed:
    """The register ``register`` whose attribute ``attr`` keys the runs, and the head's
    attributes equated to it (``heads``), sorted."""

    register: str
    attr: str
    heads: tuple[str, ...]


def _equated(c: object, register: str) -> str | None:
    """The head's attribute ``A`` of a conjunct ``~.A = register.B`` (either way round)."""
    if isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr) \
            and isinstance(c.right, Attr):
        sides = {c.left.var: c.left.attr, c.right.var: c.right.attr}
        if set(sides) == {HEAD, register}:
            return sides[HEAD]
    return None


def keyed(a: SRT) -> Keyed | str | None:
    """The key of ``a``'s runs (the module docstring), ``None`` when no guard of ``a``
    reads a register (trimmed: what reads one can no longer report), or why there is
    no key."""
    if not any(reads(e.guard) for e in a.edges):
        return None
    starts = a.out[a.start]
    written = {e.writes for e in starts}
    if any(e.target == a.start for e in a.edges) or len(written) != 1 \
            or len(next(iter(written))) != 1:
        return ("a guard reads a register that is not written once, by every run's first "
                "element")
    (register,) = next(iter(written))
    attrs: set[str] = set()
    heads: set[str] = set()
    for e in a.edges:
        if e.source == a.start:
            if not e.mark or reads(e.guard):
                return "a run's first element is unmarked or reads a register"
            continue
        if e.writes:
            return "a register is written after a run's first element"
        if e.guard == TRUE and not e.mark:
            continue
        attrs |= {t.attr for t in subterms(e.guard) if isinstance(t, Attr) and t.var != HEAD}
        equated = [x for x in map(lambda c: _equated(c, register), conjuncts(e.guard)) if x]
        if reads(e.guard) != {register} or not equated:
            return ("a guard neither a gap nor holding ~.A = r.B for the register r written "
                    "by a run's first element")
        heads.update(equated)
    if len(attrs) > 1:
        return "the guards read more than one attribute of the register"
    return Keyed(register, attrs.pop(), tuple(sorted(heads)))


def labels(a: SRT) -> tuple[Labels, list[tuple[int, Edge]]]:
    """The transitions of ``a`` by guard bit (the start's own bits: a first element takes
    one only in its own key), and the bit of each edge that has one."""
    bits: dict[tuple[bool, object], int] = {}
    out: Labels = [[] for _ in range(a.size)]
    tested: list[tuple[int, Edge]] = []
    for e in a.edges:
        first = e.source == a.start
        if e.guard == TRUE and not first:
            bit = 0
        else:
            label = (first, e.guard)
            if label not in bits:
                bits[label] = 1 << len(bits)
                tested.append((bits[label], e))
            bit = bits[label]
        out[e.source].append((bit, e.mark, e.target))
    return out, tested


def _holding(attr: str, value: Value) -> Held:
    """A stored element whose ``attr`` is ``value`` (all a guard reads of the register)."""
    if attr == "ts":
        assert isinstance(value, int | float)
        return Held(Event(-1, value, None, {}))
    if attr == "type":
        return Held(Event(-1, 0, value if isinstance(value, str) else None, {}))
    return Held(Event(-1, 0, None, {attr: value}))


def keyed_elements(source: Iterable[Event], a: SRT, key: Keyed,
                   tested: list[tuple[int, Edge]]) -> dict[object, list[Element]]:
    """Each key's elements (the module docstring): position in the stream, timestamp,
    minterm in that key; between them, the runs of elements of other keys (minterm 0)."""
    guards = [(bit, e.source == a.start, compile_guard(e.guard, {key.register: 0}))
              for bit, e in tested]
    parts: dict[object, list[Element]] = {}
    held: dict[object, tuple[Held | None, ...]] = {}
    for p, u in enumerate(source):
        starts = sum(bit for bit, first, g in guards if first and g(u, (None,)))
        own = key_value(u.value(key.attr)) if starts else None
        keys = {k for k in [own, *(key_value(u.value(x)) for x in key.heads)] if k is not None}
        for k in keys:
            regs = held.get(k)
            if regs is None:
                regs = held[k] = (_holding(key.attr, k[1]),)
            m = starts if k == own else 0
            m |= sum(bit for bit, first, g in guards if not first and g(u, regs))
            elements = parts.setdefault(k, [])
            if elements:
                end = elements[-1][0] + max(1, elements[-1][3])
                if p > end:
                    elements.append([end, 0, 0, p - end, -1])
            elements.append([p, u.ts, m, 0, p])
    return parts
