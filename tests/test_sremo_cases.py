"""The SREMO conformance cases (``conformance/cases/sremo-*.json``) against the
reference: each file is valid, descriptions are unique, every errata anchor
exists, and :func:`kleene.reference.sremo.run_text` gives the expected matches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from kleene.reference.events import Stream
from kleene.reference.match import matches_from_json
from kleene.reference.sremo import run_text
from tests.helpers import SREMO_FILES, sremo_case_params

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "conformance" / "case.schema.json").read_text())
ERRATA = (ROOT / "docs" / "errata.md").read_text()


def test_there_are_sremo_case_files():
    assert {p.stem for p in SREMO_FILES} >= {"sremo-table-1", "sremo-strategies", "sremo-windows"}


@pytest.mark.parametrize("path", SREMO_FILES, ids=[p.stem for p in SREMO_FILES])
def test_case_file_is_valid_and_descriptions_are_unique(path):
    data = json.loads(path.read_text())
    Draft202012Validator(SCHEMA).validate(data)
    assert data["language"] == "sremo"
    descriptions = [t["description"] for c in data["cases"] for t in c["tests"]]
    assert len(descriptions) == len(set(descriptions))
    assert not any("should" in d for d in descriptions)
    for case in data["cases"]:
        for test in case["tests"]:
            anchors = test.get("errata", [])
            for anchor in [anchors] if isinstance(anchors, str) else anchors:
                assert f'<a id="{anchor.split("#")[1]}"></a>' in ERRATA


@pytest.mark.parametrize("case, test, reading, expected", list(sremo_case_params()))
def test_reference_gives_the_expected_matches(case, test, reading, expected):
    s = Stream.from_rows(test.get("events", case.get("events")),
                         time_unit=test.get("time_unit", case.get("time_unit")))
    got = run_text(case["pattern"], s, test.get("policy", "stream"), reading=reading)
    assert got == matches_from_json(expected)
