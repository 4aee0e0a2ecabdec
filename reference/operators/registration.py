"""Operator patterns (SASE+, seed 003 Sec. 2.1) as a registered pattern language.

Everything the rest of Kleene asks of the language is here, in one
:class:`~kleene.reference.languages.Language` value; ``reference/languages.py``
registers it by name (:func:`~kleene.reference.languages.register_builtin`).
An operator pattern may name its selection strategy itself (``pattern_policy``).
"""

from __future__ import annotations

from typing import cast

from kleene.reference.durations import WindowReading
from kleene.reference.languages import Language
from kleene.reference.operators import features
from kleene.reference.operators.pattern import OperatorPattern
from kleene.reference.operators.policies import POLICIES, matches
from kleene.reference.operators.pruning import pruning
from kleene.reference.operators.text import format_operator, parse_operator, repeated

LANGUAGE = Language(
    name="operator", title="operator patterns (SASE+, seed 003)",
    example="PATTERN SEQ(A a, B+ b[], C c) WHERE ... WITHIN 1 hour",
    parse=lambda text, source: parse_operator(text, source),
    matches=lambda p, s, policy, budget, reading: matches(
        p, s, policy, budget, reading=cast(WindowReading, reading)),
    policies=POLICIES, default_policy="any",
    variables=lambda p: p.names,
    format=format_operator,
    constructs=features.CONSTRUCTS, constructs_of=features.constructs,
    window=lambda p: p.window, pattern_types=(OperatorPattern,), pruning=pruning,
    pattern_policy=lambda p: p.policy,
    repeated=lambda p: frozenset(repeated(p.expr)),
    case_prefixes=("op-", "operator-"),
    specification=(("003", "Sec. 2.1"), ("003", "Sec. 4")),
    hooks={"prove": "kleene.proofs.reports:OPERATOR",
           "generate": "kleene.conformance.strategies:operator_pattern_for"},
)
