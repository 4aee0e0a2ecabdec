"""What an SES pattern asks of an engine: the constructs of seed 000 Def. 1 and
seed 001 Def. 1 beyond singleton variables.

``group-variables`` for a ``v+`` variable (seed 000 Def. 1), ``prev`` for a
condition ``prev(v.A)`` (seed 001 Def. 1). The language registry
(:mod:`kleene.reference.languages`) scopes them as ``ses:group-variables`` and
``ses:prev``.
"""

from __future__ import annotations

from kleene.reference.conditions import prev_variables
from kleene.reference.ses.pattern import SESPattern

#: The constructs an SES engine may claim.
CONSTRUCTS: tuple[str, ...] = ("group-variables", "prev")


def constructs(pattern: SESPattern) -> frozenset[str]:
    """The constructs ``pattern`` uses."""
    out = set()
    if any(v.group for v in pattern.variables):
        out.add("group-variables")
    if any(prev_variables(theta) for theta in pattern.conditions):
        out.add("prev")
    return frozenset(out)
