"""The run of a compiled row pattern at one start row: backtracking in preferment order.

A run is the depth-first search of :mod:`kleene.reference.match_recognize.matchings`
over the flat program of :mod:`.program`: a thread is ``(pc, row, counters)``; a
``Split`` or a ``Loop`` with two choices pushes the less preferred one and follows the
more preferred, so the first thread that reaches ``Done`` is the most preferred
matching whose every row satisfied its condition when it was mapped, the match at that
start row (TR 19075-5 §4.7; the reference's ``first_match``). Rows are mapped by
``Test``: a row-local condition (:mod:`.conditions`) is one look-up in a column of
booleans computed for the whole partition beforehand; any other condition is asked of
``accept(start, variables)``, the reference's evaluator over the match so far.

**Memoisation.** Where every condition the pattern tests is row-local (and there is no
``WITHIN``, which reads the start row), what a thread can still do depends on its
``(pc, row, counters)`` alone: the variables mapped before it cannot change whether a
later row passes. A ``Test`` state whose subtree was searched to its end without a
matching is then remembered as failed (a sentinel pushed under its subtree marks the
end) and never searched again, at this start row or a later one of the partition: each
state is searched at most once, which bounds a partition's work by (program size × rows
× counter values), as a Pike VM's one-thread-per-state rule does, while keeping the
leftmost-first order and the reference's handling of empty iterations without a second
machine. Where a condition reads the match so far (an aggregate, ``FIRST``/``LAST``, a
column of another variable, ``CLASSIFIER``, ``MATCH_NUMBER``), the same state can be
reached with different pasts and nothing is remembered: the search is the reference's,
exponential in the worst case, and every step is paid for from the budget, which stops
it with the budget's message. A step is a choice taken from the stack, as the reference's
search counts its steps: the engine never takes more of them than the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kleene.engines.match_recognize.program import (
    AnchorAt,
    Done,
    Enter,
    Jump,
    Loop,
    Program,
    Split,
    Test,
)
from kleene.reference.budget import Budget

#: ``accept(start, variables)``: does the last row of the match so far (rows ``start, …``
#: mapped to ``variables``) satisfy its variable's condition?
Accept = Callable[[int, Sequence[str]], bool]

#: Steps a run takes between two payments to the budget.
PAY_EVERY = 1024


class PastHorizon(Exception):
    """The search tested a row at or past the matcher's ``horizon``: over a stream's
    buffered rows, a later row may change it
    (:mod:`kleene.engines.match_recognize.settling`)."""


class Matcher:
    """Runs of ``program`` over one partition of ``n`` rows.

    ``masks[pc]``: for a ``Test`` whose condition is row-local, whether each row of the
    partition satisfies it (``None``: ask ``accept``). ``gates[pc]``: for a ``Test`` that
    asks ``accept``, whether each row may satisfy it (false: its condition is FALSE there
    whatever the match so far, :func:`.conditions.refuted`, and ``accept`` is not asked);
    ``None``: every row may. ``memo``: remember failed states (module docstring); they
    stay valid for every start row of the partition.
    ``horizon``: a search that tests a row at or past it (the row ``n`` included) stops
    with :class:`PastHorizon` (``None``: none does).
    """

    def __init__(self, program: Program, n: int, masks: Sequence[Sequence[bool] | None],
                 accept: Accept, budget: Budget, *, memo: bool,
                 gates: Sequence[Sequence[bool] | None] | None = None,
                 horizon: int | None = None) -> None:
        self.code = program.code
        self.slots = program.slots
        self.n = n
        self.masks = masks
        self.gates = gates if gates is not None else [None] * len(masks)
        self.accept = accept
        self.budget = budget
        self.memo = memo
        self.horizon = n + 1 if horizon is None else horizon
        self.failed: set[tuple[object, ...]] = set()

    def first(self, start: int) -> tuple[list[str], list[bool]] | None:
        """The variables of rows ``start, …`` and their exclusion marks in the most
        preferred matching at ``start`` whose rows all satisfy their conditions, or
        ``None``."""
        code, n, masks, accept, gates = self.code, self.n, self.masks, self.accept, self.gates
        memo, failed, horizon = self.memo, self.failed, self.horizon
        limit = min(n, horizon)
        zero = (0,) * self.slots
        # a thread (pc, row, counts, since); pc -1: a sentinel, row the index of its state
        # in ``pending`` (module docstring)
        stack: list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]
        stack = [(0, start, zero, (-1,) * self.slots)]
        pending: list[tuple[object, ...]] = []
        variables: list[str] = []
        excluded: list[bool] = []
        steps = 0
        key: tuple[object, ...] = ()
        while stack:
            pc, pos, counts, since = stack.pop()
            if pc < 0:
                failed.add(pending[pos])  # the state's subtree was searched: no matching
                continue
            del variables[pos - start:], excluded[pos - start:]
            steps += 1  # a choice taken from the stack: never more than the reference's steps
            if steps >= PAY_EVERY:
                self.budget.spend(steps)
                steps = 0
            while True:
                ins = code[pc]
                kind = type(ins)
                if kind is Test:
                    if pos >= limit:
                        if pos >= horizon:
                            self.budget.spend(steps)
                            raise PastHorizon(start)
                        break
                    if memo:
                        key = (pc, pos, counts, tuple(s == pos for s in since))
                        if key in failed:
                            break
                    assert isinstance(ins, Test)
                    variables.append(ins.var)
                    excluded.append(ins.excluded)
                    mask = masks[pc]
                    if mask is None:
                        gate = gates[pc]
                        ok = (gate is None or gate[pos]) and accept(start, variables)
                    else:
                        ok = mask[pos]
                    if not ok:
                        if memo:
                            failed.add(key)
                        break
                    if memo:
                        stack.append((-1, len(pending), counts, since))
                        pending.append(key)
                    pos += 1
                    pc += 1
                elif kind is Loop:
                    assert isinstance(ins, Loop)
                    slot = ins.slot
                    done = counts[slot]
                    if since[slot] == pos and done >= ins.low:
                        pc = ins.exit   # an empty iteration ends the quantifier (§7.2.8)
                        continue
                    more = ins.high is None or done < ins.high
                    leave = done >= ins.low
                    if more:
                        bumped = done + 1 if ins.high is not None else min(done + 1, ins.low)
                        again = (ins.body, pos, _set(counts, slot, bumped), _set(since, slot, pos))
                        if not leave:
                            pc, counts, since = again[0], again[2], again[3]
                        elif ins.reluctant:
                            stack.append(again)
                            pc = ins.exit
                        else:
                            stack.append((ins.exit, pos, counts, since))
                            pc, counts, since = again[0], again[2], again[3]
                    elif leave:
                        pc = ins.exit
                    else:
                        break
                elif kind is Split:
                    assert isinstance(ins, Split)
                    stack.append((ins.second, pos, counts, since))
                    pc = ins.first
                elif kind is Jump:
                    assert isinstance(ins, Jump)
                    pc = ins.target
                elif kind is Enter:
                    assert isinstance(ins, Enter)
                    counts = _set(counts, ins.slot, 0)
                    since = _set(since, ins.slot, -1)
                    pc += 1
                elif kind is AnchorAt:
                    assert isinstance(ins, AnchorAt)
                    if pos != (0 if ins.kind == "^" else n):
                        break
                    pc += 1
                else:
                    assert isinstance(ins, Done)
                    self.budget.spend(steps)
                    return variables, excluded
        self.budget.spend(steps)
        return None


def _set(values: tuple[int, ...], slot: int, value: int) -> tuple[int, ...]:
    return values[:slot] + (value,) + values[slot + 1:]
