"""``PARTITION BY a[, b ...]``, the clause shared by the SES and operator syntaxes (and
SREMO's text syntax): its parse, its reading as plain Θ, and its inverse for the
printers.

``PARTITION BY a`` is sugar for ``vi.a = vj.a`` between every pair of variables
(docs/semantics.md, "PARTITION BY"), so that the windows of seed 001 Def. 6
partition by ``a``. SREMO's ``e PARTITION BY a`` (Kleene's extension for Wayeb's
``partitionBy``) is read on each part instead (docs/semantics.md, "SREMO partitions").
"""

from __future__ import annotations

from collections.abc import Sequence

from kleene.reference.conditions import Attr, Cmp, Condition
from kleene.reference.syntax import STRUCTURE_WORDS, Parser


def partition_by(p: Parser) -> tuple[str, ...]:
    """``PARTITION BY a[, b ...]`` (after the pattern, before ``WHERE``): the attributes,
    or ``()`` when the clause is absent."""
    if not (p.at("PARTITION") and p.peek().text.upper() == "BY"):
        return ()
    p.advance()
    p.advance()
    names = [_attribute_name(p, "an attribute name after PARTITION BY")]
    while p.accept(","):
        names.append(_attribute_name(p, "an attribute name"))
    return tuple(dict.fromkeys(names))


def _attribute_name(p: Parser, what: str) -> str:
    if p.tok.kind == "ident" and p.tok.text.upper() in STRUCTURE_WORDS:
        raise p.error(what)
    return p.ident(what).text


def partition_equalities(names: Sequence[str], attributes: Sequence[str]) -> tuple[Cmp, ...]:
    """``PARTITION BY a`` as plain Θ: ``vi.a = vj.a`` for every pair of variables
    ``i < j`` in declaration order, attribute by attribute (docs/semantics.md,
    "PARTITION BY"); the windows of seed 001 Def. 6 then partition by ``a``."""
    return tuple(Cmp("=", Attr(v, a), Attr(w, a)) for a in attributes
                 for i, v in enumerate(names) for w in names[i + 1:])


def split_partition(names: Sequence[str], conditions: Sequence[Condition],
                    ) -> tuple[tuple[str, ...], tuple[Condition, ...]]:
    """The inverse of :func:`partition_equalities` for the printers: the attributes whose
    pairwise equalities open Θ exactly as the parser writes them, and the rest of Θ."""
    found: list[str] = []
    rest = tuple(conditions)
    pairs = len(names) * (len(names) - 1) // 2
    while pairs and len(rest) >= pairs:
        head = rest[0]
        if not (isinstance(head, Cmp) and isinstance(head.left, Attr)):
            break
        attr = head.left.attr
        if attr in found or rest[:pairs] != partition_equalities(names, [attr]):
            break
        found.append(attr)
        rest = rest[pairs:]
    return tuple(found), rest
