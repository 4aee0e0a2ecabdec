"""cli/demo_srt.py: the seed 004 engines beside the reference on Table 1 (Example 3.7)."""

from __future__ import annotations

import io

from kleene.cli.demo_srt import srt_part


def test_the_demo_part_agrees_with_the_reference_on_table_1():
    out = io.StringIO()
    assert srt_part(None, out) == 0
    text = out.getvalue()
    # Example 3.7's four matches (docs/errata.md#seed-004-def18-whole-string), by srt
    assert "reference 4 matches: {0,3}, {0,4}, {1,3}, {1,4}" in text
    assert "srt       4 matches: {0,3}, {0,4}, {1,3}, {1,4}  ✓" in text
    # dsrt runs the unmarked {TRUE}* on its DSRT with marks, and the marked variant
    assert "dsrt      4 matches: {0,3}, {0,4}, {1,3}, {1,4}  ✓" in text
    assert "dsrt      2 matches: {0,1,2,3}, {1,2,3}  ✓" in text
    assert "not available" in text
