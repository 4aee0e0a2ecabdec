"""``Lang(e)`` by bounded enumeration, for tests: seed 004, report Def. 18.

The universe of elements is infinite, so :func:`language` enumerates the
strings of length at most ``max_length`` over a finite ``alphabet`` of
elements (attribute mappings, as in :meth:`Stream.from_rows`) and keeps those
``e`` accepts. A string is returned as the tuple of its letters' indexes in
the alphabet; :func:`string` turns it back into a stream.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kleene.reference.budget import Budget
from kleene.reference.events import Stream
from kleene.reference.sremo.expressions import Expr
from kleene.reference.sremo.semantics import Marks, Semantics

Word = tuple[int, ...]


def string(word: Word, alphabet: Sequence[Mapping[str, Any]]) -> Stream:
    """The stream whose element at position i is ``alphabet[word[i]]`` (``ts = i``)."""
    return Stream.from_rows([{"ts": i, **alphabet[letter]} for i, letter in enumerate(word)])


def words(size: int, max_length: int) -> Iterator[Word]:
    """Every word over ``range(size)`` of length 0..max_length, shortest first."""
    for n in range(max_length + 1):
        yield from itertools.product(range(size), repeat=n)


def matches_by_word(e: Expr, alphabet: Sequence[Mapping[str, Any]], max_length: int, *,
                    budget: Budget | None = None) -> dict[Word, frozenset[Marks]]:
    """``Match(e, S)`` (Def. 18, literal) for every string S up to ``max_length``."""
    budget = budget or Budget(what="enumerating the bounded language of a SREMO")
    out = {}
    for word in words(len(alphabet), max_length):
        s = string(word, alphabet)
        out[word] = frozenset(m for m, _ in Semantics(s, budget).relate(e, 0, len(s)))
    return out


def language(e: Expr, alphabet: Sequence[Mapping[str, Any]], max_length: int, *,
             budget: Budget | None = None) -> set[Word]:
    """``Lang(e)`` restricted to strings of length ≤ ``max_length`` over ``alphabet``."""
    found = matches_by_word(e, alphabet, max_length, budget=budget)
    return {word for word, ms in found.items() if ms}
