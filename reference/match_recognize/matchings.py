"""The ways a row pattern maps a run of rows, in the standard's order of preference.

ISO/IEC TR 19075-5:2016 §4.7 and §7.2 (as the vendors restate them: Oracle's "SQL
for Pattern Matching", "Pattern Matching Syntax"; Trino's ``MATCH_RECOGNIZE``,
"Row pattern syntax"): a row pattern is a regular expression over pattern
variables, and a *matching* of it at a start row maps the rows ``start,
start + 1, …, end − 1`` of the partition, in order, each to one primary pattern
variable. Of all the matchings that satisfy the conditions, the match found at
a start row is the *most preferred* one, by these rules:

- concatenation ``p q``: ``p``'s preference decides first, ``q``'s among the
  ways that agree on ``p``;
- alternation ``p | q``: every matching of ``p`` before every matching of ``q``
  (the left alternative first; Trino: "the leftmost matching component is
  chosen");
- a quantifier ``p{low,high}``: greedy prefers more iterations, reluctant
  (``p{low,high}?``) fewer (TR §4.7.3; Trino: "with ``{3, 5}``, 3 repetitions
  is the least desired option and 5 repetitions the most desired"), each
  iteration's own preference deciding within a count;
- ``PERMUTE(p1, …, pn)``: the alternation of the concatenations of every order
  of the items, in the lexicographic order of the items' positions in the list
  (TR §4.7.5; Trino: "the most preferred option is ``A B C``, and the least
  preferred option is ``C B A``");
- ``^`` matches no row, only at the partition's first row; ``$`` only after
  its last (Trino: "partition start anchor", "partition end anchor");
- ``{- p -}`` matches as ``p`` does but marks its rows *excluded*: they are left
  out of ``ALL ROWS PER MATCH`` output and nothing else (TR §4.7.4; Trino:
  "exclusions also do not affect pattern matching");
- the empty pattern ``()`` matches once, mapping no row.

Empty iterations (TR §7.2.8, as quoted in the PostgreSQL row pattern recognition
work, which checks it against Perl's regular expressions): once a quantifier has
its lower bound, an iteration that maps no row ends the quantifier; it does not
loop again. So ``(A*)*`` or ``(A?){2,}`` ends, and a pattern that can match the
empty string yields an empty matching rather than looping. Below the lower
bound an empty iteration is one of the iterations still owed.

:func:`matchings` yields the matchings at a start row lazily, most preferred
first: the depth-first search of a backtracking regular expression matcher,
whose stack of choices holds each choice's alternatives in preference order.
The search keeps, besides the row, an *agenda*: what is left to match, innermost
first. One mapping of rows to variables may come out of several derivations
(``(A*)*`` maps ``A A`` as one iteration of two rows or two of one; an empty
iteration that ends a greedy quantifier, then the quantifier's own exit): it is
yielded each time, in the place of each derivation; the first is the one that
counts.

``accept(start, variables)`` says whether the last row of a partial matching
satisfies its variable's condition; a matching is yielded only if every row
was accepted when it was mapped. This prunes the search but does not change the
order: a row's condition depends only on the rows mapped so far and on the
partition's values (the running semantics of ``DEFINE``, TR §4.13; Trino: "only
the preceding part of the match (plus the current row) is visible"; ``PREV`` and
``NEXT`` read rows by position, whatever they are mapped to), so rejecting a
prefix rejects exactly the matchings that extend it. Every step draws from a
:class:`~kleene.reference.budget.Budget`: an exponential pattern stops with
:class:`~kleene.reference.errors.BudgetExceeded`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from kleene.reference.budget import Budget
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

#: ``accept(start, variables)``: does the last of the rows ``start, start + 1, …``
#: (mapped to ``variables``) satisfy its variable's condition?
Accept = Callable[[int, Sequence[str]], bool]


class Observer(Protocol):
    """What a trace sees of the search (:func:`matchings`' ``observe``; the trace is
    ``kleene.engines.match_recognize.trace``). It is told and answers nothing, so a search
    observed finds what it finds unobserved; without one the search pays a test per step.

    - ``take(pos)``: a choice is taken from the stack, at row ``pos`` (the first, the
      start row; each later one backtracks to the most recent choice left);
    - ``choose(pos, node, done, count)``: at row ``pos``, ``node`` (an :class:`Alt`, a
      :class:`Permute`, a :class:`Quantified` after ``done`` iterations, ``None``
      otherwise; or an :class:`Anchor`) leaves ``count`` ways on: none (a dead end), or
      two or more, the most preferred followed, the others stacked (one way on is not
      told);
    - ``test(start, variables, ok)``: the last of ``variables`` was tried at row
      ``start + len(variables) - 1``, and ``accept`` said ``ok``;
    - ``no_row(pos, var)``: ``var`` needs a row at ``pos``, past the partition's last.
    """

    def take(self, pos: int) -> None: ...

    def choose(self, pos: int, node: RowPattern, done: int | None, count: int) -> None: ...

    def test(self, start: int, variables: Sequence[str], ok: bool) -> None: ...

    def no_row(self, pos: int, var: str) -> None: ...


def accept_all(start: int, variables: Sequence[str]) -> bool:
    """Every row satisfies every variable: the matchings of the pattern alone."""
    return True


@dataclass(frozen=True)
class Matching:
    """Rows ``start, …, end − 1`` mapped, in order, to ``variables``; ``excluded``
    holds the offsets (from ``start``) of the rows inside ``{- … -}``."""

    start: int
    variables: tuple[str, ...]
    excluded: frozenset[int] = frozenset()

    @property
    def end(self) -> int:
        """The row after the last one mapped (``start`` for an empty matching)."""
        return self.start + len(self.variables)


# --- the agenda: what is left to match, a linked list, innermost first ------------------------


@dataclass(frozen=True)
class _Todo:
    """Match ``node`` next (its rows excluded from the output if ``excluded``)."""

    node: RowPattern
    excluded: bool


@dataclass(frozen=True)
class _Loop:
    """Quantifier ``node`` after ``done`` iterations, the last of which began at row
    ``since`` (``None`` before the first)."""

    node: Quantified
    done: int
    since: int | None
    excluded: bool


_Agenda = tuple["_Todo | _Loop", "_Agenda"] | None


def _then(items: Sequence[RowPattern], excluded: bool, rest: _Agenda) -> _Agenda:
    """``items`` one after the other, then ``rest``."""
    for item in reversed(items):
        rest = (_Todo(item, excluded), rest)
    return rest


def _choices(head: _Todo | _Loop, pos: int, n: int, rest: _Agenda) -> list[_Agenda]:
    """The agendas ``head`` leaves at row ``pos`` without mapping a row, most preferred
    first (a :class:`Var` is the caller's: it maps a row)."""
    if isinstance(head, _Loop):
        q = head.node
        if head.since == pos and head.done >= q.low:
            return [rest]  # an empty iteration ends the quantifier (TR §7.2.8)
        more = q.high is None or head.done < q.high
        again: _Agenda = (_Todo(q.body, head.excluded),
                          (_Loop(q, head.done + 1, pos, head.excluded), rest))
        iterate = [again] if more else []
        leave = [rest] if head.done >= q.low else []
        return leave + iterate if q.reluctant else iterate + leave
    node, excluded = head.node, head.excluded
    if isinstance(node, Empty):
        return [rest]
    if isinstance(node, Concat):
        return [_then(node.items, excluded, rest)]
    if isinstance(node, Alt):
        return [(_Todo(item, excluded), rest) for item in node.items]
    if isinstance(node, Quantified):
        return [(_Loop(node, 0, None, excluded), rest)]
    if isinstance(node, Permute):
        return [_then([node.items[i] for i in order], excluded, rest)
                for order in itertools.permutations(range(len(node.items)))]
    if isinstance(node, Anchor):
        return [rest] if pos == (0 if node.kind == "^" else n) else []
    if isinstance(node, Exclude):
        return [(_Todo(node.body, True), rest)]
    raise Unsupported(f"row pattern {type(node).__name__} is not supported")


def matchings(pattern: RowPattern, n: int, start: int, accept: Accept = accept_all,
              budget: Budget | None = None, observe: Observer | None = None,
              ) -> Iterator[Matching]:
    """The matchings of ``pattern`` at row ``start`` of a partition of ``n`` rows whose
    every row ``accept`` accepts, most preferred first (module docstring).

    A path is followed without the stack while it has one way on (a row mapped, a group
    opened); where there are several, they are stacked, most preferred on top, and one
    step of the budget is spent on each taken from the stack."""
    budget = budget or Budget(what="matching a row pattern")
    variables: list[str] = []  # the variable of rows start, start + 1, … on the current path
    excluded: list[bool] = []
    stack: list[tuple[int, _Agenda]] = [(start, (_Todo(pattern, False), None))]
    while stack:
        budget.spend()
        pos, agenda = stack.pop()
        if observe is not None:
            observe.take(pos)
        # Every choice above this one on the stack began at a row >= pos, so the path's
        # first pos - start rows are still this choice's own.
        del variables[pos - start:], excluded[pos - start:]
        while agenda is not None:
            head, rest = agenda
            if isinstance(head, _Todo) and isinstance(head.node, Var):
                if pos == n:
                    if observe is not None:
                        observe.no_row(pos, head.node.name)
                    break
                variables.append(head.node.name)
                excluded.append(head.excluded)
                ok = accept(start, variables)
                if observe is not None:
                    observe.test(start, variables, ok)
                if not ok:
                    break
                pos, agenda = pos + 1, rest
                continue
            choices = _choices(head, pos, n, rest)
            if len(choices) != 1:
                if observe is not None:
                    observe.choose(pos, head.node, head.done if isinstance(head, _Loop)
                                   else None, len(choices))
                stack.extend((pos, choice) for choice in reversed(choices))
                break
            agenda = choices[0]
        else:  # nothing left to match: a matching
            yield Matching(start, tuple(variables),
                           frozenset(i for i, e in enumerate(excluded) if e))
