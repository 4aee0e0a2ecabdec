"""Which tests a conformance run takes: ``--case TEXT``, ``--languages``, ``--features``.

A :class:`Selection` keeps a case file's test when its id contains the text, its case's
language is one of the languages, and it needs one of the features (the features of its
queries, :func:`kleene.conformance.runner.features_needed_by`: a language, a policy, a
construct, a strict window); each part left out keeps every test. A generated batch
(``generated/LANGUAGE``) is kept by the text and by its language, which the features
select through their own language (``--features operator:prev`` keeps
``generated/operator``). Unknown names are one line listing the known ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kleene.engines.protocol import Feature, all_features
from kleene.reference.errors import KleeneError
from kleene.reference.languages import LANGUAGES


class SelectionError(KleeneError):
    """A ``--languages`` or ``--features`` list naming something unknown."""

    code = "usage"


@dataclass(frozen=True)
class Selection:
    """What a run keeps (``None``: everything, for that part)."""

    text: str | None = None
    languages: frozenset[str] | None = None
    features: frozenset[Feature] | None = None

    @classmethod
    def of(cls, select: Selection | str | None) -> Selection:
        """``select`` as a selection (a text is ``--case TEXT`` alone)."""
        return select if isinstance(select, Selection) else cls(text=select or None)

    def keeps(self, ident: str, language: str,
              needs: Callable[[], frozenset[Feature]]) -> bool:
        """Whether a case file's test ``ident`` of ``language`` is run (``needs()``: the
        features it needs, computed only when a feature list is given)."""
        if self.text and self.text not in ident:
            return False
        if self.languages is not None and language not in self.languages:
            return False
        return self.features is None or bool(self.features & needs())

    def keeps_generated(self, language: str) -> bool:
        """Whether the generated batch of ``language`` is run."""
        if self.text and self.text not in f"generated/{language}":
            return False
        if self.languages is not None and language not in self.languages:
            return False
        return self.features is None or any(f.language == language for f in self.features)


def _names(text: str, option: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise SelectionError(f"{option} takes a comma-separated list of names")
    return names


def parse_languages(text: str) -> frozenset[str]:
    """``ses,operator`` as a set of registered languages; an unknown one is one line
    listing the known ones."""
    names = _names(text, "--languages")
    unknown = [n for n in names if n not in LANGUAGES]
    if unknown:
        raise SelectionError(f"--languages: unknown language {', '.join(map(repr, unknown))}; "
                             f"known: {', '.join(LANGUAGES)}")
    return frozenset(names)


def parse_features(text: str) -> frozenset[Feature]:
    """``operator:prev,ses:next`` as a set of features; an unknown one is one line listing
    the known ones (every language's features, docs/backends.md "Capabilities")."""
    names = _names(text, "--features")
    known = {str(f): f for f in all_features()}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SelectionError(f"--features: unknown feature {', '.join(map(repr, unknown))}; "
                             f"known: {', '.join(sorted(known))}")
    return frozenset(known[n] for n in names)
