"""The compiled loops of :mod:`.kernel` (numba, cached on disk); imported only when a run
uses them (their module docstring says why they exist and what they compute)."""

from __future__ import annotations

import numba
import numpy as np

from kleene.engines.match_recognize.kernel_ops import ANCHOR, ENTER, JUMP, LOOP, SPLIT, TEST

jit = numba.njit(cache=True, nogil=True)



@jit
def first(op, args, radix, states, masks, n, start, memo, path, budget):
    slots = len(radix)
    cap = 64
    s_pc = np.empty(cap, np.int64)
    s_pos = np.empty(cap, np.int64)
    s_cnt = np.empty((cap, slots), np.int64)
    s_since = np.empty((cap, slots), np.int64)
    top = 0
    s_pc[0], s_pos[0] = 0, start
    s_cnt[0, :] = 0
    s_since[0, :] = -1
    top = 1
    counts = np.zeros(slots, np.int64)
    since = np.zeros(slots, np.int64)
    steps = 0
    while top > 0:
        top -= 1
        pc = s_pc[top]
        if pc < 0:
            memo[s_pos[top]] = 1     # a sentinel: the state's subtree failed
            continue
        pos = s_pos[top]
        counts[:] = s_cnt[top]
        since[:] = s_since[top]
        while True:
            o = op[pc]
            if o != JUMP and o != ENTER:
                steps += 1
                if steps > budget:
                    return -2, steps
            if top + 2 >= cap:
                cap *= 2
                s_pc2 = np.empty(cap, np.int64)
                s_pos2 = np.empty(cap, np.int64)
                s_cnt2 = np.empty((cap, slots), np.int64)
                s_since2 = np.empty((cap, slots), np.int64)
                s_pc2[:top] = s_pc[:top]
                s_pos2[:top] = s_pos[:top]
                s_cnt2[:top] = s_cnt[:top]
                s_since2[:top] = s_since[:top]
                s_pc, s_pos, s_cnt, s_since = s_pc2, s_pos2, s_cnt2, s_since2
            if o == TEST:
                if pos >= n:
                    break
                code = 0
                flags = 0
                for k in range(slots):
                    code = code * radix[k] + counts[k]
                    flags = flags * 2 + (1 if since[k] == pos else 0)
                key = pos * states + (pc * (states // len(op) // (1 << slots)) + code) \
                    * (1 << slots) + flags
                if memo[key]:
                    break
                path[pos - start] = pc
                if not masks[args[pc, 0], pos]:
                    memo[key] = 1
                    break
                s_pc[top] = -1
                s_pos[top] = key
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
                        s_pc[top], s_pos[top] = args[pc, 4], pos
                        s_cnt[top] = counts
                        s_since[top] = since
                        s_cnt[top, slot] = bumped
                        s_since[top, slot] = pos
                        top += 1
                        pc = args[pc, 5]
                    else:
                        s_pc[top], s_pos[top] = args[pc, 5], pos
                        s_cnt[top] = counts
                        s_since[top] = since
                        top += 1
                        counts[slot] = bumped
                        since[slot] = pos
                        pc = args[pc, 4]
                elif leave:
                    pc = args[pc, 5]
                else:
                    break
            elif o == SPLIT:
                s_pc[top], s_pos[top] = args[pc, 1], pos
                s_cnt[top] = counts
                s_since[top] = since
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
                return pos - start, steps
    return -1, steps

@jit
def scan(op, args, radix, states, masks, n, next_row, budget):
    memo = np.zeros((n + 1) * states, np.uint8)
    path = np.empty(n + 1, np.int64)
    starts = np.empty(16, np.int64)
    lengths = np.empty(16, np.int64)
    pcs = np.empty(16, np.int64)
    found = 0
    used = 0
    total = 0
    pos = 0
    while pos < n:
        length, steps = first(op, args, radix, states, masks, n, pos, memo, path,
                              budget - total)
        total += steps
        if length == -2:
            return starts[:found], lengths[:found], pcs[:used], total, True
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
    return starts[:found], lengths[:found], pcs[:used], total, False
