"""B(v), the events each variable of an SES pattern binds in some match, without listing
the matches: the first pass of ``ses-next-literal`` (engines/ses/next_literal.py).

The pattern given is the singleton pattern of next-literal (every variable one event, no
``prev``: :func:`~kleene.engines.ses.next_literal.singleton_pattern`), whose matches Γ₁
project onto B (that module's docstring). Γ₁ can be large (P4's four tickers within
500 ms: 381,281 matches on the stock stream) while B is at most the stream, so B is found
by an *existence search* per candidate (:func:`usable`): for each variable v and each
event e satisfying v's properties and not yet known to be in B(v), a backtracking search
for one match of Γ₁ that binds v to e, over the events that satisfy each variable's
properties within τ of e. Every match found puts all its bindings into B, so the events
of a match found once are not searched again. The search checks exactly conditions 1-3
of seed 000 Def. 2 (distinct events; set i's events strictly before set i+1's; the span
within τ; Θ, each condition once its variables are bound): e ∈ B(v) iff a match binds
v/e iff the search finds one. Before binding the next variable it checks that every
unbound one still has a free candidate in the time range the bound ones leave on which
the conditions between it and the bound ones hold (a necessary condition: pruning only;
a failing search does not rescan a variable's window for each choice of another). A
comparison of two attributes, or of an attribute and a constant, is read and compared by
the reference's :func:`~kleene.reference.conditions.compare` directly (what
:func:`~kleene.reference.conditions.evaluate` does on the one instance of single events).

*Implied properties.* :func:`with_implied_properties` adds to a pattern ``w.B = C``
whenever ``v.A = C`` and a chain of ``v.A = w.B`` equalities are conditions of it (top
level, no ``prev``): ``=`` of the reference (:func:`~kleene.reference.conditions.compare`)
holds only between two values of one kind that are ``==``, which is transitive there
(Python's ``==`` on two strings, two booleans, or two numbers, int against float
compared exactly), so every match satisfies the added conditions and Γ is unchanged.
They give a variable with no property of its own candidates (RUN's ``b`` and ``c`` take
INTC's events only, not all 224,473).

*Bound.* One search per event of a variable's candidates outside B (at most ``n · k``
searches for k variables), each over the candidates within τ: with boundedly many
candidates per window, linear in the stream; the search that fails may try
``c^(k-1)`` combinations for c candidates in a window (the budget's held limit bounds
those tried in one search).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from kleene.data.source import column_batches
from kleene.engines.columns import ArrowColumns
from kleene.engines.protocol import Counters
from kleene.engines.ses.filter import ROWS
from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.conditions import (
    Attr,
    Cmp,
    Condition,
    Const,
    Instance,
    compare,
    conjunction,
    evaluate,
    holds,
    prev_variables,
    rename,
    variables,
)
from kleene.reference.events import Event
from kleene.reference.ses.filtering import EVENT
from kleene.reference.ses.pattern import SESPattern

Term = Attr | Const


def _equalities(p: SESPattern) -> list[tuple[Term, Term]]:
    return [(c.left, c.right) for c in p.conditions
            if isinstance(c, Cmp) and c.op == "=" and not prev_variables(c)
            and isinstance(c.left, (Attr, Const)) and isinstance(c.right, (Attr, Const))]


#: A term as a node of the equalities: an attribute ``("attr", var, attr)`` or a constant
#: ``("const", kind, value)`` (``True == 1`` in Python, but not for ``compare``).
Node = tuple[str, str, str | int | float | bool]


def _node(t: Term) -> Node:
    if isinstance(t, Attr):
        return ("attr", t.var, t.attr)
    v = t.value
    return ("const", "bool" if isinstance(v, bool) else "str" if isinstance(v, str)
            else "num", v)


def with_implied_properties(p: SESPattern) -> SESPattern:
    """``p`` with ``w.B = C`` added wherever its equalities join ``w.B`` to a constant C
    (module docstring); in the pattern's order, each once."""
    parent: dict[Node, Node] = {}

    def root(t: Node) -> Node:
        while parent.get(t, t) != t:
            t = parent[t]
        return t

    pairs = [(_node(a), _node(b)) for a, b in _equalities(p)]
    for a, b in pairs:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        parent[root(a)] = root(b)
    nodes = list(dict.fromkeys(t for pair in pairs for t in pair))
    added: list[Condition] = []
    for t in nodes:
        if t[0] != "attr":
            continue
        for c in nodes:
            if c[0] == "const" and root(c) == root(t):
                cond = Cmp("=", Attr(str(t[1]), str(t[2])), Const(c[2]))
                if cond not in p.conditions and cond not in added:
                    added.append(cond)
    return replace(p, conditions=(*p.conditions, *added)) if added else p


Test = Callable[[dict[str, Event], Instance], bool]


def _test(c: Condition) -> Test:
    """``c`` on the one instance of a match of single events, as
    :func:`~kleene.reference.conditions.evaluate` gives it (true only when true): a
    comparison of two attributes or of an attribute and a constant reads the values and
    calls the reference's :func:`~kleene.reference.conditions.compare` itself."""
    if isinstance(c, Cmp) and isinstance(c.left, Attr) and isinstance(c.right, Attr):
        op, (lv, la), (rv, ra) = c.op, (c.left.var, c.left.attr), (c.right.var, c.right.attr)
        return lambda cur, _: compare(op, cur[lv].value(la), cur[rv].value(ra)) is True
    if isinstance(c, Cmp) and isinstance(c.left, Attr) and isinstance(c.right, Const):
        op, (lv, la), k = c.op, (c.left.var, c.left.attr), c.right.value
        return lambda cur, _: compare(op, cur[lv].value(la), k) is True
    return lambda _, inst: evaluate(c, inst) is True


class _Search:
    """The existence search of the module docstring over ``cand`` (each variable's
    candidates, by position)."""

    def __init__(self, p: SESPattern, cand: dict[str, list[Event]], win: Window,
                 budget: Budget | None) -> None:
        self.p, self.cand, self.win, self.budget = p, cand, win, budget
        self.names = p.names
        self.set_of = {v: p.set_index(v) for v in self.names}
        self.ts = {v: [e.ts for e in es] for v, es in cand.items()}
        self.relations = tuple(c for c in p.conditions if len(variables(c)) > 1)
        self.plans: dict[str, tuple[list[str], list[list[Test]],
                                    list[dict[str, list[Test]]]]] = {}
        self.tried = 0

    def plan(self, v: str) -> tuple[list[str], list[list[Test]],
                                    list[dict[str, list[Test]]]]:
        """The order to bind the variables from v (the fewest candidates next), the
        conditions checked once each is bound, and for each step k and each variable w
        not yet bound the conditions on w and the variables bound before k only."""
        if v not in self.plans:
            order = [v, *sorted((w for w in self.names if w != v),
                                key=lambda w: (len(self.cand[w]), self.names.index(w)))]
            checks = [[c for c in self.relations
                       if w in variables(c) and variables(c) <= set(order[:k + 1])]
                      for k, w in enumerate(order)]
            ahead = [{w: [c for c in self.relations
                          if w in variables(c) and variables(c) <= {*order[:k], w}]
                      for w in order[k:]} for k in range(len(order))]
            self.plans[v] = (order, [[_test(c) for c in cs] for cs in checks],
                             [{w: [_test(c) for c in cs] for w, cs in a.items()}
                              for a in ahead])
        return self.plans[v]

    def _bounds(self, w: str, g: dict[str, tuple[Event]]) -> tuple[float | None, float | None]:
        """Condition 2: w's event lies strictly after the bound events of earlier sets and
        strictly before those of later sets (``None``: no bound)."""
        i = self.set_of[w]
        after = [es[0].ts for u, es in g.items() if self.set_of[u] < i]
        before = [es[0].ts for u, es in g.items() if self.set_of[u] > i]
        return (max(after) if after else None), (min(before) if before else None)

    def _range(self, w: str, g: dict[str, tuple[Event]], lo_ts: float,
               hi_ts: float) -> tuple[int, int, float | None]:
        """The indices of w's candidates within ``[lo_ts, hi_ts]`` and condition 2's
        bounds, and the strict upper bound."""
        after, before = self._bounds(w, g)
        ts = self.ts[w]
        lo = bisect.bisect_left(ts, lo_ts)
        if after is not None:
            lo = max(lo, bisect.bisect_right(ts, after))
        hi = bisect.bisect_right(ts, hi_ts)
        if before is not None:
            hi = min(hi, bisect.bisect_left(ts, before))
        return lo, hi, before

    def witness(self, v: str, e: Event) -> dict[str, tuple[Event]] | None:
        """A match of the pattern binding ``v/e``, or ``None`` when there is none."""
        order, checks, ahead = self.plan(v)
        g: dict[str, tuple[Event]] = {v: (e,)}
        cur = {v: e}
        inst = Instance(cur, {}, g)   # the one instance of a condition: no group, no prev
        if not self.win.fits(0) or not all(t(cur, inst) for t in checks[0]):
            return None   # a strict window of 0 fits no span, not even one event's
        used = {e.position}
        tau = self.win.tau
        self.tried = 0

        def feasible(k: int, mn: float, mx: float) -> bool:
            """Whether every variable not yet bound has a candidate the bound ones allow:
            free, in the time range, and the conditions on it and them hold."""
            for w in order[k:]:
                lo, hi, _ = self._range(w, g, mx - tau, mn + tau)
                conds = ahead[k][w]
                for x in self.cand[w][lo:hi]:
                    if x.position in used or not self.win.fits(max(mx, x.ts) - min(mn, x.ts)):
                        continue
                    g[w], cur[w] = (x,), x
                    ok = all(t(cur, inst) for t in conds)
                    del g[w], cur[w]
                    if ok:
                        break
                else:
                    return False
            return True

        def rec(k: int, mn: float, mx: float) -> bool:
            if k == len(order):
                return True
            if not feasible(k, mn, mx):
                return False
            w = order[k]
            lo, hi, _ = self._range(w, g, mx - tau, mn + tau)
            for x in self.cand[w][lo:hi]:
                self.tried += 1
                if self.budget is not None and self.tried > self.budget.most_held:
                    self.budget.hold(self.tried, "candidates of a next-literal usable "
                                                 "search for one event")
                if x.position in used or not self.win.fits(max(mx, x.ts) - min(mn, x.ts)):
                    continue
                g[w], cur[w] = (x,), x
                if all(t(cur, inst) for t in checks[k]):
                    used.add(x.position)
                    if rec(k + 1, min(mn, x.ts), max(mx, x.ts)):
                        return True
                    used.discard(x.position)
                del g[w], cur[w]
            return False

        return dict(g) if rec(1, e.ts, e.ts) else None


def _candidates(p: SESPattern, events: Iterable[Event],
                counters: Counters) -> dict[str, list[Event]]:
    """The events that satisfy each variable's properties, by position: over columns
    (a loaded stream, a file read in batches) each variable's properties are evaluated
    on the columns (as the filter of engines/ses/filter.py is) and only the rows some
    variable takes become events."""
    names = p.names
    props = {v: p.properties(v) for v in names}
    cand: dict[str, list[Event]] = {v: [] for v in names}
    batches = column_batches(events, ROWS)
    if batches is None:
        for e in events:
            counters.events_read += 1
            for v in names:
                inst = Instance({v: e}, {}, {v: (e,)})
                if all(evaluate(c, inst) is True for c in props[v]):
                    cand[v].append(e)
        return cand
    tests = {v: conjunction([rename(c, {v: EVENT}) for c in props[v]]) for v in names
             if props[v]}
    for start, part in batches:
        cols = ArrowColumns(part)
        n = len(part)
        masks = [cols.holds(tests[v]) if v in tests else np.ones(n, dtype=bool)
                 for v in names]
        index = np.flatnonzero(np.logical_or.reduce(masks))
        counters.events_read += n
        counters.events_filtered += n - len(index)
        for i, e in zip(index.tolist(), part.events(index, offset=start), strict=True):
            for v, mask in zip(names, masks, strict=True):
                if mask[i]:
                    cand[v].append(e)
    return cand


def usable(p: SESPattern, events: Iterable[Event], win: Window, counters: Counters,
           budget: Budget | None) -> tuple[dict[str, set[int]], dict[int, Event]]:
    """B(v) (positions) for each variable of the singleton pattern ``p``, and the events
    of B by position, in one reading of ``events``."""
    names = p.names
    if not all(holds(c, {}) for c in p.conditions if not variables(c)):
        return {v: set() for v in names}, {}
    cand = _candidates(p, events, counters)
    search = _Search(p, cand, win, budget)
    found: dict[str, set[int]] = {v: set() for v in names}
    at: dict[int, Event] = {}
    searches = 0
    for v in names:
        for e in cand[v]:
            if e.position in found[v]:
                continue
            searches += 1
            if budget is not None and searches % 256 == 0:
                budget.check()   # the deadline and the memory ceiling
            g = search.witness(v, e)
            if g is not None:
                for w, (x,) in g.items():
                    found[w].add(x.position)
                    at[x.position] = x
    return found, at
