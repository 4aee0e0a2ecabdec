"""One SparkSession for Kleene: ``local[*]`` by default, a cluster master by flag.

The Python workers must run the interpreter that runs Kleene (it has pyarrow
and Kleene itself), so the session pins ``PYSPARK_PYTHON`` to it. The UI and
verbose logging are off: Kleene prints its own progress.
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

from kleene.reference.errors import KleeneError

DEFAULT_MASTER = "local[*]"

#: Seconds to wait for a standalone master to accept a connection.
CONNECT_TIMEOUT = 5.0


class SparkUnavailable(KleeneError):
    """Spark could not start (no Java, unreachable master, ...)."""

    code = "spark"


def session(master: str | None = None, *, app: str = "kleene",
            config: dict[str, str] | None = None) -> Any:
    """The active SparkSession for ``master`` (started if needed).

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
               .config("spark.sql.session.timeZone", "UTC"))
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except Exception as err:  # py4j / Java errors: make them one line
        raise SparkUnavailable(f"could not start Spark with master {master or DEFAULT_MASTER!r}: "
                               f"{str(err).splitlines()[0] if str(err) else type(err).__name__}"
                               ) from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


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
