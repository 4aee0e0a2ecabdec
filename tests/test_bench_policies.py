"""``python -m bench policies`` (issue 33 item 4): a row for every (language, policy) pair.

The pairs are the reference's own policy lists; the three languages that can say the
issue's seq3 whole (SES, operators, SREMO) give the same number of matches under their
"every match" policy (SES and operators ``any``, SREMO ``stream``: the same set of
events per match, docs/semantics.md), so the rows must agree there."""

from __future__ import annotations

from bench import policies
from kleene.reference.operators.policies import POLICIES as OPERATOR_POLICIES
from kleene.reference.ses.policies import POLICIES as SES_POLICIES
from kleene.reference.sremo.streaming import POLICIES as SREMO_POLICIES


def test_every_language_and_policy_has_its_row(monkeypatch, tmp_path):
    monkeypatch.setattr(policies, "PROBE", 3_000)
    monkeypatch.chdir(tmp_path)   # out/bench/policies.csv written there
    table = policies.run(quick=True)
    pairs = [(row[0], row[1]) for row in table.rows]
    assert pairs == ([("ses", p) for p in SES_POLICIES]
                     + [("operator", p) for p in OPERATOR_POLICIES]
                     + [("sremo", p) for p in SREMO_POLICIES] + [("ceql", "stream")])
    found = {(row[0], row[1]): row[6] for row in table.rows}
    assert found[("ses", "any")] == found[("operator", "any")] == found[("sremo", "stream")]
    assert isinstance(found[("ses", "any")], int) and found[("ses", "any")] > 0
