"""The compiled loops of :mod:`.kernel` (numba, cached on disk); imported only when a run
uses them (their module docstring says why they exist and what they compute)."""

from __future__ import annotations

import numba
import numpy as np

from kleene.engines.match_recognize.kernel_ops import ANCHOR, ENTER, JUMP, LOOP, SPLIT, TEST

jit = numba.njit(cache=True, nogil=True)



@jit
def first(op, args, radix, states, masks, n, start, memo, path, budget, stack, counts, since,
          horizon):
    """The match at ``start`` (its length; -1 none, -2 the budget ran out, -3 a test at or
    past ``horizon``, :class:`.vm.PastHorizon`), the steps taken
    and the stack (grown if it had to be: one array of threads, each ``pc, pos, counts,
    since``, reused from one start row to the next, as are ``counts`` and ``since``, the
    running thread's)."""
    slots = len(radix)
    stride = 1   # the counters' values: the memo's entries per Test and flags
    for k in range(slots):
        stride *= radix[k]
    width = 2 + 2 * slots
    stack[0, 0], stack[0, 1] = 0, start
    stack[0, 2:2 + slots] = 0
    stack[0, 2 + slots:] = -1
    top = 1
    steps = 0
    limit = min(n, horizon)
    while top > 0:
        top -= 1
        pc = stack[top, 0]
        if pc < 0:
            memo[stack[top, 1]] = 1     # a sentinel: the state's subtree failed
            continue
        pos = stack[top, 1]
        for k in range(slots):
            counts[k] = stack[top, 2 + k]
            since[k] = stack[top, 2 + slots + k]
        steps += 1  # a choice taken from the stack, as vm.py counts it
        if steps > budget:
            return -2, steps, stack
        while True:
            o = op[pc]
            if top + 2 >= stack.shape[0]:
                grown = np.empty((2 * stack.shape[0], width), np.int64)
                grown[:top] = stack[:top]
                stack = grown
            if o == TEST:
                if pos >= limit:
                    if pos >= horizon:
                        return -3, steps, stack
                    break
                code = 0
                flags = 0
                for k in range(slots):
                    code = code * radix[k] + counts[k]
                    flags = flags * 2 + (1 if since[k] == pos else 0)
                key = pos * states + (args[pc, 1] * stride + code) * (1 << slots) + flags
                if memo[key]:
                    break
                path[pos - start] = pc
                if not masks[args[pc, 0], pos]:
                    memo[key] = 1
                    break
                stack[top, 0] = -1
                stack[top, 1] = key
                top += 1
                pos += 1
                pc += 1
            elif o == LOOP:
                slot, low, high = args[pc, 0], args[pc, 1], args[pc, 2]
                done = counts[slot]
                if since[slot] == pos and done >= low:
                    pc = args[pc, 5]
                    continue
                more = high < 0 or done < high
                leave = done >= low
                if more:
                    bumped = done + 1 if high >= 0 else min(done + 1, low)
                    if not leave:
                        counts[slot] = bumped
                        since[slot] = pos
                        pc = args[pc, 4]
                    elif args[pc, 3] == 1:   # reluctant: leave first
                        _push(stack, top, args[pc, 4], pos, counts, since, slots)
                        stack[top, 2 + slot] = bumped
                        stack[top, 2 + slots + slot] = pos
                        top += 1
                        pc = args[pc, 5]
                    else:
                        _push(stack, top, args[pc, 5], pos, counts, since, slots)
                        top += 1
                        counts[slot] = bumped
                        since[slot] = pos
                        pc = args[pc, 4]
                elif leave:
                    pc = args[pc, 5]
                else:
                    break
            elif o == SPLIT:
                _push(stack, top, args[pc, 1], pos, counts, since, slots)
                top += 1
                pc = args[pc, 0]
            elif o == JUMP:
                pc = args[pc, 0]
            elif o == ENTER:
                counts[args[pc, 0]] = 0
                since[args[pc, 0]] = -1
                pc += 1
            elif o == ANCHOR:
                if pos != (0 if args[pc, 0] == 0 else n):
                    break
                pc += 1
            else:
                return pos - start, steps, stack
    return -1, steps, stack


@jit
def _push(stack, top, pc, pos, counts, since, slots):
    stack[top, 0], stack[top, 1] = pc, pos
    for k in range(slots):
        stack[top, 2 + k] = counts[k]
        stack[top, 2 + slots + k] = since[k]


@jit
def scan(op, args, radix, states, masks, n, next_row, budget, can_start, horizon):
    memo = np.zeros((n + 1) * states, np.uint8)
    path = np.empty(n + 1, np.int64)
    stack = np.empty((64, 2 + 2 * len(radix)), np.int64)
    counts = np.zeros(len(radix), np.int64)
    since = np.zeros(len(radix), np.int64)
    starts = np.empty(16, np.int64)
    lengths = np.empty(16, np.int64)
    pcs = np.empty(16, np.int64)
    found = 0
    used = 0
    total = 0
    pos = 0
    while pos < n:
        if not can_start[pos]:
            pos += 1
            continue
        length, steps, stack = first(op, args, radix, states, masks, n, pos, memo, path,
                                     budget - total, stack, counts, since, horizon)
        total += steps
        if length == -2:
            return starts[:found], lengths[:found], pcs[:used], total, True, -1
        if length == -3:
            return starts[:found], lengths[:found], pcs[:used], total, False, pos
        if length < 0:
            pos += 1
            continue
        if found == len(starts):
            starts = np.concatenate((starts, np.empty(found, np.int64)))
            lengths = np.concatenate((lengths, np.empty(found, np.int64)))
        while used + length > len(pcs):
            pcs = np.concatenate((pcs, np.empty(len(pcs), np.int64)))
        starts[found], lengths[found] = pos, length
        pcs[used:used + length] = path[:length]
        found += 1
        used += length
        pos = pos + 1 if length == 0 or next_row else pos + length
    return starts[:found], lengths[:found], pcs[:used], total, False, -1
