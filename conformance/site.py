"""The compliance report across implementations (issue 28 item 4): ``kleene conform
--report-site DIR``.

:func:`catalogue` names the backends the site covers: every built-in engine of the
registry (:func:`kleene.engines.registry.engine_names`) and every installed entry point
of the group ``kleene.engines``; the example backends of ``conformance/examples/`` (the
minimal Python and JavaScript ones, the ``MATCH_RECOGNIZE`` one), each run as the
external command an author would write; and the peers of ``make peers`` (Flink SQL,
pandas-match-recognize), which are *not installed* unless ``.peers/`` holds them (a
column of the site says so; nothing fails on it). :func:`run_all` runs each over the
same case files with :func:`kleene.conformance.generated.conform` (the whole run of
``kleene conform``, the same rerun lines), then over the records of Kleene's own
``MATCH_RECOGNIZE`` file (:mod:`kleene.conformance.site_records`: the language's tests are
sqllogictest records, not cases); a backend that cannot start is recorded with the
reason. :func:`write_site` writes the pages of :mod:`kleene.conformance.site_pages`
into ``DIR`` through the one guard of every writer (:mod:`kleene.data.outputs`): refused
before any run when ``DIR`` holds an input or is a file, or is a folder that is neither
empty nor a previous site; written into a temporary folder that replaces ``DIR`` once
complete.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path

from kleene.conformance.adapters.base import PEERS
from kleene.conformance.backends import ENTRY_POINT_GROUP, REFERENCE, find_backend
from kleene.conformance.cases import CaseFile, case_directory, case_id, iter_tests
from kleene.conformance.command import DEFAULT_MAX_ANSWER
from kleene.conformance.generated import conform
from kleene.conformance.outcome import BackendError, UnknownBackend
from kleene.conformance.runner import needed_features, request_of
from kleene.conformance.site_pages import (
    GENERATOR,
    Column,
    backend_page,
    badge,
    index_page,
)
from kleene.conformance.site_records import run_records
from kleene.data.outputs import OutputError, check_writable, refuse_inputs, replacing_folder
from kleene.engines.registry import engine_names
from kleene.reference.errors import KleeneError

OPTION = "--report-site"
EXAMPLES = Path(__file__).resolve().parent / "examples"
BUILT_IN, ENTRY_POINT, EXAMPLE, PEER, GIVEN = (
    "built-in engine", "entry point", "example backend", "peer (make peers)", "backend")


def catalogue() -> list[Column]:
    """Every backend the site covers, in the site's order; one that cannot run here
    (Node.js missing, a peer not installed) carries the reason in ``absent``."""
    out = [Column(name, BUILT_IN, name) for name in engine_names()]
    out += [Column(name, ENTRY_POINT, name) for name in sorted(
        {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})]
    node = shutil.which("node") or shutil.which("nodejs")

    def command(program: str, example: str) -> str:
        return "cmd:" + shlex.join([program, str(EXAMPLES / example)])

    out += [
        Column("minimal-python", EXAMPLE, command(sys.executable, "minimal_backend.py")),
        Column("minimal-javascript", EXAMPLE, command(node or "node", "minimal_backend.js"),
               absent="" if node else "not installed: Node.js (node) is not on the PATH"),
        Column("mr-example", EXAMPLE, command(sys.executable, "mr_backend.py"))]
    for peer in ("flink", "pmr"):
        there = (PEERS / peer / "bin" / "python").exists()
        out.append(Column(peer, PEER, f"kleene.conformance.adapters.engines:{peer}",
                          absent="" if there else f"not installed: no {PEERS / peer} "
                                                  "(make peers installs it)"))
    return out


def chosen(names: Sequence[str] | None) -> list[Column]:
    """The catalogue (``names`` empty or ``None``), or the backends ``names`` names: a
    catalogue label, or any ``--backend`` specification (its own column)."""
    every = catalogue()
    by_label = {c.label: c for c in every}
    for n in names or ():
        if n not in by_label and n != REFERENCE and ":" not in n and not Path(n).is_file():
            raise UnknownBackend(f"--site-backend {n!r}: no such backend on the site; its "
                                 f"backends: {', '.join(by_label)}; or a --backend form "
                                 "(cmd:COMMAND, module:factory, reference, an executable)")
    out = [by_label.get(n) or Column(n, GIVEN, n) for n in dict.fromkeys(names)] \
        if names else every
    slugs = [c.slug for c in out]
    twice = sorted({s for s in slugs if slugs.count(s) > 1})
    if twice:
        raise KleeneError(f"{OPTION}: two backends would share the page {twice[0]}.html; "
                          "name each backend once")
    return out


def needs(files: Iterable[CaseFile]) -> dict[str, frozenset[str]]:
    """Test id → the features it needs (under any window reading it pins)."""
    out: dict[str, frozenset[str]] = {}
    for case, test in iter_tests(files):
        if test.check == "matches":
            out[case_id(case, test)] = frozenset(
                str(f) for expected in test.expectations()
                for f in needed_features(request_of(case, test, expected.reading)))
    return out


def check_target(directory: Path, case_folder: Path | None = None) -> None:
    """Before any run: ``directory`` holds no input and lies in no input folder, is no
    file, is empty or a previous site, and its folder takes a new file."""
    if str(directory) in ("", ".") or directory.resolve() == Path.cwd().resolve():
        raise OutputError(f"{OPTION} needs a folder of its own, not the current folder "
                          "(e.g. --report-site site/)")
    folder = case_folder or case_directory()
    sources = [str(folder), *(str(f) for f in folder.iterdir())]
    refuse_inputs(str(directory), sources, option=OPTION, folder=True)
    check_writable(str(directory), option=OPTION, folder=True)
    if directory.is_dir() and any(directory.iterdir()) and not is_site(directory):
        raise OutputError(f"{OPTION} {directory} holds files that are no report site, which "
                          "writing it would replace; name a new or empty folder")


def is_site(directory: Path) -> bool:
    """Whether ``directory`` holds a site this command wrote (its index names it)."""
    index = directory / "index.html"
    try:
        with open(index, encoding="utf-8", errors="replace") as f:
            return GENERATOR in f.read(4096)
    except OSError:
        return False


def run_all(columns: Sequence[Column], files: Sequence[CaseFile], *, timeout: float,
            generated: int = 0, select: str | None = None,
            max_answer: int = DEFAULT_MAX_ANSWER,
            records: Mapping[str, frozenset[str]] | None = None,
            started: Callable[[Column], None] | None = None,
            finished: Callable[[Column], None] | None = None) -> list[Column]:
    """Each backend of ``columns`` over ``files`` (and ``generated`` drawn queries per
    language), as ``kleene conform --backend SPEC`` runs it, then over the sqllogictest
    records ``records`` names (id → features, :func:`~.site_records.record_needs`; none by
    default); a backend that cannot start keeps the reason in ``absent``."""
    out = []
    for column in columns:
        if column.absent:
            out.append(column)
            if finished:
                finished(column)
            continue
        if started:
            started(column)
        out.append(_run_one(column, files, timeout=timeout, generated=generated,
                            select=select, max_answer=max_answer, records=records or {}))
        if finished:
            finished(out[-1])
    return out


def _run_one(column: Column, files: Sequence[CaseFile], *, timeout: float, generated: int,
             select: str | None, max_answer: int,
             records: Mapping[str, frozenset[str]]) -> Column:
    spec = column.spec

    def rerun(ident: str) -> str:
        return f"kleene conform --backend {shlex.quote(spec)} --case {shlex.quote(ident)}"

    try:
        backend = find_backend(spec, timeout=timeout, max_answer=max_answer)
    except (BackendError, OSError) as err:
        why = err.args[0] if isinstance(err, BackendError) and err.args else err
        return Column(column.label, column.kind, spec, absent=f"could not start: {why}")
    try:
        report = conform(backend, files, timeout=timeout, generated=generated,
                         select=select, rerun=rerun)
        if records:
            more, seconds = run_records(backend, spec, dict(records), timeout=timeout)
            report = dataclasses.replace(report, results=report.results + more,
                                         seconds=report.seconds + seconds)
    finally:
        backend.close()
    return Column(column.label, column.kind, spec, report=report)


def write_site(directory: Path, columns: Sequence[Column],
               test_needs: dict[str, frozenset[str]], about: Sequence[str]) -> list[str]:
    """The site of ``columns`` into ``directory`` (replaced whole, once complete); the
    files written, relative to it."""
    pages = {"index.html": index_page(columns, test_needs, about)}
    for c in columns:
        if c.report is not None:
            pages[f"backends/{c.slug}.html"] = backend_page(c, test_needs)
            pages[f"badges/{c.slug}.svg"] = badge(c.report)
    with replacing_folder(str(directory), option=OPTION) as temporary:
        for name, text in pages.items():
            path = os.path.join(temporary, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    return list(pages)
