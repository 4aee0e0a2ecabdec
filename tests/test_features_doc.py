"""docs/features.md defines every feature label (issue 28, item 1).

The labels come from the registry (``all_features``), so a new policy or construct
without a row fails here. Each row's minimal pattern parses (Kleene's parser and the
grammar of docs/grammars.md), Kleene's feature detection (``Query.features``) gives it
the row's label, and every other construct it uses is named in the row's definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from kleene.reference.languages import LANGUAGES
from kleene.reference.query import Feature, Query, all_features
from tests.helpers import ROOT, grammar_accepts

FEATURES = ROOT / "docs" / "features.md"

#: What a row writes where a language cannot express the construct.
NONE = "—"


@dataclass(frozen=True)
class Row:
    feature: str
    kind: str
    definition: str
    pattern: str


def _rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for line in FEATURES.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip().replace("\\|", "|")
                 for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        assert len(cells) == 4, line
        feature, kind, definition, pattern = cells
        assert feature not in rows, f"two rows of {feature}"
        rows[feature.strip("`")] = Row(feature.strip("`"), kind, definition,
                                       pattern.strip("`"))
    return rows


ROWS = _rows()


def test_every_feature_label_has_a_row() -> None:
    assert set(ROWS) == {str(f) for f in all_features()}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_a_rows_pattern_needs_its_feature(name: str) -> None:
    row = ROWS[name]
    feature = Feature.parse(name)
    assert row.kind == feature.kind
    lang = LANGUAGES[feature.language]
    if row.pattern == NONE:
        # only where Wayeb's syntax lacks a SREMO construct, which SREMO's row shows
        assert feature.language == "wayeb" and feature.kind == "construct"
        assert ROWS[f"sremo:{feature.label}"].pattern != NONE
        return
    query = Query.parse(row.pattern, language=feature.language,
                        policy=feature.label if feature.kind == "policy" else None,
                        reading="strict" if feature.kind == "window" else None)
    assert feature in query.features()
    assert grammar_accepts(feature.language, row.pattern)
    others = set(lang.constructs_of(query.pattern)) - {feature.label}
    unnamed = {c for c in others if f"`{c}`" not in row.definition}
    assert not unnamed, f"{name}: the pattern also uses {sorted(unnamed)}, unnamed"
