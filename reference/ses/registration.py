"""SES patterns (seed 000 Def. 1, seed 001 Def. 1) as a registered pattern language.

Everything the rest of Kleene asks of the language is here, in one
:class:`~kleene.reference.languages.Language` value; ``reference/languages.py``
registers it by name (:func:`~kleene.reference.languages.register_builtin`).
"""

from __future__ import annotations

from kleene.reference.languages import Language
from kleene.reference.ses import features
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import POLICIES, matches
from kleene.reference.ses.pruning import pruning
from kleene.reference.ses.text import format_ses, parse_ses

LANGUAGE = Language(
    name="ses", title="SES patterns (seed 000)",
    example="PATTERN <{a, b+}, {c}> WHERE ... WITHIN 10 s",
    parse=lambda text, source: parse_ses(text, source=source),
    matches=lambda p, s, policy, budget, reading: matches(p, s, policy, budget=budget,
                                                          reading=reading),
    policies=POLICIES, default_policy="any",
    variables=lambda p: p.names,
    format=format_ses,
    constructs=features.CONSTRUCTS, constructs_of=features.constructs,
    window=lambda p: p.window, pattern_types=(SESPattern,), pruning=pruning,
    repeated=lambda p: frozenset(v.name for b in p.sets for v in b if v.group),
    case_prefixes=("ses-",),
    specification=(("000", "Def. 2"), ("001", "Def. 2")),
    hooks={"prove": "kleene.proofs.reports:SES",
           "generate": "kleene.conformance.strategies:ses_pattern_for"},
)
