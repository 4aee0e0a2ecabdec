"""The bytes of an events file: read whole, gunzipped by magic bytes, perhaps ahead of time.

The text readers that parse a whole file at once (stock lines and CSV,
:mod:`kleene.data.loaders`) start from its bytes. Reading and
decompressing them needs neither NumPy nor pyarrow, and both release the GIL,
so the ``kleene`` program starts them on a second thread (:func:`prefetch`)
before it imports those libraries (about 0.2 s), and the loader takes the
bytes when it gets there (:func:`prefetched`). Only *when* the bytes are read
changes: a file whose size or modification time changed in between, or whose
reading failed, is read again by the loader, which names the problem. Once
the module that reads a format is imported it registers how (:func:`read_further`:
stock lines' columns), and the thread reads the bytes further, while the main
thread still imports; the loader takes that too.

This module imports only the standard library (it runs before the heavy imports).
"""

from __future__ import annotations

import os
import threading
import zlib
from collections.abc import Callable
from pathlib import Path

#: File extensions (lower case, after stripping ``.gz``) and their formats.
EXTENSIONS: dict[str, str] = {
    ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet",
    ".pq": "parquet", ".stream": "stock", ".stock": "stock", ".stocks": "stock",
}
#: The formats whose loader reads the whole file's bytes (:func:`file_bytes`).
WHOLE = frozenset({"stock", "csv"})
GZIP_MAGIC = b"\x1f\x8b"
#: From about this many events on, ``kleene match`` reads stock lines and Parquet in
#: batches, in bounded memory (docs/memory.md): loaded whole, a million stock events
#: peak at about 0.35 GB.
BATCHED_FROM = 1_000_000
#: Bytes of one stock line, about (the bundled stream's lines: 72), to tell a text file's
#: events by its size.
LINE_BYTES = 72

PathLike = str | os.PathLike[str]


def format_of(path: PathLike) -> str | None:
    """The format ``path``'s extension names (a trailing ``.gz`` is ignored), if any."""
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return EXTENSIONS.get(Path(name).suffix)


def text_size(path: PathLike) -> int:
    """About how many bytes of text ``path`` holds, without reading it: its size, or for
    gzip the larger of the size its trailer records (of the last member, modulo 2**32;
    none past deflate's 1032:1) and 4 times its compressed size; 0 when it cannot be
    read."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if f.read(2) != GZIP_MAGIC or size < 18:
                return size
            f.seek(-4, os.SEEK_END)
            recorded = int.from_bytes(f.read(4), "little")
    except OSError:
        return 0
    if recorded > 1032 * size:   # more than deflate's densest: no trailer (a cut file)
        recorded = 0
    return max(recorded, 4 * size)


def many_lines(path: PathLike) -> bool:
    """Whether ``path``, read as text, holds about :data:`BATCHED_FROM` lines or more."""
    return text_size(path) >= BATCHED_FROM * LINE_BYTES


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


#: How a format's bytes are read further on the thread, ``bytes -> object`` (registered
#: by the module that reads the format, when it is imported: :mod:`.stock`).
_FURTHER: dict[str, Callable[[bytes], object]] = {}
_READY = threading.Condition()


def read_further(format: str, reader: Callable[[bytes], object]) -> None:
    """Register how the bytes of ``format`` read ahead are read further on the thread
    (called once ``reader`` can run: at the end of its module's import)."""
    with _READY:
        _FURTHER[format] = reader
        _READY.notify_all()


class _Ahead:
    """One file being read on a thread: its identity when the read began, the bytes, and
    what its format's reader made of them (``further``: ``None`` if not run)."""

    def __init__(self, path: str, stamp: tuple[int, int], format: str, further: bool) -> None:
        self.path, self.stamp, self.format = path, stamp, format
        self.data: bytes | None = None
        self.further: tuple[object] | None = None
        self.wanted, self.taken = further, False
        self.thread = threading.Thread(target=self._read, name="kleene-prefetch", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            self.data = file_bytes(self.path)
        except (OSError, zlib.error, EOFError, MemoryError):
            self.data = None            # the loader reads it again and says why
            return
        if not self.wanted:
            return
        with _READY:                    # until the reader is imported or the loader is here
            while self.format not in _FURTHER and not self.taken:
                _READY.wait()
            if self.taken:
                return
            reader = _FURTHER[self.format]
        try:
            self.further = (reader(self.data),)
        except Exception:               # noqa: BLE001 - the loader reads again, says why
            self.further = None


_AHEAD: dict[str, _Ahead] = {}


def _stamp(path: PathLike) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def prefetch(path: PathLike, format: str | None = None, *, further: bool = False) -> bool:
    """Start reading ``path`` on a thread if its format (given, or from its extension)
    is one of :data:`WHOLE` and it is a regular file (stock lines: fewer than
    :data:`BATCHED_FROM`, which ``kleene match`` reads in batches); whether it started. With
    ``further``, the thread then reads the bytes with the reader registered for the
    format (:func:`read_further`), once there is one, unless the loader takes them
    first."""
    fmt = format or format_of(path)
    if fmt not in WHOLE or not os.path.isfile(path) or (fmt == "stock" and many_lines(path)):
        return False
    stamp = _stamp(path)
    if stamp is None:
        return False
    _AHEAD[os.path.realpath(path)] = _Ahead(str(path), stamp, fmt, further)
    return True


def prefetched(path: PathLike) -> tuple[bytes, tuple[object] | None] | None:
    """What :func:`prefetch` read of ``path`` (waiting for it): the bytes, and the
    format's reader's result in a 1-tuple (``None``: not read further); ``None`` when
    it was not asked, failed, or the file changed since (then read it yourself)."""
    ahead = _AHEAD.pop(os.path.realpath(path), None)
    if ahead is None:
        return None
    with _READY:
        ahead.taken = True
        _READY.notify_all()
    ahead.thread.join()
    if ahead.data is None or _stamp(path) != ahead.stamp:
        return None
    return ahead.data, ahead.further
