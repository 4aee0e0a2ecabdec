"""One SparkSession for Kleene: ``local[*]`` by default, a cluster master by flag.

The Python workers must run the interpreter that runs Kleene (it has pyarrow
and Kleene itself), so the session pins ``PYSPARK_PYTHON`` to it (and
:func:`worker_python` does the same for a session the user started). The UI
and verbose logging are off: Kleene prints its own progress. The JVM's own
stderr (start-up banners, log4j warnings, a Python worker's traceback) goes to
:func:`spark_log` instead of the terminal; Kleene maps every failure to one
line (:mod:`kleene.cli.spark`).
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kleene.reference.errors import KleeneError

DEFAULT_MASTER = "local[*]"

#: Seconds to wait for a standalone master to accept a connection.
CONNECT_TIMEOUT = 5.0

#: The driver JVM's options (Spark's setting) and Kleene's choice for a ``local`` master,
#: where that JVM is the executor too: the throughput collector. Measured on 2 cores,
#: ``srt`` over the stock stream ×10 on ``local[2]``: G1's concurrent marking took
#: 0.8-0.9 s of CPU per query (of 1.4-4.3 s for the whole JVM) from the Python
#: workers; with this collector 0.03 s, and the query 1.8-2.2 s rather than 2.5-3.0 s.
#: The JVM-heavy paths (the Spark SQL stock reader, a keyed plan shuffled through the
#: JVM) measured the same or faster. A ``config`` naming :data:`JAVA_OPTIONS` replaces it.
JAVA_OPTIONS = "spark.driver.extraJavaOptions"
LOCAL_JAVA_OPTIONS = "-XX:+UseParallelGC"

#: Added to :data:`LOCAL_JAVA_OPTIONS` for a session that runs one query and ends
#: (``kleene match --spark``): the JVM compiles with its quick compiler (C1) only. Its
#: optimising compiler (C2) spends CPU that a short JVM never earns back: measured on
#: ``local[2]``, ``srt`` on the stock stream (2 cores, load 20-28), the JVM used 11.7 CPU s
#: to start and 8.6 s in its first query with both compilers, 7.1 s and 5.0 s with C1
#: only, and 1.0 against 0.5 s in the second query (``python -m bench spark-cpu``;
#: docs/benchmarks.md, "Where the CPU of kleene match --spark goes"). A long session (a
#: stream, the user's own) keeps both.
ONE_QUERY_JIT = "-XX:TieredStopAtLevel=1"

#: Spark's setting for the channel between a JVM and its Python workers, and Kleene's
#: choice for a ``local`` master: Unix domain sockets. Over loopback TCP every task of
#: a ``mapInArrow`` stage waited ~40 ms for its first input batch (the small writes of
#: the JVM and the worker's delayed acknowledgement): 8 tasks that read one row and
#: write 100 took 0.48-0.59 s on ``local[1]``, 0.19-0.23 s over Unix sockets
#: (``python -m bench spark-tasks``). Set only where this Python has them
#: (:func:`unix_sockets`); a ``config`` naming the setting replaces it.
UNIX_SOCKETS = "spark.python.unix.domain.socket.enabled"


class SparkUnavailable(KleeneError):
    """Spark could not start (no Java, unreachable master, ...)."""

    code = "spark"


def session(master: str | None = None, *, app: str = "kleene",
            config: dict[str, str] | None = None, one_query: bool = False) -> Any:
    """The active SparkSession for ``master`` (started if needed; ``one_query``: for a
    process that runs one query and ends, :data:`ONE_QUERY_JIT`).

    Raises :class:`SparkUnavailable` with one clear line when Java is missing
    or the master cannot be reached, before any job runs.
    """
    check_master(master or DEFAULT_MASTER)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master(master or DEFAULT_MASTER).appName(app)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "8")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.sql.session.timeZone", "UTC")
               # column names are case-sensitive, as in the single process (``ID`` and
               # ``id`` are two attributes; docs: the loaders' hostile-input rules)
               .config("spark.sql.caseSensitive", "true")
               # A continuous source's micro-batch names each new file as a path of its
               # own; above this many paths Spark lists them again in a Spark job
               # (0.4-1.5 s a micro-batch of 60-120 files, against 40-120 ms on the driver).
               .config("spark.sql.sources.parallelPartitionDiscovery.threshold", "1024"))
    for key, value in settings(master or DEFAULT_MASTER, config, one_query).items():
        builder = builder.config(key, value)
    try:
        with _jvm_stderr():
            spark = builder.getOrCreate()
    except Exception as err:  # py4j / Java errors: make them one line
        raise SparkUnavailable(f"could not start Spark with master {master or DEFAULT_MASTER!r}: "
                               f"{str(err).splitlines()[0] if str(err) else type(err).__name__}"
                               ) from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def settings(master: str, config: dict[str, str] | None = None,
             one_query: bool = False) -> dict[str, str]:
    """The settings Kleene adds to a session's builder: ``config``, and for a ``local``
    master :data:`LOCAL_JAVA_OPTIONS` (with :data:`ONE_QUERY_JIT` for ``one_query``) and
    (:func:`unix_sockets`) :data:`UNIX_SOCKETS`, each unless ``config`` names it. A
    cluster's settings are the user's."""
    chosen = dict(config or {})
    if master.startswith("local"):
        chosen.setdefault(JAVA_OPTIONS, f"{LOCAL_JAVA_OPTIONS} {ONE_QUERY_JIT}" if one_query
                          else LOCAL_JAVA_OPTIONS)
        if unix_sockets():
            chosen.setdefault(UNIX_SOCKETS, "true")
    return chosen


def unix_sockets() -> bool:
    """Whether this Python can talk to the JVM over Unix domain sockets (not on Windows)."""
    return hasattr(socket, "AF_UNIX")


def spark_log() -> Path:
    """Where the JVM's stderr goes: ``$KLEENE_SPARK_LOG``, else ``kleene-spark.log`` in
    the temporary folder."""
    return Path(os.environ.get("KLEENE_SPARK_LOG")
                or Path(tempfile.gettempdir()) / "kleene-spark.log")


@contextmanager
def _jvm_stderr() -> Iterator[None]:
    """Start the JVM with its stderr (file descriptor 2) sent to :func:`spark_log`; a
    running JVM keeps its own."""
    from pyspark import SparkContext

    if SparkContext._active_spark_context is not None or not hasattr(os, "dup2"):
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        log = os.open(spark_log(), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError:
        os.close(saved)
        yield
        return
    os.dup2(log, 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(log)


def worker_python(spark: Any) -> None:
    """Run the Python workers of ``spark`` with this interpreter (which has Kleene),
    unless the user chose one with ``PYSPARK_PYTHON``: a session the user started
    without it would otherwise run ``python3``, which cannot import ``kleene``."""
    sc = spark.sparkContext
    if sc.pythonExec == "python3":   # PySpark's default when PYSPARK_PYTHON is unset
        sc.pythonExec = sys.executable


def check_master(master: str) -> None:
    """Raise :class:`SparkUnavailable` unless every host of a ``spark://host:port[,...]``
    master accepts a TCP connection (Spark itself would retry for a minute)."""
    if not master.startswith("spark://"):
        return
    for address in master.removeprefix("spark://").split(","):
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise SparkUnavailable(f"cannot read the master URL {master!r}; expected "
                                   "spark://HOST:PORT")
        try:
            socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
        except OSError as err:
            raise SparkUnavailable(f"cannot reach the Spark master {address}: "
                                   f"{err.strerror or err}") from None
