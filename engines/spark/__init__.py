"""Spark-distributed execution of every engine (issue 5): the session, the
filter pushdown of seed 001 Thm 1 as a Column expression, partitioning and the
per-partition run through ``mapInArrow``."""
