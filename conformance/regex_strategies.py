"""Hypothesis strategies for ``LIKE``'s regular expressions: patterns of the subset
:mod:`kleene.reference.regex` reads (RE2 and Python's ``re`` alike), and texts to match
them against (docs/architecture.md, Style 6).

The patterns are drawn from the subset's grammar itself (literals, escaped punctuation,
``\\n``/``\\t``, ``.``, classes with ranges and negation, groups, alternation, anchors,
the repetitions ``* + ? {n} {n,} {n,m}`` and their lazy forms), over a small alphabet,
so that drawn texts often match; the texts mix that alphabet with a newline (where
``$`` and ``.`` differ between the dialects when read naively), a metacharacter and a
character outside ASCII.
"""

from __future__ import annotations

from hypothesis import strategies as st

#: The default alphabet of literals; the texts add :data:`EXTRA`.
ALPHABET = "ab"
#: Characters of drawn texts besides the alphabet: a newline, metacharacters, non-ASCII.
EXTRA = "\n.*é"


def _literal(alphabet: str) -> st.SearchStrategy[str]:
    return st.sampled_from(sorted(set(alphabet))) | st.sampled_from(
        ("\\.", "\\*", "\\n", "\\t", "\\$", "\\(", "é"))


def _class(alphabet: str) -> st.SearchStrategy[str]:
    chars = sorted(set(alphabet))
    item = st.sampled_from(chars) | st.sampled_from(
        ("a-b", "\\n", ".", "*", "$", "\\]", "\\-", "é"))
    return st.builds(lambda neg, dash, items: "[" + "^" * neg + "-" * dash + "".join(items)
                     + "]", st.booleans(), st.booleans(), st.lists(item, min_size=1, max_size=3))


def _quantifier() -> st.SearchStrategy[str]:
    bare = st.sampled_from(("", "", "", "*", "+", "?", "{2}", "{1,}", "{0,2}", "{1,3}"))
    return st.builds(lambda q, lazy: q + ("?" if q and lazy else ""), bare, st.booleans())


def regexes(*, alphabet: str = ALPHABET, max_depth: int = 2) -> st.SearchStrategy[str]:
    """A pattern of the subset :mod:`kleene.reference.regex` reads."""

    def alt(depth: int) -> st.SearchStrategy[str]:
        atoms = _literal(alphabet) | st.just(".") | _class(alphabet)
        if depth > 0:
            atoms = atoms | st.builds(lambda open_, body: open_ + body + ")",
                                      st.sampled_from(("(", "(?:")), alt(depth - 1))
        piece = st.builds(lambda a, q: a + q, atoms, _quantifier()) | st.sampled_from(
            ("^", "$"))
        concat = st.lists(piece, max_size=3).map("".join)
        return st.lists(concat, min_size=1, max_size=2).map("|".join)

    return alt(max_depth)


def texts(*, alphabet: str = ALPHABET, max_size: int = 6) -> st.SearchStrategy[str]:
    """A text over ``alphabet`` and :data:`EXTRA`."""
    return st.text(st.sampled_from(sorted(set(alphabet + EXTRA))), max_size=max_size)
