"""The parsed splits of a stock file kept between the reading job and the engine stage.

Issue 14 (parse once, :mod:`.stock_arrow`): each task of the reading job writes
its parsed split in Arrow IPC to a scratch directory that the driver made for
the query (:func:`scratch`), and the engine stage reads it back memory-mapped
(:func:`read`). A task writes only where that directory exists — an executor
on another machine does not see it and writes nothing — and :func:`read`
returns ``None`` for a split that is not there (the caller parses the text
again). The driver keeps the directories of its :data:`KEEP` latest scans and
removes them all when it exits.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any

#: Scratch directories the driver keeps (older ones are removed).
KEEP = 2

#: The driver's scratch directories, oldest first.
_SCRATCH: list[str] = []


def scratch() -> str:
    """A new scratch directory for one scan's parsed splits."""
    path = tempfile.mkdtemp(prefix="kleene-splits-")
    _SCRATCH.append(path)
    while len(_SCRATCH) > KEEP:
        shutil.rmtree(_SCRATCH.pop(0), ignore_errors=True)
    return path


@atexit.register
def _remove_all() -> None:
    for path in _SCRATCH:
        shutil.rmtree(path, ignore_errors=True)


def _file(cache: str, part: int) -> str:
    return os.path.join(cache, f"split-{part}.arrow")


def write(cache: str, part: int, tables: list[Any]) -> None:
    """Split ``part`` (its parsed tables) in ``cache`` when that directory is here;
    atomic (a retried task replaces it whole), and nothing on a write error."""
    import pyarrow as pa

    if not os.path.isdir(cache) or not tables:
        return
    table = pa.concat_tables(tables)
    target = _file(cache, part)
    partial = f"{target}.{os.getpid()}.partial"
    try:
        with pa.OSFile(partial, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        os.replace(partial, target)
    except OSError:          # a full disk, say: the engine stage parses the split again
        if os.path.exists(partial):
            os.remove(partial)


def read(cache: str, part: int) -> Any | None:
    """Split ``part`` as :func:`write` left it, or ``None`` when it is not here."""
    import pyarrow as pa

    try:
        with pa.memory_map(_file(cache, part)) as source:
            return pa.ipc.open_file(source).read_all()
    except (OSError, pa.ArrowInvalid):
        return None
