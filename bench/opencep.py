"""OpenCEP beside Kleene, measured in the same bench run (issue 33 item 6).

OpenCEP (ilya-kolchinsky/OpenCEP on GitHub; pure Python, no licence file, so never copied
into this repository) is found in the folder ``KLEENE_OPENCEP`` names, else in
``.peers/opencep/`` under the repository root: a folder holding its ``CEP.py``. Without
one, every OpenCEP cell says :data:`NOT_RUN` and the table's header says how to provide it
(:func:`missing_note`).

Each run is a process of its own (:mod:`bench.opencep_driver`, which imports nothing of
Kleene), timed end to end as :func:`bench.peers.timed` times ``kleene match``: the
interpreter, OpenCEP's imports, reading the events in OpenCEP's input form, matching and
collecting the matches; CPU seconds (user + system) and wall seconds, the least of
``repeats`` runs after one on the first events that writes OpenCEP's bytecode caches. The
events are our stock stream converted once per bench run into a temporary folder
(:func:`convert`; the conversion is not timed, as ``kleene convert`` is not in the text e2e).
"""

from __future__ import annotations

import gzip
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bench.peers import timed
from kleene.data.stock import split_stock_line
from kleene.reference.errors import StreamError

#: The environment variable naming a folder that holds OpenCEP's ``CEP.py``.
ENV = "KLEENE_OPENCEP"
#: Where OpenCEP is looked for without :data:`ENV`, under the repository root.
PEER_FOLDER = Path(".peers") / "opencep"
ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(__file__).resolve().parent / "opencep_driver.py"
#: What an OpenCEP cell says when OpenCEP did not run.
NOT_RUN = "not run"
#: Our stock fields, in the order of a converted line (the driver's ``COLUMNS``).
FIELDS = ("type", "id", "name", "volume", "price", "stock_time")
#: Events of the run that writes OpenCEP's bytecode caches before the timed runs.
WARM_UP_EVENTS = 1000


def find_checkout(env: Mapping[str, str] | None = None,
                  root: Path | None = None) -> tuple[Path | None, str]:
    """The OpenCEP folder (:data:`ENV` in ``env``, default this process's environment; else
    ``root``/:data:`PEER_FOLDER`, default the repository's) and ``""``; or ``None`` and why
    none was found."""
    env = os.environ if env is None else env
    root = ROOT if root is None else root
    named = env.get(ENV)
    if named:
        folder = Path(named)
        if (folder / "CEP.py").is_file():
            return folder.resolve(), ""
        return None, f"{ENV}={named} holds no CEP.py (OpenCEP's main module)"
    if (root / PEER_FOLDER / "CEP.py").is_file():
        return (root / PEER_FOLDER).resolve(), ""
    return None, f"no OpenCEP checkout ({ENV} unset, no {PEER_FOLDER}/CEP.py)"


def missing_note(reason: str) -> str:
    """The header line of a table whose OpenCEP cells say :data:`NOT_RUN`."""
    return (f"OpenCEP {NOT_RUN}: {reason}; to run it, set {ENV} to a folder holding a "
            "checkout of OpenCEP (ilya-kolchinsky/OpenCEP on GitHub, e.g. commit e320ad8), "
            f"or put one in {PEER_FOLDER}/ (docs/benchmarks.md, \"OpenCEP, run in the same "
            "bench run\")")


def opencep_line(line: str, *, row: int = 0, source: str = "<events>") -> str:
    """A stock line ``BUY(id=8,name=INTC,volume=100,price=27.85,stock_time=25263126)`` as
    the line OpenCEP reads, ``BUY,8,INTC,100,27.85,25263126`` (:data:`FIELDS`; each value
    as written)."""
    fields = split_stock_line(line, row=row, source=source)
    for key in FIELDS:
        if key not in fields:
            raise StreamError(f"the field {key!r} is missing", row=row, field=key, source=source)
        if "," in fields[key]:
            raise StreamError("a comma in a value", row=row, field=key, source=source)
    return ",".join(fields[k] for k in FIELDS)


def _lines(path: Path) -> Iterator[str]:
    """The lines of the stock file ``path`` (gzip when it ends in ``.gz``), blank ones left
    out."""
    with (gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz"
          else path.open(encoding="utf-8")) as f:
        for line in f:
            if line.strip():
                yield line


def convert(src: Path, dst: Path, limit: int | None = None) -> int:
    """Write the first ``limit`` (all) events of the stock file ``src`` to ``dst`` in
    OpenCEP's input form (:func:`opencep_line`); returns their number."""
    n = 0
    with dst.open("w", encoding="utf-8") as out:
        for n, line in enumerate(_lines(src), 1):
            if limit is not None and n > limit:
                return limit
            out.write(opencep_line(line, row=n - 1, source=str(src)) + "\n")
    return n


@dataclass(frozen=True)
class Run:
    """One OpenCEP workload: CPU and wall seconds end to end, and its match count."""

    cpu: float
    wall: float
    matches: int


@dataclass
class OpenCEP:
    """OpenCEP in one bench run: where it is (or why it is not), its runs by workload."""

    work: Path
    data: Path
    limit: int | None
    repeats: int = 3
    folder: Path | None = None
    reason: str = ""
    runs: dict[tuple[str, int], Run] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.folder, self.reason = find_checkout()

    @property
    def found(self) -> bool:
        return self.folder is not None

    def events(self, limit: int | None) -> Path:
        """The stock stream in OpenCEP's form (converted on first use)."""
        path = self.work / f"opencep-{limit or 'all'}.txt"
        if not path.exists():
            convert(self.data, path, limit)
        return path

    def run(self, workload: str, ms: int) -> Run | None:
        """``workload`` (``seq3``, ``AND3``, ``KC``) within ``ms`` ms; ``None`` without
        OpenCEP."""
        if self.folder is None:
            return None
        if (workload, ms) not in self.runs:
            cmd = [sys.executable, "-I", str(DRIVER), str(self.folder)]
            timed(cmd + [str(self.events(WARM_UP_EVENTS)), workload, str(ms)])
            whole = cmd + [str(self.events(self.limit)), workload, str(ms)]
            runs = [timed(whole) for _ in range(self.repeats)]
            self.runs[(workload, ms)] = Run(min(r[0] for r in runs), min(r[1] for r in runs),
                                            int(runs[-1][2].strip()))
        return self.runs[(workload, ms)]

    def header(self) -> str:
        """The header line saying where OpenCEP came from, or how to provide it."""
        if self.folder is None:
            return missing_note(self.reason)
        return (f"OpenCEP: the checkout in {ENV} or {PEER_FOLDER}/ (its commit: "
                f"{commit_of(self.folder)}), run by bench/opencep_driver.py in a fresh "
                f"process (least of {self.repeats}, CPU and wall s, end to end)")


def commit_of(folder: Path) -> str:
    """The commit a git checkout ``folder`` is at, or ``unknown`` (an extracted archive)."""
    head = folder / ".git" / "HEAD"
    if not head.is_file():
        return "unknown (not a git checkout)"
    text = head.read_text(encoding="utf-8").strip()
    if text.startswith("ref: "):
        ref = folder / ".git" / text[5:]
        return ref.read_text(encoding="utf-8").strip()[:12] if ref.is_file() else text[5:]
    return text[:12]


def matches_cell(run: Run | None, ours: int) -> str | int:
    """OpenCEP's match count, said against ours when they differ."""
    if run is None:
        return NOT_RUN
    return run.matches if run.matches == ours else f"{run.matches:,} ≠ {ours:,}"
