"""Outputs that never destroy an input: the one guard of every writer (issue 27).

Every writer of Kleene (``kleene match --output``, its tables too, ``kleene convert``,
``kleene stream --output``, ``kleene conform --junit/--report/--export/--report-site``,
the Spark writers of :mod:`kleene.engines.spark.runner`) goes through this module:

- :func:`refuse_inputs`, before any work: the target is not, and does not link to, a
  file the command reads (the same device and inode, so a hard link or a symlink to an
  input is the input); a folder output (Spark's, ``kleene stream``'s, ``--export``'s)
  holds no input and lies in no input folder (a folder's contents are replaced, and a
  stream's source folder would read its own output as events);
- :func:`check_writable`, before work whose output comes last (a conformance report,
  the compliance site): the folder (made if absent) takes a new file, and the target is
  no folder (a folder output: no file);
- :func:`replacing` and :func:`replacing_folder`: the new output is written to a
  temporary file (folder) in the target's folder and renamed into place only once
  complete, so a failure leaves the previous output as it was and no half-written
  file; a target that is a device or a pipe (``/dev/stdout``) is written in place.

Every ``OSError`` of a writer is one :class:`OutputError` line (docs/architecture.md,
"Bad input"): ``cannot write --junit r.xml: No space left on device``.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from kleene.reference.errors import KleeneError


class OutputError(KleeneError):
    """An output that cannot, or must not, be written."""

    code = "output"

    def __str__(self) -> str:
        return str(self.args[0])


def reason(err: OSError) -> str:
    """What went wrong, in the operating system's words (``No space left on device``; also
    for pyarrow's errors, which give the number in their text)."""
    if err.errno:
        return os.strerror(err.errno)
    found = re.search(r"\[errno (\d+)\]", str(err), re.IGNORECASE)
    return os.strerror(int(found[1])) if found else err.strerror or str(err)


def _stat(path: str) -> os.stat_result | None:
    """``os.stat`` of ``path`` through its links, or ``None`` where nothing is there."""
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it (links resolved)."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def refuse_inputs(target: str, inputs: Iterable[str], *, option: str,
                  folder: bool = False) -> None:
    """An :class:`OutputError` when writing ``target`` (named by ``option``, e.g.
    ``--output``) could overwrite one of ``inputs`` (files or folders the command reads):
    ``target`` is an input or links to one (same device and inode); or, for a ``folder``
    output or a ``target`` that is a folder now, an input lies in it; or, for a
    ``folder`` output, it lies in an input folder."""
    if not target:
        raise OutputError(f"{option} needs a path")
    mine = _stat(target)
    for source in inputs:
        theirs = _stat(source)
        if theirs is None:
            continue
        if mine is not None and (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino):
            same = os.path.normpath(target) == os.path.normpath(source)
            kind = "folder" if stat.S_ISDIR(theirs.st_mode) else "file"
            what = f"the input {kind}" if same else f"the input {source} (through a link)"
            raise OutputError(f"{option} {target} is {what}; choose another path")
        if (folder or (mine is not None and stat.S_ISDIR(mine.st_mode))) \
                and _within(source, target):
            raise OutputError(f"{option} {target} holds the input {source}, which writing "
                              "it would replace; choose another path")
        if folder and stat.S_ISDIR(theirs.st_mode) and _within(target, source):
            raise OutputError(f"{option} {target} lies in the input folder {source}; "
                              "choose another path")


def check_writable(target: str, *, option: str, folder: bool = False) -> None:
    """Before the work whose output comes last: ``target`` is no folder (a ``folder``
    output: no file), and its folder (made if absent) takes a new file (a probe file
    created and removed: permissions alone do not say it, for root or on a read-only file
    system)."""
    if not target:
        raise OutputError(f"{option} needs a path")
    if not folder and os.path.isdir(target):
        raise OutputError(f"{option} {target} is a folder; name a file")
    if folder and os.path.exists(target) and not os.path.isdir(target):
        raise OutputError(f"{option} {target} is a file; name a folder")
    real = os.path.realpath(target)
    if _special(real):
        return
    probe = _temporary(real)
    try:
        os.makedirs(os.path.dirname(real) or ".", exist_ok=True)
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        os.remove(probe)
    except OSError as err:
        raise OutputError(f"cannot write {option} {target}: {reason(err)}") from None


def _special(path: str) -> bool:
    """Whether ``path`` is a device, a pipe or a socket (written in place, never renamed
    over)."""
    found = _stat(path)
    return found is not None and not stat.S_ISREG(found.st_mode) \
        and not stat.S_ISDIR(found.st_mode)


def _temporary(real: str) -> str:
    """A fresh hidden name beside ``real``."""
    head, tail = os.path.split(real)
    return os.path.join(head, f".{tail}.{uuid.uuid4().hex[:12]}.tmp")


def _remove(path: str) -> None:
    """Remove the file or folder ``path`` if it is there."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        try:
            os.remove(path)
        except OSError:
            pass


@contextmanager
def replacing(target: str, *, option: str, over_folder: bool = False) -> Iterator[str]:
    """The path to write ``target``'s new contents to: a temporary file in the folder of
    the file ``target`` names (through a symlink, the file it points to), renamed over it
    when the block ends without an error; on an error it is removed and the previous
    ``target`` is left as it was. A folder at ``target`` is an :class:`OutputError`,
    unless ``over_folder`` (the caller checked it is a previous output: it is removed
    once the file is written). An ``OSError`` is one :class:`OutputError` line."""
    real = os.path.realpath(target)
    if os.path.isdir(real) and not over_folder:
        raise OutputError(f"{option} {target} is a folder; name a file")
    if _special(real):
        try:
            yield real
        except OSError as err:
            raise OutputError(f"cannot write {option} {target}: {reason(err)}") from None
        return
    temporary = _temporary(real)
    try:
        os.close(os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        yield temporary
        previous = _stat(real)
        if previous is not None and stat.S_ISREG(previous.st_mode):
            os.chmod(temporary, stat.S_IMODE(previous.st_mode))
        _swap(temporary, real)
    except OSError as err:
        raise OutputError(f"cannot write {option} {target}: {reason(err)}") from None
    finally:
        _remove(temporary)


@contextmanager
def replacing_folder(target: str, *, option: str) -> Iterator[str]:
    """As :func:`replacing`, for a folder output: a temporary folder beside ``target``,
    which replaces it when the block ends without an error (the previous folder moved
    aside first and removed last, so a failure leaves it as it was)."""
    real = os.path.realpath(target)
    temporary = _temporary(real)
    try:
        os.makedirs(os.path.dirname(real) or ".", exist_ok=True)
        os.mkdir(temporary)
        yield temporary
        _swap(temporary, real)
    except OSError as err:
        raise OutputError(f"cannot write {option} {target}: {reason(err)}") from None
    finally:
        _remove(temporary)


def _swap(new: str, real: str) -> None:
    """Put ``new`` in the place of ``real``: a file is replaced at once (one rename); a
    folder is moved aside first, put back if the rename fails, and removed last."""
    if not os.path.isdir(real) or os.path.islink(real):
        os.replace(new, real)
        return
    old = _temporary(real)
    os.replace(real, old)
    try:
        os.replace(new, real)
    except OSError:
        os.replace(old, real)
        raise
    _remove(old)
