"""Spark-distributed execution of every engine (issue 5; docs/architecture.md, "Spark").

Modules: :mod:`.session` (one SparkSession), :mod:`.frames` (events as a
DataFrame: read, typed, checked, numbered; with :mod:`.index`,
:mod:`.text_columns`, :mod:`.stock_arrow` and :mod:`.text_splits` (stock lines
in one pass) and :mod:`.parquet_files`), :mod:`.pushdown` (the filter of seed 001 Thm 1 as a
Column), :mod:`.plan` (which cuts are sound for a policy), :mod:`.layout`
(time slices, Def. 6 keys, Spark partitions), :mod:`.worker` (the engine in a
``mapInArrow`` task), :mod:`.runner` (the Python API);
``kleene match --spark`` lives in :mod:`kleene.cli.spark`.

The API, importable without starting Spark::

    from kleene.engines.spark import match_dataframe, collect_matches, write_matches
"""

from kleene.engines.spark.runner import (
    SparkJobFailed,
    collect_matches,
    match_dataframe,
    match_file,
    match_frame,
    write_matches,
)

__all__ = ["SparkJobFailed", "collect_matches", "match_dataframe", "match_file", "match_frame",
           "write_matches"]
