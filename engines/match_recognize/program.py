"""A row pattern compiled to a program of instructions, in preferment order.

The program is the backtracking regular-expression machine of
:mod:`kleene.reference.match_recognize.matchings` (ISO/IEC TR 19075-5:2016 §4.7 and
§7.2.8, as that module cites them) made flat: the reference walks an agenda of AST
nodes; here every node is laid out once as instructions with numbered addresses, and a
run (:mod:`.vm`) moves a program counter. The instructions:

- ``Test(var, excluded)``: map the current row to ``var`` if its ``DEFINE`` holds, then
  the next row; ``excluded`` says the row is inside ``{- … -}`` (known where the
  instruction sits, so no mark is needed at run time, TR §4.7.4);
- ``Split(first, second)``: try ``first``; when everything after it fails, ``second``
  (alternation: the left part first; a quantifier's iterate-or-leave choice);
- ``Jump(target)``;
- ``Anchor(kind)``: ``^`` only at the partition's first row, ``$`` only after its last;
- ``Enter(slot)`` and ``Loop(slot, low, high, reluctant, body, exit)``: a quantifier
  with its own counter ``slot`` (iterations done, and the row where the last began).
  ``Loop`` decides as the reference's ``_Loop``: once the count has reached ``low``, an
  iteration that began at this very row (an empty one) ends the quantifier (TR §7.2.8);
  otherwise greedy prefers another iteration (if fewer than ``high``) to leaving (if at
  least ``low``), reluctant the reverse. Bounded quantifiers are counted, not unrolled:
  the program stays linear in the pattern;
- ``PERMUTE(p1, …, pn)`` is laid out as its ordered alternation: the concatenations of
  every order of the items, in lexicographic order of their positions (TR §4.7.5);
- ``Done``: a matching.

:meth:`Program.iter_transitions` lists the program as the transitions of an automaton
whose states are the addresses (:class:`~kleene.engines.protocol.Transition`: ``bind``
for a ``Test``, ``epsilon`` for the rest, each labelled by what it is), so ``kleene
draw``'s generic renderer draws it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from kleene.engines.protocol import Transition
from kleene.reference.conditions import TRUE
from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import (
    Alt,
    Anchor,
    Concat,
    Empty,
    Exclude,
    Permute,
    Quantified,
    RowPattern,
    Var,
)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Test:
    """Map the current row to ``var`` (as written; compared case-insensitively) if it
    satisfies its ``DEFINE``."""

    var: str
    excluded: bool


@dataclass(frozen=True, slots=True)
class Split:
    """Try ``first``, then ``second``."""

    first: int
    second: int


@dataclass(frozen=True, slots=True)
class Jump:
    """Go to ``target``."""

    target: int


@dataclass(frozen=True, slots=True)
class AnchorAt:
    """``^`` (row 0) or ``$`` (after the last row)."""

    kind: str


@dataclass(frozen=True, slots=True)
class Enter:
    """Start quantifier ``slot``: no iteration done yet."""

    slot: int


@dataclass(frozen=True, slots=True)
class Loop:
    """The head of quantifier ``slot``: iterate (to ``body``) or leave (to ``exit``)."""

    slot: int
    low: int
    high: int | None
    reluctant: bool
    body: int
    exit: int


@dataclass(frozen=True, slots=True)
class Done:
    """A matching."""


Instruction = Test | Split | Jump | AnchorAt | Enter | Loop | Done


class _Builder:
    def __init__(self) -> None:
        self.code: list[Instruction | None] = []
        self.slots = 0

    def emit(self, ins: Instruction | None) -> int:
        self.code.append(ins)
        return len(self.code) - 1

    def patch(self, at: int, ins: Instruction) -> None:
        self.code[at] = ins

    def here(self) -> int:
        return len(self.code)

    def lay(self, p: RowPattern, excluded: bool) -> None:
        if isinstance(p, Var):
            self.emit(Test(p.name, excluded))
        elif isinstance(p, Empty):
            pass
        elif isinstance(p, Concat):
            for item in p.items:
                self.lay(item, excluded)
        elif isinstance(p, Alt):
            self.alternatives([partial(self.lay, item, excluded) for item in p.items])
        elif isinstance(p, Permute):
            orders = itertools.permutations(range(len(p.items)))
            self.alternatives([partial(self.sequence, [p.items[i] for i in order], excluded)
                               for order in orders])
        elif isinstance(p, Anchor):
            self.emit(AnchorAt(p.kind))
        elif isinstance(p, Exclude):
            self.lay(p.body, True)
        elif isinstance(p, Quantified):
            self.quantified(p, excluded)
        else:
            raise Unsupported(f"row pattern {type(p).__name__} is not supported")

    def sequence(self, items: list[RowPattern], excluded: bool) -> None:
        for item in items:
            self.lay(item, excluded)

    def alternatives(self, parts: list[Callable[[], None]]) -> None:
        """``parts`` (callables laying each out) as an ordered choice."""
        jumps: list[int] = []
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            split = -1 if last else self.emit(None)
            part()
            if not last:
                jumps.append(self.emit(None))
                self.patch(split, Split(split + 1, self.here()))
        for j in jumps:
            self.patch(j, Jump(self.here()))

    def quantified(self, q: Quantified, excluded: bool) -> None:
        slot = self.slots
        self.slots += 1
        self.emit(Enter(slot))
        head = self.emit(None)
        self.lay(q.body, excluded)
        self.emit(Jump(head))
        self.patch(head, Loop(slot, q.low, q.high, q.reluctant, head + 1, self.here()))


@dataclass(frozen=True)
class Program:
    """The instructions of a row pattern (module docstring) and its quantifiers' count."""

    code: tuple[Instruction, ...]
    slots: int

    def iter_transitions(self) -> Iterator[Transition]:
        """The program as an automaton over its addresses (module docstring)."""
        for pc, ins in enumerate(self.code):
            if isinstance(ins, Test):
                label = f"{ins.var} (excluded)" if ins.excluded else ins.var
                yield Transition(pc, pc + 1, label, TRUE)
            elif isinstance(ins, Split):
                yield Transition(pc, ins.first, "first", TRUE, kind="epsilon")
                yield Transition(pc, ins.second, "second", TRUE, kind="epsilon")
            elif isinstance(ins, Jump):
                yield Transition(pc, ins.target, None, TRUE, kind="epsilon")
            elif isinstance(ins, AnchorAt):
                yield Transition(pc, pc + 1, ins.kind, TRUE, kind="epsilon")
            elif isinstance(ins, Enter):
                yield Transition(pc, pc + 1, f"enter #{ins.slot}", TRUE, kind="epsilon")
            elif isinstance(ins, Loop):
                bound = "∞" if ins.high is None else str(ins.high)
                mode = "reluctant" if ins.reluctant else "greedy"
                yield Transition(pc, ins.body, f"iterate #{ins.slot} ({ins.low}..{bound}, "
                                 f"{mode})", TRUE, kind="epsilon")
                yield Transition(pc, ins.exit, f"leave #{ins.slot}", TRUE, kind="epsilon")

    @property
    def initial(self) -> frozenset[int]:
        return frozenset({0})

    @property
    def accepting(self) -> frozenset[int]:
        return frozenset(pc for pc, ins in enumerate(self.code) if isinstance(ins, Done))


def compile_pattern(pattern: RowPattern) -> Program:
    """The program of ``pattern`` (module docstring)."""
    b = _Builder()
    b.lay(pattern, False)
    b.emit(Done())
    code = tuple(b.code)
    assert all(ins is not None for ins in code)
    return Program(tuple(ins for ins in code if ins is not None), b.slots)


#: A ``Test`` reached: its address and the quantifiers' counters there.
Reached = tuple[int, tuple[int, ...]]


#: The states :func:`reach` visits before it gives up (:class:`TooManyStates`): nested
#: counted quantifiers (``((A?){700}){700}``) have as many counter tuples as their bounds'
#: product.
REACH_LIMIT = 20_000


class TooManyStates(Exception):
    """:func:`reach` visited more than :data:`REACH_LIMIT` states: ask :func:`loose_reach`."""


def reach(program: Program, pc: int, counts: tuple[int, ...], limit: int | None = None,
          ) -> tuple[frozenset[Reached], bool]:
    """The ``Test`` states a run at ``pc`` with ``counts``, at a row no iteration began at,
    reaches before it maps a row, and whether it reaches ``Done`` so: every choice followed
    as :class:`.vm.Matcher` takes it (counters, and a ``Loop``'s empty-iteration rule), an
    anchor passed (a superset of the states a run reaches where the pattern has one);
    :class:`TooManyStates` past ``limit`` states (default :data:`REACH_LIMIT`)."""
    limit = REACH_LIMIT if limit is None else limit
    tests: set[Reached] = set()
    done = False
    seen: set[tuple[int, tuple[int, ...], tuple[bool, ...]]] = set()
    todo = [(pc, counts, (False,) * program.slots)]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        if len(seen) > limit:
            raise TooManyStates(f"more than {limit} states")
        at, counts, fresh = state
        ins = program.code[at]
        if isinstance(ins, Test):
            tests.add((at, counts))
        elif isinstance(ins, Done):
            done = True
        elif isinstance(ins, Split):
            todo += [(ins.first, counts, fresh), (ins.second, counts, fresh)]
        elif isinstance(ins, Jump):
            todo.append((ins.target, counts, fresh))
        elif isinstance(ins, Enter):
            todo.append((at + 1, _with(counts, ins.slot, 0), _with(fresh, ins.slot, False)))
        elif isinstance(ins, AnchorAt):
            todo.append((at + 1, counts, fresh))
        else:
            assert isinstance(ins, Loop)
            now = counts[ins.slot]
            if fresh[ins.slot] and now >= ins.low:   # an empty iteration ends it (§7.2.8)
                todo.append((ins.exit, counts, fresh))
                continue
            if ins.high is None or now < ins.high:
                bumped = now + 1 if ins.high is not None else min(now + 1, ins.low)
                todo.append((ins.body, _with(counts, ins.slot, bumped),
                             _with(fresh, ins.slot, True)))
            if now >= ins.low:
                todo.append((ins.exit, counts, fresh))
    return frozenset(tests), done


def _with(values: tuple[T, ...], slot: int, value: T) -> tuple[T, ...]:
    return values[:slot] + (value,) + values[slot + 1:]


def loose_reach(program: Program, pc: int) -> tuple[frozenset[int], bool]:
    """The ``Test`` addresses reachable from ``pc`` before a row is mapped, and whether
    ``Done`` is, with every ``Loop`` free to iterate or leave (counters ignored): a
    superset of what :func:`reach` finds from ``pc`` with any counters, in time linear in
    the program."""
    tests: set[int] = set()
    done = False
    seen: set[int] = set()
    todo = [pc]
    while todo:
        at = todo.pop()
        if at in seen:
            continue
        seen.add(at)
        ins = program.code[at]
        if isinstance(ins, Test):
            tests.add(at)
        elif isinstance(ins, Done):
            done = True
        elif isinstance(ins, Split):
            todo += [ins.first, ins.second]
        elif isinstance(ins, Jump):
            todo.append(ins.target)
        elif isinstance(ins, Loop):
            todo += [ins.body, ins.exit]
        else:
            assert isinstance(ins, Enter | AnchorAt)
            todo.append(at + 1)
    return frozenset(tests), done
