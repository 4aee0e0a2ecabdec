"""The memoised run of :mod:`.vm` as a compiled loop (numba), for row-local conditions.

Where every ``DEFINE`` condition is row-local and computed on whole columns, a run reads
nothing but the program and a matrix of booleans (variable × row), so the loop of
:meth:`.vm.Matcher.first` runs as machine code: the same instructions, the same order of
choices, the same failed-state memo, here a dense array over (row, pc, counters, empty
iteration flags) instead of a set of tuples. Profiling (``python -m bench
match-recognize``, cProfile) put 80 % of the V shape's time in the Python loop (about
25 µs a start row); numba is the one new dependency for it, imported only when a run
uses this loop. :func:`encode` says when it applies (``None``: the Python loop).

:func:`scan` runs a whole partition for ``AFTER MATCH SKIP PAST LAST ROW`` and ``TO NEXT
ROW`` (where to resume needs no measure): each start row tried in the reference's order,
the matches' start rows, lengths and rows' instruction addresses returned as arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kleene.engines.match_recognize.kernel_ops import (
    ANCHOR,
    DONE,
    ENTER,
    JUMP,
    LOOP,
    SPLIT,
    TEST,
)
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

#: The most memo entries a row may have (Tests × counter values × flags) for the kernel.
MAX_STATES = 1 << 16


@dataclass(frozen=True)
class Encoded:
    """A program as arrays: ``op[pc]`` and its arguments ``args[pc]`` (six columns; a
    ``Test``'s variable and its number among the Tests), the counters' radices and the
    memo's width (states per row: Tests × counter values × flags)."""

    op: np.ndarray
    args: np.ndarray
    radix: np.ndarray
    states: int
    variables: tuple[str, ...]


def encode(program: Program) -> Encoded | None:
    """The program as arrays, or ``None`` when its memo would be too wide (bounded
    quantifiers with large bounds: the Python loop's set of states then)."""
    n = len(program.code)
    op = np.zeros(n, dtype=np.int64)
    args = np.zeros((n, 6), dtype=np.int64)
    radix = np.ones(max(program.slots, 1), dtype=np.int64)
    variables: list[str] = []
    tests = 0
    for pc, ins in enumerate(program.code):
        if isinstance(ins, Test):
            var = ins.var.upper()
            if var not in variables:
                variables.append(var)
            op[pc], args[pc, 0], args[pc, 1] = TEST, variables.index(var), tests
            tests += 1
        elif isinstance(ins, Split):
            op[pc], args[pc, 0], args[pc, 1] = SPLIT, ins.first, ins.second
        elif isinstance(ins, Jump):
            op[pc], args[pc, 0] = JUMP, ins.target
        elif isinstance(ins, AnchorAt):
            op[pc], args[pc, 0] = ANCHOR, 0 if ins.kind == "^" else 1
        elif isinstance(ins, Enter):
            op[pc], args[pc, 0] = ENTER, ins.slot
        elif isinstance(ins, Loop):
            if max(ins.low, ins.high or 0) >= MAX_STATES:
                return None  # a counter beyond any memo row (and beyond int64, maybe)
            op[pc] = LOOP
            args[pc] = (ins.slot, ins.low, -1 if ins.high is None else ins.high,
                        int(ins.reluctant), ins.body, ins.exit)
            radix[ins.slot] = (ins.low if ins.high is None else ins.high) + 1
        else:
            assert isinstance(ins, Done)
            op[pc] = DONE
    # only a Test is remembered (by its number among the Tests, args[pc, 1]): the V shape's
    # memo is 3 of its 10 instructions wide, a third of the memory the loop zeroes and
    # touches (profiling: most of the compiled loop's time was the memo's page faults)
    states = max(tests, 1) * int(np.prod(radix.astype(object))) * (1 << len(radix))
    if states > MAX_STATES:
        return None
    return Encoded(op, args, radix, states, tuple(variables))


def scan(encoded: Encoded, masks: np.ndarray, n: int, next_row: bool, budget: int,
         starts: np.ndarray, horizon: int | None = None,
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool, int]:
    """Every match of a partition of ``n`` rows (module docstring): their start rows,
    lengths and rows' instruction addresses (flat), the steps taken, whether the
    ``budget`` of steps ran out, and the start row of the search that stopped at
    ``horizon`` (-1: none; :class:`.vm.Matcher`'s ``horizon``: the matches are those
    before it). ``starts``: the rows where a match may start (a row where it is false is
    skipped: no match starts there)."""
    # lazy: numba (and the loops' machine code, cached on disk) only when a run uses them
    from kleene.engines.match_recognize.jitted import scan as compiled

    result: tuple[np.ndarray, np.ndarray, np.ndarray, int, bool, int] = compiled(
        encoded.op, encoded.args, encoded.radix, encoded.states, masks, n, next_row, budget,
        starts, n + 1 if horizon is None else horizon)
    return result
