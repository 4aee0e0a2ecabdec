"""Worker of the Flink adapter: runs MATCH_RECOGNIZE queries in Apache Flink SQL (PyFlink).

Run by the Python of ``.peers/flink`` (``apache-flink``, Java 17), not by
Kleene's: standard library and ``pyflink`` only. One JSON object per line on
stdin, one answer per line on stdout:

- ``{"cmd": "version"}`` → ``{"version"}``;
- ``{"cmd": "run", "sql", "columns", "rows"}`` (a translated operator pattern, streaming
  mode, below) → ``{"rows": [{measure: value}]}``;
- ``{"cmd": "table", "sql", "name", "columns", "rows" | "path", "time"}`` (a
  ``MATCH_RECOGNIZE`` statement over the table ``name``, batch mode: :func:`table`) →
  ``{"columns": [[name, type]], "rows": [[value]], "seconds": {"ddl", "job"}}`` (the job
  reads the file, matches and hands the rows over in one pipeline);
- ``{"cmd": "tables", "mode": "batch" | "streaming", "requests": [table request]}`` (many
  statements, each over its own rows: :func:`tables`, one job for many) →
  ``{"answers": [answer or {"error"}]}``, in the requests' order;

or ``{"error": "..."}``.

Every job runs on one Flink mini-cluster started with the worker (:func:`cluster`; the table
environments submit to it as to a remote cluster): Flink's local executor would start a
mini-cluster per job (about 7 s of a 10 s job on two loaded cores).

Where the seconds go (2026-11-28, 14:44-14:53 UTC: one worker, batch mode, the same 40
recognitions drawn in Flink's dialect answered five times in a row, two cores at a 1-minute
load of 35-40; CPU seconds are the worker's and its JVM's): the first pass, JVM classes
loaded and compiled, 222 s wall and 43 s of CPU; warm, forty statements to a job, 95 s
wall and 23.5 s of CPU (0.59 s a recognition), the ``UNION ALL`` job 83.5 s of the wall,
each statement's DDL 3.4 s in all, its planning 2.7 s, reading its columns 2.4 s,
wrapping it as JSON 2.7 s; ten to a job, 51.5 s wall and 13.2 s of CPU (0.33 s); twenty
to a job, 54.4 s and 14.1 s; forty again (the JIT warmer, each statement wrapped through
a view), 69.5 s and 18.2 s. A job's planning and code generation grow faster than its
statements, so :data:`CHUNK` is ten (forty had been chosen against a job's fixed cost,
about 2 s). The answers are the same (the 40 at forty and at ten to a job, twice each,
14:55-15:04 UTC at a load of 35-49: warm, 102.7 s against 46.7 s wall).
PyFlink's conversion of a result's column types took about 250 calls into the JVM a
column; :func:`_columns` reads them as text. Pipelined batch exchanges
(``execution.batch-shuffle-mode``) fail the chunk for want of slots, so Flink's default is
kept.

For ``run``, the rows become a bounded streaming source (a JSON file read by the
``filesystem`` connector, parallelism 1) with the event time
``rt = kts`` read as seconds and a watermark one second behind, so rows that
tie in ``ts`` are never late; ``ORDER BY kts, kpos`` in the query becomes
``ORDER BY rt, kpos`` (Flink orders by its time attribute first).
"""

from __future__ import annotations

import datetime
import decimal
import json
import os
import sys
import tempfile
import time
from typing import Any

TYPES = {"BIGINT": "BIGINT", "DOUBLE": "DOUBLE", "VARCHAR": "STRING", "BOOLEAN": "BOOLEAN"}


def main() -> None:
    """Serve requests until stdin closes."""
    out = sys.stdout
    sys.stdout = sys.stderr  # keep Flink's own prints off the answer channel
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "version":
                from importlib.metadata import version

                answer: dict[str, object] = {"version": "apache-flink " + version("apache-flink")}
            elif msg["cmd"] == "table":
                answer = table(environment("batch"), msg)
            elif msg["cmd"] == "tables":
                answer = tables(environment(msg.get("mode", "batch")), msg)
            else:
                answer = {"rows": run(environment("streaming"), msg["sql"], msg["columns"],
                                      msg["rows"])}
        except Exception as err:  # the engine's failure is the answer
            answer = {"error": f"{type(err).__name__}: {str(err)[:2000]}"}
        out.write(json.dumps(answer, default=str) + "\n")
        out.flush()


_CLUSTER: list[str] = []
_ENVS: dict[str, Any] = {}


def cluster() -> tuple[str, str]:
    """The host and REST port of the worker's mini-cluster (started on first use, a free
    port, parallelism 1 per job but four slots: a union of many statements is one job)."""
    if not _CLUSTER:
        from pyflink.java_gateway import get_gateway

        jvm = get_gateway().jvm
        conf = jvm.org.apache.flink.configuration.Configuration()
        conf.setString("rest.bind-port", "0")
        conf.setString("rest.address", "localhost")
        built = (jvm.org.apache.flink.runtime.minicluster.MiniClusterConfiguration.Builder()
                 .setConfiguration(conf).setNumTaskManagers(1).setNumSlotsPerTaskManager(4)
                 .build())
        mini = jvm.org.apache.flink.runtime.minicluster.MiniCluster(built)
        mini.start()
        address = str(mini.getRestAddress().get().toString())
        host, port = address.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        _CLUSTER.extend((host, port))
    return _CLUSTER[0], _CLUSTER[1]


def environment(mode: str) -> Any:
    """The table environment of ``mode`` (``batch`` or ``streaming``), one per worker,
    submitting to :func:`cluster`."""
    if mode not in _ENVS:
        from pyflink.table import EnvironmentSettings, TableEnvironment

        host, port = cluster()
        settings = (EnvironmentSettings.in_batch_mode() if mode == "batch"
                    else EnvironmentSettings.in_streaming_mode())
        env = TableEnvironment.create(settings)
        config = env.get_config()
        for key, value in (("parallelism.default", "1"), ("execution.target", "remote"),
                           ("rest.address", host), ("rest.port", port)):
            config.set(key, value)
        _ENVS[mode] = env
    return _ENVS[mode]


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


#: Flink's names of the SQL types a ``table`` request's columns have.
FLINK_TYPES = {"VARCHAR": "STRING", "INTEGER": "INT", "HUGEINT": "DECIMAL(38, 0)"}


def _plain(v: object) -> object:
    if isinstance(v, datetime.datetime):
        return v.replace(tzinfo=None).isoformat(sep=" ")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v


def create(env: Any, name: str, msg: dict[str, Any], *, streaming: bool = False
           ) -> str | None:
    """The table ``name`` of a ``table`` request, read by the ``filesystem`` connector:
    ``path``, JSON Lines or, when ``format`` is ``csv``, CSV without a header line (Flink's
    CSV format has no option to skip one: a header would be a row of NULLs), or the rows
    written to a temporary JSON Lines file (its path returned, for the caller to remove);
    ``time``, when given, is ``[name, expression]``: a computed column Flink orders by (its
    ``MATCH_RECOGNIZE`` orders by a time attribute first), with a watermark equal to it in
    batch mode (no late rows) and 1 ms behind it in streaming mode (rows sent in time order:
    a row tying the last one is not late)."""
    path = msg.get("path")
    temporary = None
    if path is None:
        names = [column for column, _ in msg["columns"]]
        fd, temporary = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            for r in msg["rows"]:
                f.write(json.dumps(dict(zip(names, r, strict=True))) + "\n")
        path = temporary
    cols = [f"`{column}` {FLINK_TYPES.get(t.upper(), t)}" for column, t in msg["columns"]]
    if msg.get("time"):
        rt, expression = msg["time"]
        late = " - INTERVAL '0.001' SECOND" if streaming else ""
        cols += [f"`{rt}` AS {expression}", f"WATERMARK FOR `{rt}` AS `{rt}`{late}"]
    form = "csv" if temporary is None and msg.get("format") == "csv" else "json"
    env.execute_sql(f"DROP TEMPORARY TABLE IF EXISTS `{name}`")
    env.execute_sql(
        f"CREATE TEMPORARY TABLE `{name}` ({', '.join(cols)}) WITH ("
        f"'connector' = 'filesystem', 'path' = 'file://{path}', 'format' = '{form}')")
    return temporary


def table(env: Any, msg: dict[str, Any]) -> dict[str, object]:
    """A statement over one table in batch mode (:func:`create`), timed from the file to
    the rows out."""
    began = time.perf_counter()
    temporary = create(env, msg["name"], msg)
    try:
        loaded = time.perf_counter()
        result = env.execute_sql(msg["sql"])
        schema = result.get_table_schema()
        names = schema.get_field_names()
        types = [str(t) for t in schema.get_field_data_types()]
        with result.collect() as it:
            rows = [[_plain(v) for v in row] for row in it]
        done = time.perf_counter()
    finally:
        if temporary is not None:
            os.unlink(temporary)
    return {"columns": [list(c) for c in zip(names, types, strict=True)], "rows": rows,
            "seconds": {"ddl": loaded - began, "job": done - loaded}}


#: Statements per job of :func:`tables` (the module docstring: ten cost 0.33 s of CPU a
#: statement where forty cost 0.59 s).
CHUNK = 10


def tables(env: Any, msg: dict[str, Any]) -> dict[str, object]:
    """Many ``table`` requests (without ``path``), each over its own table, answered by few
    jobs: each statement is planned alone (its parse or validation error is its answer),
    its rows turned into ``(request number, JSON array of the values as text)``, and the
    statements of a chunk of :data:`CHUNK` run as one ``UNION ALL`` job. A job that fails
    is split in two and each half rerun, down to the statement that fails alone (its error
    is its answer)."""
    streaming = msg.get("mode") == "streaming"
    requests = msg["requests"]
    answers: list[dict[str, Any]] = [{} for _ in requests]
    planned: list[tuple[int, Any]] = []
    temporaries = []
    try:
        for k, req in enumerate(requests):
            name = f"{req['name']}_{k}"
            try:
                temporaries.append(create(env, name, req, streaming=streaming))
                sql = req["sql"].replace(f"`{req['name']}`", f"`{name}`", 1)
                columns = _columns(env.sql_query(sql))
                names = [n for n, _ in columns]
                answers[k] = {"columns": columns}
                values = ", ".join(f"CAST(`{n}` AS STRING)" for n in names)
                planned.append((k, env.sql_query(
                    f"SELECT {k} AS q, JSON_ARRAY({values} NULL ON NULL) AS j FROM ({sql})")))
            except Exception as err:  # the engine's failure is the answer
                answers[k] = {"error": _said(err)}
        for at in range(0, len(planned), CHUNK):
            _union(planned[at:at + CHUNK], answers)
    finally:
        for t in temporaries:
            if t is not None:
                os.unlink(t)
    return {"answers": answers}


def _columns(table: Any) -> list[list[str]]:
    """The ``[name, type]`` of each column of a planned statement, the type as Flink writes
    it (``BIGINT NOT NULL``): read from the resolved schema's columns as text, three calls
    into the JVM a column where PyFlink's own types took about 250 (a fifth of the worker's
    time on a chunk of forty)."""
    out = []
    for column in table.get_resolved_schema().get_columns():
        name = column.get_name()
        quoted = "`" + name.replace("`", "``") + "`"
        out.append([name, str(column).removeprefix(quoted).strip()])
    return out


def _said(err: Exception) -> str:
    return f"{type(err).__name__}: {str(err)[:2000]}"


def _union(part: list[tuple[int, Any]], answers: list[dict[str, Any]]) -> None:
    """Run the statements of ``part`` as one job (:func:`tables`), splitting on failure."""
    union = part[0][1]
    for _, t in part[1:]:
        union = union.union_all(t)
    rows: dict[int, list[list[object]]] = {k: [] for k, _ in part}
    try:
        with union.execute().collect() as it:
            for q, j in it:
                rows[q].append(json.loads(j))
    except Exception as err:  # split, down to the failing statement
        if len(part) == 1:
            answers[part[0][0]] = {"error": _said(err)}
            return
        half = len(part) // 2
        _union(part[:half], answers)
        _union(part[half:], answers)
        return
    for k, got in rows.items():
        kinds = [str(t) for _, t in answers[k]["columns"]]
        answers[k]["rows"] = [[_value(v, t) for v, t in zip(r, kinds, strict=True)]
                              for r in got]


def _value(text: object, kind: str) -> object:
    """A value cast to text by :func:`tables` as the JSON value of its Flink type ``kind``."""
    if text is None:
        return None
    upper = kind.upper()
    if upper.startswith(("BIGINT", "INT", "SMALLINT", "TINYINT")):
        return int(str(text))
    if upper.startswith(("DOUBLE", "FLOAT", "REAL")):
        return float(str(text))
    if upper.startswith("BOOLEAN"):
        return str(text).upper() == "TRUE"
    return text


if __name__ == "__main__":
    main()
