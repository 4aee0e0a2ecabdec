"""Worker of the Flink adapter: runs MATCH_RECOGNIZE queries in Apache Flink SQL (PyFlink).

Run by the Python of ``.peers/flink`` (``apache-flink``, Java 17), not by
Kleene's: standard library and ``pyflink`` only. One JSON object per line on
stdin: ``{"cmd": "version"}`` or ``{"cmd": "run", "sql", "columns", "rows"}``;
one answer per line on stdout: ``{"version"}``, ``{"rows": [{measure: value}]}``
or ``{"error": "..."}``.

The rows become a bounded streaming source (a JSON file read by the
``filesystem`` connector, parallelism 1) with the event time
``rt = kts`` read as seconds and a watermark one second behind, so rows that
tie in ``ts`` are never late; ``ORDER BY kts, kpos`` in the query becomes
``ORDER BY rt, kpos`` (Flink orders by its time attribute first).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

TYPES = {"BIGINT": "BIGINT", "DOUBLE": "DOUBLE", "VARCHAR": "STRING", "BOOLEAN": "BOOLEAN"}


def main() -> None:
    """Serve requests until stdin closes."""
    out = sys.stdout
    sys.stdout = sys.stderr  # keep Flink's own prints off the answer channel
    env = None
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "version":
                from importlib.metadata import version

                answer: dict[str, object] = {"version": "apache-flink " + version("apache-flink")}
            else:
                if env is None:
                    from pyflink.table import EnvironmentSettings, TableEnvironment

                    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
                    env.get_config().set("parallelism.default", "1")
                answer = {"rows": run(env, msg["sql"], msg["columns"], msg["rows"])}
        except Exception as err:  # the engine's failure is the answer
            answer = {"error": f"{type(err).__name__}: {str(err)[:2000]}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


def run(env: Any, sql: str, columns: list[list[str]], rows: list[dict[str, object]]
        ) -> list[dict[str, object]]:
    """The measures of every match of ``sql`` over ``rows``."""
    fd, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    cols = ", ".join(f"`{name}` {TYPES[t]}" for name, t in columns)
    env.execute_sql("DROP TEMPORARY TABLE IF EXISTS events")
    env.execute_sql(
        f"CREATE TEMPORARY TABLE events ({cols}, "
        "rt AS TO_TIMESTAMP_LTZ(CAST(kts * 1000 AS BIGINT), 3), "
        "WATERMARK FOR rt AS rt - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = 'file://{path}', 'format' = 'json')")
    try:
        result = env.execute_sql(sql.replace("ORDER BY kts, kpos", "ORDER BY rt, kpos"))
        names = result.get_table_schema().get_field_names()
        with result.collect() as it:
            return [dict(zip(names, list(row), strict=True)) for row in it]
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
