"""A ``--spark`` message listing the events' columns lists theirs only, never a column
Kleene adds (``_kleene_corrupt``, ``_kleene_position``: issue 27's hostile runs)."""

from __future__ import annotations

from kleene.cli import main
from tests.helpers import after_spark_start


def test_an_unknown_attribute_lists_the_files_columns(spark, capsys, tmp_path):
    (tmp_path / "e.csv").write_text("ts,type,x\n0,A,1\n1,B,2\n")
    code = main(["match", "--pattern", "PATTERN SEQ(A a, B b) WHERE a.q = 1 WITHIN 10",
                 "--language", "operator", "--events", str(tmp_path / "e.csv"), "--spark"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    said = after_spark_start(err)
    # the pattern error's three lines (where, the line, the caret), as single-process
    assert len(said) == 3 and said[0].endswith("the columns present: ts, type, x"), err
