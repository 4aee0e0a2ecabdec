"""The bytes of an events file: read whole, gunzipped by magic bytes, perhaps ahead of time.

The text readers that parse a whole file at once (stock lines and CSV,
:mod:`kleene.reference.loaders`) start from its bytes. Reading and
decompressing them needs neither NumPy nor pyarrow, and both release the GIL,
so the ``kleene`` program starts them on a second thread (:func:`prefetch`)
before it imports those libraries (about 0.2 s), and the loader takes the
bytes when it gets there (:func:`prefetched`). Only *when* the bytes are read
changes: a file whose size or modification time changed in between, or whose
reading failed, is read again by the loader, which names the problem.

This module imports only the standard library (it runs before the heavy imports).
"""

from __future__ import annotations

import os
import threading
import zlib
from pathlib import Path

#: File extensions (lower case, after stripping ``.gz``) and their formats.
EXTENSIONS: dict[str, str] = {
    ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet",
    ".pq": "parquet", ".stream": "stock", ".stock": "stock", ".stocks": "stock",
}
#: The formats whose loader reads the whole file's bytes (:func:`file_bytes`).
WHOLE = frozenset({"stock", "csv"})
GZIP_MAGIC = b"\x1f\x8b"

PathLike = str | os.PathLike[str]


def format_of(path: PathLike) -> str | None:
    """The format ``path``'s extension names (a trailing ``.gz`` is ignored), if any."""
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return EXTENSIONS.get(Path(name).suffix)


def file_bytes(path: PathLike) -> bytes:
    """The bytes of ``path``, decompressed when they start with gzip's magic bytes
    (raises ``OSError``, ``zlib.error`` or ``EOFError``)."""
    with open(path, "rb") as f:
        data = f.read()
    return gunzip(data) if data.startswith(GZIP_MAGIC) else data


def gunzip(data: bytes) -> bytes:
    """The gzip ``data`` decompressed: every member (a file may hold several,
    concatenated); zero bytes after the last are padding, as :mod:`gzip` reads them."""
    parts = []
    while True:
        member = zlib.decompressobj(31)
        parts.append(member.decompress(data))
        if not member.eof:
            raise EOFError("the file ends inside a gzip member")
        data = member.unused_data
        if not data.strip(b"\0"):
            return b"".join(parts)
        if not data.startswith(GZIP_MAGIC):
            raise zlib.error("bytes after the last gzip member are not gzip")


class _Ahead:
    """One file being read on a thread: its identity when the read began, and the bytes."""

    def __init__(self, path: str, stamp: tuple[int, int]) -> None:
        self.path, self.stamp = path, stamp
        self.data: bytes | None = None
        self.thread = threading.Thread(target=self._read, name="kleene-prefetch", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            self.data = file_bytes(self.path)
        except (OSError, zlib.error, EOFError, MemoryError):
            self.data = None            # the loader reads it again and says why


_AHEAD: dict[str, _Ahead] = {}


def _stamp(path: PathLike) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def prefetch(path: PathLike, format: str | None = None) -> bool:
    """Start reading ``path`` on a thread if its format (given, or from its extension)
    is one of :data:`WHOLE` and it is a regular file; whether it started."""
    if (format or format_of(path)) not in WHOLE or not os.path.isfile(path):
        return False
    stamp = _stamp(path)
    if stamp is None:
        return False
    _AHEAD[os.path.realpath(path)] = _Ahead(str(path), stamp)
    return True


def prefetched(path: PathLike) -> bytes | None:
    """The bytes :func:`prefetch` read of ``path`` (waiting for them), or ``None`` when it
    was not asked, failed, or the file changed since (then read it yourself)."""
    ahead = _AHEAD.pop(os.path.realpath(path), None)
    if ahead is None:
        return None
    ahead.thread.join()
    return ahead.data if _stamp(path) == ahead.stamp else None
