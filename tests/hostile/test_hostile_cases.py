"""The hostile-input suite kept as data (issue 27, item 5): every case in
``tests/hostile/cases/*.toml`` is its input files, its ``kleene`` command line and
what the docs promise, written by hand (cases/README.md gives the format). A case
that exits 2 prints one message on stderr (docs/architecture.md, "Bad input"): one
line, or a pattern error's ``file:line:col`` line with the source line and a caret
under that column; a case that exits 0 prints the result the docs or a hand
computation give. No case may print a traceback or change a file it was given.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kleene.cli import main
from tests.helpers import after_spark_start

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
KEYS = {"id", "argv", "files", "raw", "dirs", "symlinks", "hardlinks", "env", "exit", "err",
        "err_re", "out", "out_has", "out_lines", "writes", "xfail", "slow", "subprocess",
        "stdout", "caret", "changes", "engine_line", "setup", "modes", "unprivileged"}


@dataclass(frozen=True)
class Case:
    """One hostile case (the keys of cases/README.md)."""

    id: str
    argv: list[str]
    exit: int
    spec: dict[str, Any] = field(hash=False)


def load_cases() -> list[Case]:
    cases = []
    for path in sorted((HERE / "cases").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        shared = data.get("files", {})
        for spec in data["case"]:
            unknown = set(spec) - KEYS
            assert not unknown, f"{path.name}: {spec.get('id')}: unknown keys {unknown}"
            spec = {**spec, "files": {**shared, **spec.get("files", {})}}
            cases.append(Case(f"{path.stem}/{spec['id']}", spec["argv"], spec["exit"], spec))
    return cases


CASES = load_cases()


def params() -> list[Any]:
    out = []
    for case in CASES:
        marks = []
        if case.spec.get("slow"):
            marks.append(pytest.mark.slow)
        if "xfail" in case.spec:
            marks.append(pytest.mark.xfail(reason=case.spec["xfail"], strict=True))
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


def fill(text: str, work: Path) -> str:
    return (text.replace("{w}", str(work)).replace("{root}", str(ROOT))
            .replace("{py}", sys.executable))


def lay_out(spec: dict[str, Any], work: Path) -> None:
    """Write the case's inputs into ``work`` (files, raw bytes, folders, links)."""
    for name in spec.get("dirs", []):
        (work / name).mkdir(parents=True, exist_ok=True)
    for table, encoding in (("files", "utf-8"), ("raw", "latin-1")):
        for name, text in spec.get(table, {}).items():
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            # raw: each character U+0000..U+00FF is the byte of that value
            target.write_bytes(fill(text, work).encode(encoding))
    for name, to in spec.get("symlinks", {}).items():
        (work / name).symlink_to(work / to)
    for name, to in spec.get("hardlinks", {}).items():
        os.link(work / to, work / name)
    for name, mode in spec.get("modes", {}).items():
        os.chmod(work / name, int(mode, 8))


#: How a case marked ``unprivileged`` runs when the tests run as root (CI's containers):
#: without the capabilities that let root read and write past permission bits, so a
#: folder of mode 555 refuses it as it refuses any user (util-linux's setpriv).
UNPRIVILEGED = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def set_up(spec: dict[str, Any], work: Path, capfd: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch) -> dict[Path, bytes]:
    """Run the case's setup commands (``kleene convert`` making a Parquet input, say):
    each must succeed. Returns every file's bytes, which the case must leave as they are."""
    monkeypatch.chdir(work)
    for argv in spec.get("setup", []):
        code = main([fill(a, work) for a in argv])
        assert code == 0, capfd.readouterr()
    capfd.readouterr()
    return {p: p.read_bytes() for p in work.rglob("*") if p.is_file() and not p.is_symlink()}


def run(case: Case, work: Path, capfd: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    argv = [fill(a, work) for a in case.argv]
    env = {k: fill(v, work) for k, v in case.spec.get("env", {}).items()}
    if case.spec.get("subprocess") or case.spec.get("unprivileged"):
        stdout_to = case.spec.get("stdout")
        prefix = UNPRIVILEGED if case.spec.get("unprivileged") and os.geteuid() == 0 else []
        with open(stdout_to, "wb") if stdout_to else open(os.devnull, "wb") as sink:
            done = subprocess.run([*prefix, sys.executable, "-m", "kleene", *argv], cwd=work,
                                  env={**os.environ, **env},
                                  stdout=sink if stdout_to else subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=120)
        out = done.stdout.decode("utf-8", "replace") if done.stdout else ""
        return done.returncode, out, done.stderr.decode("utf-8", "replace")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(work)
    code = main(argv)
    out, err = capfd.readouterr()
    return code, out, err


CARET = re.compile(r":(\d+):(\d+): ")


def check_one_message(err: str, caret: bool) -> None:
    """One line, or (a pattern error) the line, the source line and a caret under the
    column the first line names; the lines Spark's start-up says before it are set aside."""
    lines = after_spark_start(err)
    assert err.endswith("\n"), err
    if not caret and len(lines) == 1:
        return
    assert len(lines) == 3, err
    found = CARET.search(lines[0])
    assert found, err
    column = int(found.group(2))
    assert lines[2].strip() == "^", err
    # both under the same two-space indent: the caret sits under the column named
    assert lines[2].index("^") - 2 == column - 1, err


@pytest.mark.parametrize("case", params())
def test_hostile(case: Case, tmp_path: Path, capfd: pytest.CaptureFixture[str],
                 monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    spec = case.spec
    argv = [str(a) for a in spec.get("argv", [])]
    if "--spark" in argv or argv[:1] == ["stream"]:
        # the run's one session (tests/conftest.py: local[2,2], a failed task retried):
        # a case's own --master must not be the first to start Spark, or the session every
        # later Spark test shares would retry no task
        request.getfixturevalue("spark")
    lay_out(spec, tmp_path)
    before = set_up(spec, tmp_path, capfd, monkeypatch)
    code, out, err = run(case, tmp_path, capfd, monkeypatch)
    assert "Traceback" not in err, err
    assert code == case.exit, (code, out, err)
    if case.exit == 2:
        if spec.get("engine_line"):   # a failure while running: the backend was named first
            first, _, err = err.partition("\n")   # (an engine, or --count's dynamic programme)
            assert re.match(r"kleene \w+: (engine |counting without listing)", first), first
        check_one_message(err, spec.get("caret", False))
    for piece in spec.get("err", []):
        assert fill(piece, tmp_path) in err, err
    if "err_re" in spec:
        assert re.search(fill(spec["err_re"], tmp_path), err), err
    if "out" in spec:
        assert out == fill(spec["out"], tmp_path), out
    for piece in spec.get("out_has", []):
        assert fill(piece, tmp_path) in out, out
    if "out_lines" in spec:
        assert len(out.splitlines()) == spec["out_lines"], out
    for name, piece in spec.get("writes", {}).items():
        assert fill(piece, tmp_path) in (tmp_path / name).read_text(encoding="utf-8")
    changes = set(spec.get("changes", []))
    for path, content in before.items():
        if path.relative_to(tmp_path).as_posix() not in changes:
            assert path.read_bytes() == content, f"{path.name} changed"
