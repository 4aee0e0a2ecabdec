"""Spark and Java failures said in one line (docs/outputs.md, "Bad input").

A Spark job that fails raises a Py4J or PySpark exception whose text is a Java
stack; :func:`spark_errors` turns it into one :class:`SparkFailure` line with the
real cause (:func:`cause`: the innermost Java cause, a Python task's own
exception, or Spark's ``[ERROR_CLASS] message``), and lets a Kleene error raised
inside a task (a bad row, the budget) through as its own line. Used by every
command that runs Spark: ``kleene match --spark``, ``kleene stream``, ``kleene
conform`` with a Spark backend.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kleene.reference.errors import KleeneError


class SparkFailure(KleeneError):
    """A Spark or Java failure, as one line with its cause and where the JVM's log is."""

    code = "spark"

    def __str__(self) -> str:
        return str(self.args[0])


#: PySpark's loggers that print an error with a query context (a failed cast, say) as a
#: JSON record with the Java stack on stderr before raising it: the error is said once,
#: as one line, by :func:`spark_errors`.
QUERY_CONTEXT_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")


@contextmanager
def spark_errors() -> Iterator[None]:
    """Map any exception raised by PySpark or py4j to one :class:`SparkFailure` line
    (:func:`cause`), or, when a Kleene error stopped a Spark task or a streaming
    micro-batch (a bad row, the budget), to that error's own line
    (:func:`~kleene.engines.spark.runner.job_errors`); PySpark's own printing of such an
    error is silenced."""
    # lazy: Spark only with `--spark` (`kleene match` imports this module)
    from kleene.engines.spark.runner import job_errors

    try:
        _quiet_query_contexts()
        with job_errors():
            yield
    except KleeneError:
        raise
    except Exception as err:
        if not type(err).__module__.startswith(("pyspark", "py4j")):
            raise
        # lazy: Spark only with `--spark` (`kleene match` imports this module)
        from kleene.engines.spark.session import spark_log

        raise SparkFailure(f"Spark failed: {cause(err)} (the JVM's log: {spark_log()})") \
            from None


def _quiet_query_contexts() -> None:
    """Silence :data:`QUERY_CONTEXT_LOGGERS` (made as PySpark makes them, so its calls
    with their own keywords still work)."""
    # lazy: Spark only with `--spark`
    from pyspark.logger import PySparkLogger

    for name in QUERY_CONTEXT_LOGGERS:
        PySparkLogger.getLogger(name).disabled = True


def cause(err: BaseException) -> str:
    """The first informative line of a Spark or Java error, without Py4J's wrapper, the
    Java stack or the Java class names: a Py4J error's innermost Java cause, a Python
    task's own exception (``ValueError: ...``), Spark's ``[ERROR_CLASS] message``."""
    java = getattr(err, "java_exception", None)       # py4j.protocol.Py4JJavaError
    if java is not None:
        text = _java_root(java)
    elif type(err).__name__ == "PythonException":     # a Python task's traceback
        text = _python_cause(str(err))
    else:
        text = str(err)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not _WRAPPER.match(line)] or lines
    caused = [line for line in lines if line.startswith("Caused by:")]
    line = (caused[-1].removeprefix("Caused by:").strip() if caused
            else lines[0] if lines else type(err).__name__)
    line = re.sub(r"^([a-z]+\.)+[A-Za-z$]+(Exception|Error):\s*", "", line)
    return line[:300]


#: Py4J's first line around a Java error: ``An error occurred while calling o123.x.``
_WRAPPER = re.compile(r"^(py4j\.protocol\.Py4JJavaError: )?An error occurred while calling "
                      r"\S+\.?$|^:\s*$")


def _java_root(java: Any) -> str:
    """The message of the innermost cause of a Java throwable (through Py4J)."""
    try:
        while java.getCause() is not None and java.getCause() != java:
            java = java.getCause()
        return str(java.getMessage() or java.toString())
    except Exception:   # the JVM is gone: its text is all there is
        return str(java)


def _python_cause(text: str) -> str:
    """The last line of a Python traceback that names the exception."""
    lines = [line for line in text.splitlines() if line.strip()]
    named = [line for line in lines if re.match(r"^[A-Za-z_][\w.]*(: |$)", line)
             and not line.startswith(("Traceback", "An exception was thrown"))]
    return named[-1] if named else text
