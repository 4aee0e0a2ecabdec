"""The root type of a parsed pattern, whatever its language.

Each pattern language (:mod:`kleene.reference.languages`) parses its text into
an AST of frozen dataclasses; the class at the root of every such AST inherits
:class:`Pattern`, so that code which carries a pattern without looking inside
it (a :class:`~kleene.reference.query.Query`, the registry, the engines'
``compile``) is typed ``Pattern`` rather than ``Any``. It declares no fields:
what a pattern is belongs to its language (seed 000 Def. 1 for SES, seed 003
Sec. 2.1 for operator patterns, seed 004 Def. 17 for SREMO).
"""

from __future__ import annotations


class Pattern:
    """A parsed pattern of some registered language (an AST root)."""

    __slots__ = ()
