"""The explicit state store of a continuous run: versioned, one commit per micro-batch.

docs/architecture.md, "Continuous matching". Spark's checkpoint (``<checkpoint>/spark``)
records which files each micro-batch read; after a crash Spark runs the last
uncommitted batch again with the same files and the same batch id. Kleene keeps
its own state beside it (``<checkpoint>/kleene/<batch>/``): the events not yet
settled, the settled events a match not yet final can still read (two Arrow
IPC files, the window's tail: small), and :class:`Meta` (watermark, frontier,
next position, counters). The store keeps the last committed tail in the
driver's memory too, so a running query reads its state back only after a
restart. Batch ``k``'s
output and state are pure functions of batch ``k − 1``'s state and batch
``k``'s files, and each is committed by one rename of a finished directory, so
a batch run twice (killed before Spark committed it) finds its output and
state already there and writes nothing: every match is written exactly once.

Files go through Hadoop's ``FileSystem`` (through the JVM), so the checkpoint
and the output may be on HDFS or S3 as well as local.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field, replace
from typing import Any

#: The state directories kept (the last committed ones).
KEEP_STATES = 2


@dataclass(frozen=True)
class Meta:
    """What a committed micro-batch leaves: ``watermark`` (every event with a smaller
    ``ts`` has arrived), ``frontier`` (every match whose first event has a smaller
    ``ts`` was written), ``next_position`` (the stream position of the next settled
    event), ``ended`` (the end of the stream was declared: everything was flushed)
    and the running ``counts`` (events, late, rejected, settled, matches)."""

    batch: int = -1
    watermark: float = -math.inf
    frontier: float = -math.inf
    next_position: int = 0
    ended: bool = False
    counts: dict[str, int] = field(default_factory=dict)

    def dumps(self) -> str:
        data = asdict(self)
        for key in ("watermark", "frontier"):   # JSON has no infinities
            data[key] = repr(data[key])
        return json.dumps(data, sort_keys=True)

    @classmethod
    def loads(cls, text: str) -> Meta:
        data = json.loads(text)
        for key in ("watermark", "frontier"):   # an integer stays exact
            text = data[key]
            data[key] = int(text) if text.lstrip("-").isdigit() else float(text)
        return cls(**data)

    def advanced(self, batch: int, **changes: Any) -> Meta:
        counts = dict(self.counts)
        for key, value in changes.pop("add", {}).items():
            counts[key] = counts.get(key, 0) + int(value)
        return replace(self, batch=batch, counts=counts, **changes)


class FileSystem:
    """The few Hadoop ``FileSystem`` calls the store needs, on any URI Spark reads."""

    def __init__(self, spark: Any, root: str) -> None:
        jvm = spark.sparkContext._jvm
        self._path = jvm.org.apache.hadoop.fs.Path
        self._io = jvm.org.apache.commons.io.IOUtils
        self.fs = self._path(root).getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())

    def exists(self, path: str) -> bool:
        return bool(self.fs.exists(self._path(path)))

    def delete(self, path: str) -> None:
        if self.exists(path):
            self.fs.delete(self._path(path), True)

    def rename(self, source: str, target: str) -> None:
        """Commit ``source`` as ``target`` (one rename; ``target`` must not exist)."""
        if not self.fs.rename(self._path(source), self._path(target)):
            raise OSError(f"could not rename {source} to {target}")

    def children(self, path: str) -> list[str]:
        if not self.exists(path):
            return []
        return [str(s.getPath().getName()) for s in self.fs.listStatus(self._path(path))]

    def write_text(self, path: str, text: str) -> None:
        self.write_bytes(path, text.encode())

    def _local(self, path: str) -> str | None:
        """The local path of ``path`` on a local file system (``None`` elsewhere): bytes
        go through Python there, as py4j moves large byte arrays slowly."""
        if str(self.fs.getScheme()) != "file":
            return None
        return str(self.fs.makeQualified(self._path(path)).toUri().getPath())

    def write_bytes(self, path: str, data: bytes) -> None:
        local = self._local(path)
        if local is not None:
            os.makedirs(os.path.dirname(local), exist_ok=True)
            with open(local, "wb") as f:
                f.write(data)
            return
        out = self.fs.create(self._path(path), True)
        try:
            out.write(bytearray(data))
        finally:
            out.close()

    def read_bytes(self, path: str) -> bytes:
        local = self._local(path)
        if local is not None:
            with open(local, "rb") as f:
                return f.read()
        stream = self.fs.open(self._path(path))
        try:
            return bytes(self._io.toByteArray(stream))
        finally:
            stream.close()

    def read_text(self, path: str) -> str:
        stream = self.fs.open(self._path(path))
        try:
            return str(self._io.toString(stream, "UTF-8"))
        finally:
            stream.close()


def _join(*parts: str) -> str:
    return "/".join(p.rstrip("/") for p in parts)


class StateStore:
    """Versioned state under ``<checkpoint>/kleene``: :meth:`latest` before a batch,
    :meth:`commit` of a finished batch, the tables of a state by name."""

    def __init__(self, spark: Any, checkpoint: str) -> None:
        self.spark = spark
        self.root = _join(checkpoint, "kleene")
        self.fs = FileSystem(spark, checkpoint)
        self._tail: tuple[int, dict[str, Any]] | None = None

    def _batches(self) -> list[int]:
        return sorted(int(n) for n in self.fs.children(self.root) if n.isdigit())

    def committed(self, batch: int) -> bool:
        return self.fs.exists(_join(self.root, str(batch), "meta.json"))

    def latest(self, before: int | None = None) -> Meta:
        """The meta of the last committed batch (before ``before``), or the start."""
        for b in reversed(self._batches()):
            if (before is None or b < before) and self.committed(b):
                return Meta.loads(self.fs.read_text(_join(self.root, str(b), "meta.json")))
        return Meta()

    def tail(self, meta: Meta) -> dict[str, Any]:
        """The tables (Arrow) of the state ``meta``, by name; a table absent or empty
        is left out. From memory when ``meta`` is the last state this store
        committed, else read back (after a restart)."""
        import pyarrow as pa

        if meta.batch < 0:
            return {}
        if self._tail is not None and self._tail[0] == meta.batch:
            return self._tail[1]
        folder = _join(self.root, str(meta.batch))
        tables = {}
        for name in self.fs.children(folder):
            if name.endswith(".arrow"):
                data = self.fs.read_bytes(_join(folder, name))
                tables[name.removesuffix(".arrow")] = pa.ipc.open_stream(data).read_all()
        self._tail = (meta.batch, tables)
        return tables

    def commit(self, batch: int, meta: Meta, tables: dict[str, Any]) -> None:
        """Write ``tables`` (Arrow, the non-empty ones) and ``meta`` into a staging
        directory and rename it into place (one commit); drop states older than
        the last :data:`KEEP_STATES`."""
        import pyarrow as pa

        staging = _join(self.root, f"_staging-{batch}")
        self.fs.delete(staging)
        kept = {name: t for name, t in tables.items() if t is not None and t.num_rows}
        for name, table in kept.items():
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
            self.fs.write_bytes(_join(staging, f"{name}.arrow"), sink.getvalue().to_pybytes())
        self.fs.write_text(_join(staging, "meta.json"), meta.dumps())
        self.fs.rename(staging, _join(self.root, str(batch)))
        self._tail = (batch, kept)
        for old in self._batches()[:-KEEP_STATES]:
            self.fs.delete(_join(self.root, str(old)))


__all__ = ["FileSystem", "Meta", "StateStore"]
