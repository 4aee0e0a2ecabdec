"""Pictures of the NFAs of seed 003, in the paper's style (Figs. 1, 4–9).

A picture is a graph of :mod:`kleene.engines.draw` (rendered there, once for
every family), read from the compiled automaton's ``iter_transitions`` and its
plans (:class:`~kleene.engines.nfa.engine.CompiledNFA`):

- a state is named by the variables bound so far, *in the order they were
  bound*: the eager NFA of ``SEQ(A a, B b, C c)`` goes ``∅ → a → ab → abc``
  (Fig. 1), the Chain NFA with frequency order C, B, A goes
  ``∅ → c → cb → cba`` (Fig. 4: "states in evaluation order");
- edges carry the paper's actions (Sec. 2.2, Sec. 3): ``take T v`` binds an
  event of type ``T`` (with the edge's predicate, in full or as ``Θi`` with a
  legend), ``iterate T v`` adds one more to an iterated slot (Sec. 4.5),
  ``ignore`` (dashed) skips an event. The lazy NFAs' per-type *input buffers*
  are cylinders: every event of a pattern type is stored on arrival, and the
  state whose take edge looks into a buffer has a dotted ``read`` edge from it;
- negation (Sec. 4.4): post-processing (Fig. 6) adds, after the positive
  chain, one state per negated type, left on ``search_failed`` (or
  ``timeout`` when the interval is open to the future) towards ``F``, and a
  ``take N n`` edge into the rejecting state ``R``; first chance (Fig. 7)
  draws the ``take N n`` edge into ``R`` from the first state where the
  negation can be decided;
- the Multi-Chain NFA (Sec. 5, Fig. 8) draws one chain per DNF conjunct, in a
  cluster named by the conjunct, with the initial and accepting states merged;
- the Tree NFA (Sec. 7, Fig. 9) draws every order; its *current* order (the
  one the last run's buffers chose first, or the given frequencies') is bold.

A large automaton stays readable by collapsing: beyond :data:`MAX_STATES`
states in one conjunct (an ``AND`` of five or more under the eager or the
Tree NFA), only the states on the drawn order and their successors are
kept; the others of each layer become one dashed box ``+k states``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import networkx as nx

from kleene.engines.drawers import guard_style, register_drawer
from kleene.engines.labels import EMPTY, guard_lines, guard_set
from kleene.engines.nfa.disjunction import dnf
from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.nfa.partial import Plan
from kleene.engines.nfa.shape import Slot
from kleene.engines.protocol import Transition
from kleene.reference.conditions import TRUE, Condition, conjunction
from kleene.reference.operators.text import format_expr, format_repeat

#: A conjunct with more states than this is drawn collapsed (see the module docstring).
MAX_STATES = 24
#: ``auto`` guards print in full up to this many take and iterate edges.
AUTO_FULL_GUARDS = 8

IGNORE = {"style": "dashed", "color": "gray50", "fontcolor": "gray40"}
READ = {"style": "dotted", "color": "gray45", "fontcolor": "gray40", "arrowhead": "open"}
REJECT = {"color": "firebrick", "fontcolor": "firebrick", "style": "dashed"}
BOLD = {"penwidth": "2.2"}


@dataclass(frozen=True)
class _Branch:
    """One conjunct: its index, plan, drawn order and the text of its cluster."""

    index: int
    plan: Plan
    order: tuple[int, ...]
    title: str | None


def _conjunct(state: Hashable) -> int:
    """The conjunct of a state ``(conjunct, bound)`` of :meth:`CompiledNFA.iter_transitions`."""
    assert isinstance(state, tuple)
    b: int = state[0]
    return b


def _bound(c: CompiledNFA, state: Hashable) -> frozenset[int]:
    """The slots bound in a state ``(conjunct, bound)`` (chain states count σ's prefix)."""
    assert isinstance(state, tuple)
    b, bound = state
    if isinstance(bound, int):
        return frozenset(c.orders[b][:bound])
    assert isinstance(bound, frozenset)
    return frozenset(c.plans[b].shape.slot_of(v).index for v in bound)


def _name(plan: Plan, slots: frozenset[int], order: tuple[int, ...]) -> str:
    """The variables of ``slots`` in ``order`` (the evaluation order), ``∅`` for none."""
    if not slots:
        return EMPTY
    names = [plan.shape.slots[i].var for i in sorted(slots, key=order.index)]
    return "".join(names) if all(len(v) == 1 for v in names) else "{" + ", ".join(names) + "}"


def state_name(c: CompiledNFA, state: Hashable) -> str:
    """A state of :meth:`CompiledNFA.iter_transitions`, ``(conjunct, bound)``, named as
    the picture names it: its variables in evaluation order (``cb``, ``∅``)."""
    b = _conjunct(state)
    order = c.orders[b] if c.kind != "eager" else tuple(range(c.plans[b].n))
    return _name(c.plans[b], _bound(c, state), order)


def nfa_graph(c: CompiledNFA, *, states: str = "auto", guards: str = "auto") -> nx.MultiDiGraph:
    """The picture of ``c`` (see the module docstring); ``states`` is accepted for the
    common signature (states are always named by their variables in binding order)."""
    expressions = dnf(c.pattern.expr)
    multi = len(c.plans) > 1
    branches = [_Branch(b, p, c.orders[b] if c.kind != "eager" else tuple(range(p.n)),
                        f"conjunct {b + 1}: {format_expr(expressions[b])}" if multi else None)
                for b, p in enumerate(c.plans)]
    takes = [t.guard for t in c.iter_transitions() if t.kind == "bind"]
    style = guard_style(guards, takes, AUTO_FULL_GUARDS)
    g = nx.MultiDiGraph(guards=style, legend=[], notes=[])
    _Builder(c, g, style, multi).build(branches)
    return g


def edge_guard(plan: Plan, source: frozenset[int], slot: int) -> Condition:
    """The conditions an edge that binds ``slot`` from the state with ``source`` bound
    evaluates: those whose variables are all bound once it is taken
    (:meth:`~kleene.engines.nfa.partial.Plan.admits` skips the others; each is checked
    on the edge that binds the last of its variables, :mod:`.conditions`)."""
    bound = source | {slot}
    return conjunction([cond for cond, where in plan.placed.incremental[slot]
                        if bound.issuperset(where)])


class _Builder:
    """Adds the states and edges of every conjunct to ``g``."""

    def __init__(self, c: CompiledNFA, g: nx.MultiDiGraph, style: str, multi: bool) -> None:
        self.c, self.g, self.style, self.multi = c, g, style, multi
        self.lazy = c.kind != "eager"
        #: ``legend`` style: each distinct edge guard's name Θi, in the order drawn
        self.names: dict[Condition, str] = {}

    def build(self, branches: list[_Branch]) -> None:
        c, g = self.c, self.g
        kind = {"eager": "eager NFA (Sec. 2.2)", "chain": "Lazy Chain NFA (Secs. 3-4)",
                "tree": "Tree NFA (Sec. 7)"}[c.kind]
        if self.multi and c.kind == "chain":
            kind = "Lazy Multi-Chain NFA (Sec. 5): one chain per conjunct of the DNF"
        g.graph["notes"].append(kind)
        for br in branches:
            self.branch(br)
        negated = sorted({t for p in c.plans for n in p.shape.negations for t in _names(n.types)})
        if self.lazy:
            types = sorted({t for p in c.plans for s in p.shape.slots for t in _slot_types(s)})
            for t in types:
                self.buffer_node(t)   # also the buffer no state of the drawn order reads
            g.graph["notes"].append("input buffers: " + ", ".join(types) +
                                    " (every event of these types is stored on arrival; a "
                                    "dotted read edge: the state that looks into it)")
        if negated:
            g.graph["notes"].append("negation buffers: " + ", ".join(negated) +
                                    " (kept for the check, Sec. 4.4)")
        g.graph["notes"].append("ordering filters (prec, succ) omitted, as in Figs. 6-7")

    # ------------------------------------------------------------ states

    def node(self, br: _Branch, slots: frozenset[int]) -> Hashable:
        plan = br.plan
        complete = len(slots) == plan.n
        post = self.post_negations(br)
        if self.multi and not slots:
            key: Hashable = "start"
        elif self.multi and complete and not post:
            key = "F"
        else:
            key = (br.index, slots)
        if key not in self.g:
            label = "F" if key == "F" else ("q1" if key == "start" else
                                            _name(plan, slots, br.order))
            cluster = None if isinstance(key, str) else br.title
            self.g.add_node(key, label=label, initial=not slots, cluster=cluster,
                            accepting=complete and not post)
        return key

    def post_negations(self, br: _Branch) -> list[int]:
        plan = br.plan
        return [k for k in range(len(plan.shape.negations))
                if not (plan.first_chance and plan.fc[k] is not None)]

    # ------------------------------------------------------------ edges

    def take_label(self, br: _Branch, slot: int, loop: bool, guard: Condition) -> str:
        """``take A a`` (``iterate``, ``take A+ a[]``) and the edge's guard (full, or its
        name Θi with the legend)."""
        s = br.plan.shape.slots[slot]
        kind = s.type or "ANY"
        head = f"iterate {s.var}" if s.unit is not None else \
            f"iterate {kind} {s.var}" if loop else \
            (f"take {kind}{format_repeat(s.low, s.high)} {s.var}[]" if s.iterated
             else f"take {kind} {s.var}")
        if self.style == "full":
            return "\n".join([head, *guard_lines(guard)])
        if self.style != "legend" or guard == TRUE:
            return head
        if guard not in self.names:
            self.names[guard] = f"Θ{len(self.names) + 1}"
            self.g.graph["legend"].append((self.names[guard], guard_set(guard)))
        return f"{head}, {self.names[guard]}"

    def skip_label(self, br: _Branch, bound: frozenset[int]) -> str:
        """``ignore``; for the Chain NFA the paper's two loops of a state (Sec. 4.1):
        ``ignore`` the types already taken, ``store`` those still to come."""
        if self.c.kind != "chain":
            return "ignore"
        types = br.plan.shape.slots
        k = len(bound)
        taken = list(dict.fromkeys(t for i in br.order[:k] for t in _slot_types(types[i])))
        later = list(dict.fromkeys(t for i in br.order[k + 1:] for t in _slot_types(types[i])))
        if self.multi and not bound:  # the merged q1 stores for every chain
            later = list(dict.fromkeys(t for b, p in enumerate(self.c.plans)
                                       for i in self.c.orders[b][1:]
                                       for t in _slot_types(p.shape.slots[i])))
        lines = [f"ignore {', '.join(taken)}"] if taken else []
        lines += [f"store {', '.join(later)}"] if later else []
        return "\n".join(lines) or "ignore"

    def branch(self, br: _Branch) -> None:
        c, g, plan = self.c, self.g, br.plan
        edges = [t for t in c.iter_transitions() if _conjunct(t.source) == br.index]
        path = {frozenset(br.order[:k]) for k in range(plan.n + 1)}
        kept = self.kept_states(br, edges, path)
        looping = {_bound(c, t.source) for t in edges
                   if t.kind == "bind" and t.source == t.target}
        for t in edges:
            src = _bound(c, t.source)
            dst = _bound(c, t.target)
            if src not in kept or dst not in kept:
                self.collapsed(br, src, dst, kept)
                continue
            a, z = self.node(br, src), self.node(br, dst)
            if t.kind == "skip":
                if c.kind == "tree" or (len(src) == plan.n and src not in looping) or \
                        (a == "start" and g.has_edge(a, a)):
                    continue  # Fig. 9 omits ignore edges; an accepting state needs none
                g.add_edge(a, z, variable=None, guard=TRUE, name=None,
                           label=self.skip_label(br, src), dot=IGNORE)
                continue
            assert t.variable is not None       # a bind edge binds a variable
            slot = plan.shape.slot_of(t.variable).index
            on_path = src in path and dst in path and c.kind == "tree"
            guard = edge_guard(plan, src, slot)
            g.add_edge(a, z, variable=t.variable, guard=guard, name=None,
                       label=self.take_label(br, slot, src == dst, guard),
                       dot=BOLD if on_path else {}, ident=(br.index, tuple(sorted(src)), slot))
        if c.kind == "tree":
            for k in range(plan.n + 1):
                self.g.nodes[self.node(br, frozenset(br.order[:k]))]["dot"] = BOLD
            order = ", ".join(plan.shape.slots[i].var for i in br.order)
            self.g.graph["notes"].append("ignore edges omitted, as in Fig. 9")
            self.g.graph["notes"].append(
                f"bold: the current order {order}" + (f" ({br.title})" if br.title else "") +
                ": the buffers' counts chose it in the last run (before any run: the "
                "given frequencies, else the pattern's order)")
        elif c.kind == "chain":
            order = ", ".join(plan.shape.slots[i].var if plan.shape.slots[i].unit is not None
                              else f"{plan.shape.slots[i].type or 'ANY'}" for i in br.order)
            self.g.graph["notes"].append(f"frequency order {order}" +
                                         (f" ({br.title})" if br.title else ""))
        if self.lazy:
            self.buffers(br, path if c.kind == "tree" else None)
        self.negations(br, edges)

    def kept_states(self, br: _Branch, edges: list[Transition], path: set[frozenset[int]]
                    ) -> set[frozenset[int]]:
        """Every state, or (beyond :data:`MAX_STATES`) the drawn order and its successors."""
        c = self.c
        every = {_bound(c, q) for t in edges for q in (t.source, t.target)}
        if len(every) <= MAX_STATES:
            return every
        return path | {dst for t in edges
                       if (src := _bound(c, t.source)) in path
                       and (dst := _bound(c, t.target)) != src}

    def collapsed(self, br: _Branch, src: frozenset[int], dst: frozenset[int],
                  kept: set[frozenset[int]]) -> None:
        """One dashed box per layer for the states not drawn, with one edge per pair."""
        g = self.g
        c = self.c
        every = {_bound(c, q) for t in c.iter_transitions()
                 if _conjunct(t.source) == br.index for q in (t.source, t.target)}

        def box(slots: frozenset[int]) -> Hashable:
            if slots in kept:
                return self.node(br, slots)
            key = ("more", br.index, len(slots))
            if key not in g:
                hidden = sum(1 for q in every if len(q) == len(slots) and q not in kept)
                g.add_node(key, label=f"+{hidden} states\n(layer {len(slots)})", initial=False,
                           accepting=False, cluster=br.title, shape="box",
                           dot={"style": "dashed,rounded", "fontcolor": "gray30"})
            return key
        a, z = box(src), box(dst)
        if a != z and not g.has_edge(a, z):
            g.add_edge(a, z, variable=None, guard=TRUE, name=None, label="",
                       dot={"style": "dashed", "color": "gray60"})

    def buffers(self, br: _Branch, path: set[frozenset[int]] | None) -> None:
        """Cylinders for the per-type buffers and dotted ``read`` edges to the states that
        look into them (for the Tree NFA: along the current order only)."""
        plan = br.plan
        for k, slot in enumerate(br.order):
            if k == 0:
                continue  # the first state takes arrivals only (nothing is earlier)
            state = self.node(br, frozenset(br.order[:k]))
            for t in _slot_types(plan.shape.slots[slot]):
                self.g.add_edge(self.buffer_node(t), state, variable=None, guard=TRUE,
                                name=None, label="read", dot=READ)

    def negations(self, br: _Branch, edges: list[Transition]) -> None:
        plan, g = br.plan, self.g
        negs = plan.shape.negations
        if not negs:
            return
        if "R" not in g:
            g.add_node("R", label="R", initial=False, accepting=False, cluster=None,
                       dot={"style": "dashed", "color": "firebrick", "fontcolor": "firebrick"})
        for k in range(len(negs)):
            if plan.first_chance and plan.fc[k] is not None:
                needed = plan.fc[k]
                assert needed is not None
                for t in edges:
                    src = _bound(self.c, t.source)
                    dst = _bound(self.c, t.target)
                    if needed <= dst and not needed <= src and (br.index, dst) in g:
                        self.reject(br, k, (br.index, dst), "first chance")
                        self.negation_buffer(br, k, (br.index, dst))
        post = self.post_negations(br)
        if not post:
            return
        here: Hashable = self.node(br, frozenset(range(plan.n)))
        for j, k in enumerate(post):
            last = j == len(post) - 1
            nxt: Hashable = ("F" if self.multi else ("F", br.index)) if last \
                else ("neg", br.index, post[j + 1])
            if nxt not in g:
                label = "F" if last else f"¬{negs[post[j + 1]].var}"
                g.add_node(nxt, label=label, initial=False, accepting=last,
                           cluster=None if nxt == "F" else br.title)
            self.reject(br, k, here, "post-processing")
            self.negation_buffer(br, k, here)
            word = "search_failed" if negs[k].hi else "timeout"
            g.add_edge(here, nxt, variable=None, guard=TRUE, name=None, label=word)
            here = nxt

    def buffer_node(self, t: str) -> Hashable:
        """The cylinder of type ``t``'s buffer (added once)."""
        key = ("buffer", t)
        if key not in self.g:
            self.g.add_node(key, label=f"buffer {t}", initial=False, accepting=False,
                            cluster="input buffers", shape="cylinder",
                            dot={"fontsize": "10", "height": "0.4"})
        return key

    def negation_buffer(self, br: _Branch, k: int, state: Hashable) -> None:
        """The buffer of a negated type (Sec. 4.4: kept for the check) read by ``state``."""
        for t in _names(br.plan.shape.negations[k].types):
            key = self.buffer_node(t)
            if not self.g.has_edge(key, state):
                self.g.add_edge(key, state, variable=None, guard=TRUE, name=None, label="read",
                                dot=READ)

    def reject(self, br: _Branch, k: int, state: Hashable, how: str) -> None:
        neg = br.plan.shape.negations[k]
        guard: Condition = conjunction(br.plan.placed.negation[k])
        lines = guard_lines(guard) if self.style == "full" else \
            ([guard_set(guard)] if guard != TRUE else [])
        what = f"NOT({neg.var})" if neg.part is not None else f"{neg.type or 'ANY'} {neg.var}"
        label = "\n".join([f"take {what} ({how})", *lines])
        self.g.add_edge(state, "R", variable=neg.var, guard=guard, name=None, label=label,
                        dot=REJECT)


def _names(types: Iterable[str | None]) -> list[str]:
    return sorted(t or "ANY" for t in types)


def _slot_types(s: Slot) -> list[str]:
    """The buffers a slot reads: its type's, or its unit's body's (:mod:`.subpattern`)."""
    return _names(s.unit.types) if s.unit is not None else [s.type or "ANY"]


register_drawer(CompiledNFA, nfa_graph)
