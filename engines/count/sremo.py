"""The number of SREMO matches (policy ``stream``: CEL's ``ALL`` for a CEQL query),
without enumerating them.

The count is ``|⋃_k {M reported at k}|`` of docs/architecture.md, "SREMO streaming"
(:func:`kleene.reference.sremo.streaming.stream_matches`): at each position ``k`` every
``M ∈ Match(e, S_j..k)`` with ``max(M) = k``, each set of marked positions once, however
many runs, starts ``j`` or valuations produce it. It is computed by dynamic programming
over the runs of seed 004's SRT of ``e`` (report Thm 19, ε-free by Alg. 2:
:func:`kleene.engines.srt.compile.compile_sremo`, trimmed to the states that can still
report, :func:`kleene.engines.srt.run.reporting`):

- a match is its *mark word*: one bit per element, 1 where the element is marked. The
  streaming SRT of ``(⊤↑⊗)* · e`` (report Sec. 4.3) is determinized over letters
  (element, bit): a state is ``(fresh, S)``, ``S`` the SRT states some run reaches
  producing exactly the bits read so far, ``fresh`` whether they are all 0 (a run may
  still start: the prefix ``(⊤↑⊗)*`` outputs only 0). The guards being unary, an
  element acts through its *minterm* (which guards it satisfies), so the automaton is
  built over the minterms the stream has (:class:`_Determinized`). Each mark word
  reaches exactly one state, so counting words by state counts distinct matches;
- the matches ending at element ``k`` are the words whose bit at ``k`` is 1 and whose
  step there reaches a final SRT state (the run reports through a marking transition);
- a top-level window ``e[1..w]`` or ``e[WITHIN τ]`` bounds the marked positions only
  (report Def. 39; :func:`~kleene.reference.durations.fits`): the matches ending at ``k``
  inside it are the words that are 0 before ``lo_k``, the oldest element that fits with
  ``k``. From the state ``z_lo`` the all-0 word reaches at ``lo_k`` they number
  ``z_lo · M_lo ⋯ M_{k−1} · report_k``, the product kept over the sliding window of
  elements by :class:`~kleene.engines.count.transfer.SlidingProduct` (two stacks, O(1)
  products amortised per element);
- ``e PARTITION BY a`` counts each part alone (its own positions, as the reference
  renumbers them), a part as :func:`kleene.reference.policies.part_of` draws it; over
  the columns of a loaded stream the parts are cut once and each part's candidates found
  by Arrow's kernels (:mod:`kleene.engines.count.parts`), else event by event.

A run of consecutive elements that no marking transition can take (the events a CEQL
query's gaps skip) is one element: its transfer is a function (only bit 0), its power
computed once; at the front of the window it is dropped at once (its bits are 0 whether
it is in the window or not).

Time: one pass to read the minterms, one per part over the elements some marking
transition can take and the runs between them: linear in the stream, times ``n²`` (``n``
the determinized states; a deterministic step has two successors per state, so a
product with it costs O(n²)). Memory: the elements' minterms, and the window's matrices.

A register that holds each run's first element and is compared for equality only
(``mark φ -> r ; ... ; mark {ψ AND ~.A = r.B}``: ``PARTITION BY`` written with a
register) keys the runs and their matches: :mod:`kleene.engines.count.registers` counts
each key alone over the elements that concern it.

Outside the fragment (:func:`outside` says why, and ``count_matches`` enumerates): a
policy other than ``stream`` (``literal`` reads the whole string); any other register
(a step then depends on the run's registers, not on the element alone: an order such as
``~.price > x.price``, a register written later in the run, read under ``PARTITION BY``);
a window below the top (a strategy's, a negation's: the span of a part of the match);
negation and intersection (the complement of an expression and the product of two are
not built here); more than :data:`MAX_STATES` determinized states (said when met:
:class:`TooManyStates`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from kleene.data.source import column_batches, columns_of_source
from kleene.engines.count.consume import kept
from kleene.engines.count.ending import Element, counter, up_to_last_end
from kleene.engines.count.parts import part_elements
from kleene.engines.count.registers import Keyed, Labels, keyed, keyed_elements, labels
from kleene.engines.count.transfer import Sparse
from kleene.engines.srt.automaton import SRT, Guard, compile_guard
from kleene.engines.srt.columns import MAX_BITS, ROWS, candidates
from kleene.engines.srt.compile import Options, compile_sremo
from kleene.engines.srt.run import reporting
from kleene.reference.ceql.selection import Selected
from kleene.reference.conditions import TRUE, Condition
from kleene.reference.durations import Duration, fits
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.policies import part_of
from kleene.reference.query import Query
from kleene.reference.sremo.expressions import (
    Atom,
    Intersect,
    Not,
    Partition,
    Window,
    reads,
    walk,
)
from kleene.reference.sremo.features import EXPRESSION_TYPES
from kleene.reference.sremo.strategies import rewrite

#: The most determinized states the count builds before it gives up.
MAX_STATES = 2048


class TooManyStates(Unsupported):
    """The determinized automaton passed :data:`MAX_STATES`."""


@dataclass(frozen=True)
class Plan:
    """What the count reads of an expression: the trimmed SRT of its body, its top-level
    window (``None``, a count, or a duration), its partition attributes; for a CEQL query
    with ``SELECT ALL`` (:class:`~kleene.reference.ceql.selection.Selected`), its
    consumption (``PARTITION`` read as ``ANY`` without ``PARTITION BY``) and ``LIMIT``
    (:mod:`kleene.engines.count.consume`)."""

    srt: SRT
    window: int | Duration | None
    by: tuple[str, ...]
    keyed: Keyed | None = None
    consumption: str = "NONE"
    limit: int | None = None
    intervals: bool = False       # SELECT NEXT|LAST: one complex event per interval


def plan(query: Query) -> Plan | str:
    """The plan of ``query``, or why the count does not claim it (one line)."""
    if query.policy != "stream":
        return f"counting covers SREMO's policy stream, not {query.policy}"
    e = query.pattern
    if isinstance(e, Selected):
        if e.strategy not in ("ALL", "NEXT", "LAST"):
            return (f"counting covers SELECT ALL, NEXT and LAST, not {e.strategy} (which "
                    "compares the complex events of one interval by inclusion)")
        found = plan(replace(query, pattern=e.body))
        if isinstance(found, str):
            return found
        intervals = e.strategy != "ALL"
        if intervals and found.keyed is not None:
            return (f"SELECT {e.strategy} is counted by interval, and a register keying "
                    "the runs is not read that way")
        consumption = "ANY" if e.consumption == "PARTITION" and not found.by \
            else e.consumption
        return replace(found, consumption=consumption, limit=e.limit, intervals=intervals)
    if not isinstance(e, EXPRESSION_TYPES):
        return f"counting covers SREMO expressions here, not {type(e).__name__}"
    by: tuple[str, ...] = ()
    if isinstance(e, Partition):
        by, e = e.by, e.body
    window: int | Duration | None = None
    if isinstance(e, Window):
        window, e = e.width, e.body
    body = rewrite(e)
    registered = False
    for node in walk(body):
        if isinstance(node, Window):
            return "a window below the top of the expression bounds part of a match"
        if isinstance(node, (Not, Intersect)):
            return "negation and intersection are counted by listing the matches"
        registered = registered or (isinstance(node, Atom) and bool(reads(node.condition)))
    srt = reporting(compile_sremo(body, Options(query.time_unit, query.reading)), "stream")
    if not registered:
        return Plan(srt, window, by)
    if by:
        return "a guard reads a register under PARTITION BY"
    key = keyed(srt)
    return key if isinstance(key, str) else Plan(srt, window, by, key)   # None: no reads left


def outside(query: Query) -> str | None:
    """Why the count does not claim ``query``, or ``None``."""
    found = plan(query)
    return found if isinstance(found, str) else None


State = tuple[bool, frozenset[int]]


class _Determinized:
    """The streaming SRT of ``(⊤↑⊗)* · e`` determinized over (minterm, bit) letters (the
    module docstring), over the minterms given; states numbered from 0, the start."""

    def __init__(self, srt: SRT, out: Labels, minterms: Iterable[int]) -> None:
        self.srt = srt
        self.out = out
        self.states: list[State] = [(True, frozenset())]
        self.index = {self.states[0]: 0}
        self.zero: dict[int, list[int | None]] = {}
        self.one: dict[int, list[int | None]] = {}
        self.reports: dict[int, list[int]] = {}
        mids = sorted(set(minterms))
        for m in mids:
            self.zero[m], self.one[m], self.reports[m] = [], [], []
        i = 0
        while i < len(self.states):
            for m in mids:
                q0, _ = self._step(self.states[i], m, False)
                q1, report = self._step(self.states[i], m, True)
                self.zero[m].append(q0)
                self.one[m].append(q1)
                if report:
                    self.reports[m].append(i)
            i += 1

    def _step(self, state: State, m: int, bit: bool) -> tuple[int | None, bool]:
        fresh, held = state
        sources = held | {self.srt.start} if fresh else held
        targets = frozenset(t for q in sources for g, mark, t in self.out[q]
                            if mark == bit and (g == 0 or m & g))
        after = (fresh and not bit, targets)
        report = bit and bool(targets & self.srt.finals)
        if not after[0] and not targets:
            return None, report
        q = self.index.get(after)
        if q is None:
            if len(self.states) >= MAX_STATES:
                raise TooManyStates(f"counting builds more than {MAX_STATES} states for this "
                                    "expression: count by listing (--engine srt)")
            q = self.index[after] = len(self.states)
            self.states.append(after)
        return q, report

    def matrix(self, m: int) -> Sparse:
        """The transfer matrix of an element of minterm ``m`` (both bits)."""
        out: Sparse = []
        for a, b in zip(self.zero[m], self.one[m], strict=True):
            row = {} if a is None else {a: 1}
            if b is not None:
                row[b] = row.get(b, 0) + 1
            out.append(sorted(row.items()))
        return out

    def zero_power(self, m: int, times: int) -> list[int | None]:
        """The step of ``times`` elements of minterm ``m`` that are all left unmarked."""
        result: list[int | None] = list(range(len(self.states)))
        base = self.zero[m]
        while times:
            if times & 1:
                result = [None if q is None else base[q] for q in result]
            base = [None if q is None else base[q] for q in base]
            times >>= 1
        return result


def count(query: Query, source: Iterable[Event]) -> int:
    """The number of SREMO matches of ``query`` (one :func:`plan` claims) on ``source``."""
    found = plan(query)
    assert isinstance(found, Plan), found
    srt = found.srt
    if found.keyed is not None:
        out, tested = labels(srt)
        parts = keyed_elements(source, srt, found.keyed, tested)
        automaton = _Determinized(srt, out, {int(x[2]) for xs in parts.values() for x in xs})
        return _total(automaton, parts, found, query)
    guards = sorted({e.guard for e in srt.edges if e.guard != TRUE}, key=str)
    bits = {g: 1 << i for i, g in enumerate(guards)}
    marking = 0
    any_marks = False       # a marking transition any element can take (guard TRUE)
    for e in srt.edges:
        if e.mark:
            any_marks = any_marks or e.guard == TRUE
            marking |= 0 if e.guard == TRUE else bits[e.guard]
    cut: dict[object, list[Element]] | None = None     # over columns
    if not any_marks and len(guards) <= MAX_BITS:      # minterm 0 is never marked
        columns = columns_of_source(source) if found.by else None
        batches = None if found.by else column_batches(source, ROWS)
        if columns is not None:
            cut = part_elements(columns, found.by, guards)
        elif batches is not None:
            cut = {None: _column_elements(batches, guards)}
    parts = cut if cut is not None else _elements(
        source, found.by, [(bits[g], compile_guard(g, {})) for g in guards],
        None if any_marks else marking)
    out = [[(0 if e.guard == TRUE else bits[e.guard], e.mark, e.target) for e in srt.out[q]]
           for q in range(srt.size)]
    automaton = _Determinized(srt, out, {int(x[2]) for xs in parts.values() for x in xs})
    return _total(automaton, parts, found, query)


def _total(automaton: _Determinized, parts: dict[object, list[Element]], found: Plan,
           query: Query) -> int:
    """The matches of every part, each part alone (:func:`~kleene.engines.count.ending.
    counter`), or as the query's consumption and limit keep them
    (:func:`~kleene.engines.count.consume.kept`)."""
    window: tuple[int | float, str, bool] | None = None
    if isinstance(found.window, Duration):
        window = (found.window.in_units_of(query.time_unit), query.reading, True)
    elif found.window is not None:
        window = (found.window - 1, "inclusive", False)
    if window is not None and not fits(0, window[0], window[1]):
        return 0        # strict, τ = 0: not even one element fits
    if found.consumption != "NONE" or found.limit is not None or found.intervals:
        return kept(automaton, parts, window, found.consumption, found.limit,
                    found.intervals)
    total = 0
    for xs in parts.values():
        xs = up_to_last_end(automaton, xs)
        ending = counter(automaton, xs, window)
        total += sum(ending.feed(x) for x in xs)
    return total


def _elements(source: Iterable[Event], by: tuple[str, ...], tests: list[tuple[int, Guard]],
              marking: int | None) -> dict[object, list[Element]]:
    """Each part's elements, event by event (``marking``: the guards' bits of the marking
    transitions, ``None`` when every element may be marked)."""
    parts: dict[object, list[Element]] = {}
    sizes: dict[object, int] = {}
    for p, u in enumerate(source):
        key = part_of(u, by) if by else None
        m = 0
        for bit, test in tests:
            if test(u, ()):
                m |= bit
        position = sizes.get(key, 0)
        sizes[key] = position + 1
        elements = parts.setdefault(key, [])
        unmarked = marking is not None and not m & marking
        if unmarked and elements and elements[-1][2] == m and elements[-1][3]:
            elements[-1][3] += 1        # one more element of a run no mark can take
        else:
            elements.append([position, u.ts, m, 1, -1] if unmarked else [position, u.ts, m, 0, p])
    return parts


def _column_elements(batches: Iterable[tuple[int, Any]], guards: list[Condition]
                     ) -> list[Element]:
    """The elements of an unpartitioned stream over its columns: the rows satisfying some
    guard (:func:`kleene.engines.srt.columns.candidates`, Arrow's kernels, the reference's
    three-valued comparisons) with their minterms, and between them the runs of rows that
    satisfy none (minterm 0, which no marking transition takes: the caller checked)."""
    elements: list[Element] = []
    last = -1
    for start, part in batches:
        rows, minterms = candidates(part, guards)
        stamps = part.ts.take(pa.array(rows, type=pa.int64())).to_pylist()
        for row, ts, m in zip((rows + start).tolist(), stamps, minterms.tolist(), strict=True):
            if row > last + 1:
                if elements and elements[-1][2] == 0 and elements[-1][3]:
                    elements[-1][3] += row - last - 1
                else:
                    elements.append([last + 1, 0, 0, row - last - 1, -1])
            elements.append([row, ts, m, 0, row])
            last = row
    return elements
