"""CEL's selection strategies and CORE's consumption policies: which of them Kleene
computes, and why the others are refused (docs/ceql.md, "Strategies and consumption").

Selection strategies (CEL, TODS 2021, Sec. 4, "selection strategies"; CEQL's ``SELECT``):

- ``ALL`` (also no strategy written): every complex event of the formula. This is
  Kleene's SREMO streaming semantics over the translation of :mod:`.formula` (policy
  ``stream``), the operator language's ``any``: computed.
- ``NEXT``, ``LAST``, ``MAX`` (CEL's NXT, LAST, MAX) keep, of the complex events, those
  preferred by an order on their positions. They are predicates over the ``ALL`` set
  that depend on the other complex events of the same stream; they are not seed 004's
  skip-till-next-match (Def. 45, SREMO's ``NEXT(...)``), which rewrites the expression and
  keeps every match the rewritten expression has. Not yet computed: refused.
- ``STRICT`` (CEL's STRICT, contiguous complex events) and ``ANY`` (CORE's keyword) are
  refused with them.

Consumption policies (CORE's ``CONSUME BY``):

- ``NONE`` (also none written): no complex event removes any event from later ones:
  the ``ALL`` set, computed.
- ``ANY`` and ``PARTITION``: once a complex event is output, its events (of any
  partition, or of its own) can no longer take part in a later one. The set then
  depends on the order in which complex events are output at one position, which CEL
  does not fix; not yet computed: refused.

``LIMIT k`` keeps the first k complex events in order of output, whose order at one
position is CORE's enumeration order: not yet computed, refused.
"""

from __future__ import annotations

#: The selection strategies CEQL's grammar has, and the one Kleene computes.
STRATEGIES = ("ALL", "ANY", "LAST", "MAX", "NEXT", "STRICT")
COMPUTED_STRATEGY = "ALL"

#: CORE's consumption policies, and the one Kleene computes.
CONSUMPTIONS = ("NONE", "ANY", "PARTITION")
COMPUTED_CONSUMPTION = "NONE"


def strategy_refusal(strategy: str) -> str | None:
    """Why ``SELECT strategy`` is refused, or ``None`` when Kleene computes it."""
    if strategy == COMPUTED_STRATEGY:
        return None
    return (f"SELECT {strategy} is not computed yet: Kleene reads CEL's ALL (every complex "
            "event; write SELECT * or SELECT ALL *); docs/ceql.md says why")


def consumption_refusal(policy: str) -> str | None:
    """Why ``CONSUME BY policy`` is refused, or ``None`` when Kleene computes it."""
    if policy == COMPUTED_CONSUMPTION:
        return None
    return (f"CONSUME BY {policy} is not computed yet: its output depends on CORE's order "
            "of output at one event (write CONSUME BY NONE or leave it out); docs/ceql.md")
