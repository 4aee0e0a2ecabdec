"""``--ties`` on Spark (issue 30, item 1): the tie the single process refuses is refused in
the task holding its partition, in the same line; ``input-order`` gives the single
process's rows (tests/test_mr_ties.py has the tables, by hand)."""

from __future__ import annotations

import pandas as pd
import pytest

import kleene
from kleene.cli import main
from kleene.engines.spark.runner import job_errors
from kleene.reference.errors import KleeneError
from tests.helpers import small_jobs
from tests.test_mr_ties import RISE, SAID, TIED

pytest.importorskip("pyspark")


def test_spark_refuses_the_tie_the_single_process_refuses(spark):
    frame = spark.createDataFrame(TIED.to_pandas())
    with small_jobs(spark):
        default = kleene.match_recognize(frame, RISE).collect()
        refused = kleene.match_recognize(frame, RISE, ties="error")
        with pytest.raises(KleeneError) as err, job_errors():
            refused.collect()
    assert [tuple(r) for r in default] == [("ACME", 9, 11)]
    assert str(err.value) == SAID


def test_kleene_match_spark_ties_error_is_one_line(spark, tmp_path, capsys):
    events = tmp_path / "t.csv"
    pd.DataFrame(TIED.to_pandas()).to_csv(events, index=False)
    pattern = tmp_path / "rise.sql"
    pattern.write_text(RISE + "\n")
    argv = ["match", "-q", "--spark", "--pattern", str(pattern), "--events", str(events)]
    with small_jobs(spark):
        assert main([*argv, "--ties", "error"]) != 0
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines()[-1] == f"kleene match: {SAID}"
