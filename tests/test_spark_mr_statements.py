"""Whole statements on Spark: the recognition by the Spark door, the SQL around it by
Spark SQL (issue 30, item 1), against the single process (the recognition by Kleene, the
SQL around it by DuckDB) on every query of Kleene's own file and of Oracle's that reads one
table. The rows must be the same, in the same order, each value equal once the single
process's column is cast to Spark's type (:func:`tests.test_spark_mr.difference`, the
columns taken by position: Spark SQL names an output column as the ``SELECT`` writes it,
DuckDB as the measure is named; docs/match-recognize-spark.md). The one statement where the
two SQL engines' own rules part is listed with the rule (:data:`DIALECT`). All statements
of a file run as one Spark action.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest

from kleene.conformance.sqllogictest.reader import Query as QueryRecord
from kleene.conformance.sqllogictest.reader import Statement as StatementRecord
from kleene.conformance.sqllogictest.reader import expand, read_file
from kleene.conformance.sqllogictest.runner import holds_recognition
from kleene.data.sql import execute, run_over, tables_read
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.ast import Statement
from kleene.reference.query import Query
from tests.helpers import small_jobs
from tests.test_spark_mr import FILES, as_ipc, difference

pytest.importorskip("pyspark")

#: Statements whose SQL around the recognition Spark and DuckDB answer by their own rules.
DIALECT = {("test_match_recognize_oracle.test", 602):
           "ORDER BY ... first_price: Spark puts NULL first ascending, DuckDB last"}


def statements(path: Path) -> list[tuple[int, Query, pa.Table, pa.Table]]:
    """Each query of the file that holds a recognition over one table and that the single
    process answers: its line, the query, the table, the single process's answer."""
    connection = duckdb.connect()
    found = []
    for record in expand(read_file(path)):
        if not isinstance(record, QueryRecord | StatementRecord) or record.conditions:
            continue
        if not holds_recognition(record.sql):
            try:
                connection.execute(record.sql)
            except duckdb.Error:
                pass   # a statement error record: the table stays as it was
            continue
        if not isinstance(record, QueryRecord):
            continue
        try:
            query = Query.parse(record.sql, language="match_recognize", source="<sql>")
            assert isinstance(query.pattern, Statement)
            names = tables_read(query.pattern)
            if len(names) != 1:
                continue
            data = execute(connection, f"SELECT * FROM {names[0]}")
            found.append((record.line, query, data, run_over(data, query.pattern,
                                                             name=names[0])))
        except KleeneError:
            continue
    return found


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_statement_of_the_file_equals_the_single_process(spark: Any, path: Path
                                                                ) -> None:
    from pyspark.sql.pandas.types import to_arrow_schema

    from kleene.engines.spark.match_recognize import match_recognize

    found = statements(path)
    assert len(found) >= 50
    frames: list[Any] = []
    empty: dict[int, pa.Table] = {}
    for i, (_, query, data, _) in enumerate(found):
        frame = match_recognize(spark.createDataFrame(data), query, tasks=2).frame
        schema = to_arrow_schema(frame.schema, timezone="UTC")
        empty[i] = schema.empty_table()
        frames.append(frame.coalesce(1).mapInArrow(partial(as_ipc, i, schema),
                                                   "case long, ipc binary"))
    union = frames[0]
    for f in frames[1:]:
        union = union.unionAll(f)
    with small_jobs(spark):
        got = {r["case"]: pa.ipc.open_stream(r["ipc"]).read_all() for r in union.collect()}
    wrong: list[tuple[int, str | None]] = []
    parted: list[tuple[int, str | None]] = []
    for i, (line, _, _, single) in enumerate(found):
        on_spark = got.get(i, empty[i])
        said = difference(single, on_spark.rename_columns(single.column_names)
                          if on_spark.num_columns == single.num_columns else on_spark)
        (parted if (path.name, line) in DIALECT else wrong).append((line, said))
    assert [w for w in wrong if w[1] is not None] == []
    assert all(said is not None for _, said in parted), "a DIALECT entry no longer differs"
