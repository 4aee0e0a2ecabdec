"""No writer overwrites an input, and every failure of a writer is one line (issue 27, items
1 and 3): ``kleene match --output`` (matches and tables), ``convert``, ``draw``, ``trace``,
``conform --junit/--report/--export`` and ``stream --output``, each with its target the
input itself, a hard link and a symlink to it; a full disk (``/dev/full``), a folder, a
folder without permission. Expected statuses and words are the docs' (docs/architecture.md,
"Bad input": one line on stderr, exit 2), written here by hand."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from kleene.cli import main
from kleene.conformance.cases import case_directory
from kleene.data.outputs import OutputError, check_writable, refuse_inputs, replacing
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
TICKS = ROOT / "examples" / "ticks" / "ticks.csv"
V_SHAPE = ROOT / "examples" / "ticks" / "v_shape.sql"
PATTERN = "PATTERN SEQ(A a, B b) WITHIN 10\n"
EVENTS = "ts,type\n0,A\n1,B\n"
#: The one case file the conform runs read (a copy of the packaged SES Q1 file).
CASES = "ses-q1.json"

#: A folder no process may create a file in, root included (sysfs).
NO_PERMISSION = Path("/sys")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "p.op").write_text(PATTERN)
    (tmp_path / "e.csv").write_text(EVENTS)
    (tmp_path / "ticks.csv").write_bytes(TICKS.read_bytes())
    cases = tmp_path / "cases"
    cases.mkdir()
    shutil.copy(Path(str(case_directory())) / CASES, cases / CASES)
    return tmp_path


def _convert_input(work: Path) -> Path:
    """A Parquet file of the events (convert's input, so its own name is a legal output)."""
    assert main(["convert", str(work / "e.csv"), "-o", str(work / "e.parquet")]) == 0
    return work / "e.parquet"


#: Each writer: the input it reads (relative to the work folder; ``None``: made by
#: :func:`_convert_input`), and its command line with ``{out}`` for the target.
WRITERS = {
    "match": ("e.csv", ["match", "--pattern", "{w}/p.op", "--events", "{w}/e.csv",
                        "--output", "{out}", "--overwrite"]),
    "match --spark": ("e.csv", ["match", "--pattern", "{w}/p.op", "--events", "{w}/e.csv",
                                "--output", "{out}", "--overwrite", "--spark"]),
    "match a table": ("ticks.csv", ["match", "--pattern", str(V_SHAPE), "--events",
                                    "{w}/ticks.csv", "--output", "{out}", "--overwrite"]),
    "convert": (None, ["convert", "{w}/e.parquet", "-o", "{out}", "--overwrite"]),
    "draw": ("p.op", ["draw", "{w}/p.op", "-o", "{out}"]),
    "trace": ("e.csv", ["trace", "{w}/p.op", "--events", "{w}/e.csv", "-o", "{out}"]),
    "conform --junit": (f"cases/{CASES}", ["conform", "--backend", "reference", "-q",
                                           "--cases", "{w}/cases", "--junit", "{out}"]),
    "conform --report": (f"cases/{CASES}", ["conform", "--backend", "reference", "-q",
                                            "--cases", "{w}/cases", "--report", "{out}"]),
}


def _argv(writer: str, work: Path, out: Path | str) -> list[str]:
    return [a.format(w=work, out=out) for a in WRITERS[writer][1]]


def _input(writer: str, work: Path) -> Path:
    name = WRITERS[writer][0]
    return _convert_input(work) if name is None else work / name


@pytest.mark.parametrize("how", ["same", "hard link", "symlink"])
@pytest.mark.parametrize("writer", list(WRITERS))
def test_no_writer_overwrites_its_input(capsys, work, writer, how):
    source = _input(writer, work)
    before = source.read_bytes()
    target = source
    if how != "same":
        target = source.with_name("link" + source.suffix)
        if how == "hard link":
            os.link(source, target)
        else:
            target.symlink_to(source.name)
    capsys.readouterr()
    code, out, err = run_cli(capsys, *_argv(writer, work, target))
    option = _option(writer)
    what = "the input file" if how == "same" else f"the input {source} (through a link)"
    command = writer.split()[0]
    assert (code, out, err) == (2, "", f"kleene {command}: {option} {target} is {what}; "
                                       "choose another path\n")
    assert source.read_bytes() == before
    assert sorted(p.name for p in work.iterdir() if p.name.startswith(".")) == []


def _special_target(work: Path, writer: str, device: str) -> Path:
    """A target of the writer's format that is a symlink to ``device`` (which must be a
    device: a regular file there would be replaced by the writer, as any output is)."""
    assert stat.S_ISCHR(os.stat(device).st_mode), f"{device} is no device on this machine"
    suffix = {"convert": ".parquet", "draw": ".svg", "trace": ".html",
              "conform --junit": ".xml", "conform --report": ".html"}.get(writer, ".jsonl")
    link = work / f"full{suffix}"
    link.symlink_to(device)
    return link


#: The writers that run here without Spark (a Spark run's writer is the same
#: :func:`kleene.cli.results.write`, after the same checks).
LOCAL = [w for w in WRITERS if w != "match --spark"]


def _option(writer: str) -> str:
    return "--output" if writer.startswith(("match", "convert", "draw", "trace")) \
        else writer.split()[1]


@pytest.mark.parametrize("writer", LOCAL)
def test_a_full_disk_is_one_line(capsys, work, writer):
    _input(writer, work)
    target = _special_target(work, writer, "/dev/full")
    capsys.readouterr()
    code, out, err = run_cli(capsys, *_argv(writer, work, target))
    line = f"kleene {writer.split()[0]}: cannot write {_option(writer)} {target}: " \
           "No space left on device"
    assert code == 2 and "Traceback" not in err and os.path.islink(target), err
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)   # written, never removed nor replaced
    if writer.startswith("conform"):   # the verdicts are printed before the report
        passed = re.search(r"^(\d+) passed, 0 failed", out, re.M)
        assert passed, out
        assert err == f"{line} (the verdicts are printed above: {passed[1]} passed, " \
                      "0 failed)\n"
    else:
        assert err.splitlines()[-1] == line, err


@pytest.mark.parametrize("writer", LOCAL)
def test_a_folder_without_permission_is_one_line(capsys, work, writer):
    _input(writer, work)
    suffix = _special_target(work, writer, "/dev/null").suffix
    target = NO_PERMISSION / f"kleene-test{suffix}"
    capsys.readouterr()
    code, out, err = run_cli(capsys, *_argv(writer, work, target))
    assert code == 2 and err.splitlines()[-1] == (
        f"kleene {writer.split()[0]}: cannot write {_option(writer)} {target}: "
        "Permission denied"), err
    if writer.startswith("conform"):   # checked before the tests run: none ran
        assert out == ""


@pytest.mark.parametrize("option", ["--junit", "--report"])
def test_a_report_onto_a_folder_is_refused_before_the_tests(capsys, work, option):
    (work / "reports").mkdir()
    code, out, err = run_cli(capsys, "conform", "--backend", "reference", "--cases",
                             str(work / "cases"), option, str(work / "reports"))
    assert (code, out, err) == (2, "", f"kleene conform: {option} {work / 'reports'} is a "
                                       "folder; name a file\n")


def test_a_failed_write_leaves_the_previous_output(capsys, work):
    out = work / "m.jsonl"
    out.write_text("previous\n")
    code, _, err = run_cli(capsys, *_argv("match", work, out))
    assert code == 0, err
    assert out.read_text() == '{"match": 0, "variable": "a", "position": 0, "ts": 0}\n' \
                              '{"match": 0, "variable": "b", "position": 1, "ts": 1}\n'
    out.write_text("previous\n")
    with pytest.raises(OutputError, match="No space left"), \
            replacing(str(out), option="--output") as temporary:
        Path(temporary).write_text("half")
        raise OSError(28, "No space left on device")
    assert out.read_text() == "previous\n"
    assert [p.name for p in work.iterdir() if p.name.startswith(".")] == []


# ---------------------------------------------------------------- folder outputs


def test_export_onto_a_file_or_the_cases_is_one_line(capsys, tmp_path):
    existing = tmp_path / "corpus"
    existing.write_text("keep")
    code, out, err = run_cli(capsys, "conform", "--export", str(existing))
    assert (code, out, err) == (2, "", f"kleene conform: --export {existing} is a file; "
                                       "name a folder\n")
    assert existing.read_text() == "keep"
    package = tmp_path / "package"
    package.symlink_to(Path(str(case_directory())).parent)   # the folder of the cases
    code, out, err = run_cli(capsys, "conform", "--export", str(package))
    assert code == 2 and out == "" and err.startswith(
        f"kleene conform: --export {package} holds the input ") and err.count("\n") == 1


def test_export_writes_through_temporaries(capsys, tmp_path):
    code, out, err = run_cli(capsys, "conform", "--export", str(tmp_path / "corpus"))
    assert code == 0, err
    names = sorted(p.name for p in (tmp_path / "corpus").iterdir())
    assert names == ["FORMAT.md", "cases", "tests.jsonl"]
    first = json.loads((tmp_path / "corpus" / "tests.jsonl").read_text().splitlines()[0])
    assert {"id", "pattern", "events", "needs", "expected"} <= set(first)


@pytest.mark.parametrize("place, message", [
    ("source", "--output {w}/src is the input folder; choose another path"),
    ("inside", "--output {w}/src/out.parquet lies in the input folder {w}/src; choose "
               "another path"),
    ("around", "--output {w} holds the input {w}/src, which writing it would replace; "
               "choose another path"),
    ("file", "--output {w}/e.csv is a file; a stream writes a folder there (choose a new "
             "path)"),
    ("empty", "--output needs a path"),
])
def test_stream_output_is_checked_before_spark(capsys, work, place, message):
    (work / "src").mkdir()
    output = {"source": work / "src", "inside": work / "src" / "out.parquet",
              "around": work, "file": work / "e.csv", "empty": ""}[place]
    code, out, err = run_cli(capsys, "stream", "--pattern", str(work / "p.op"), "--source",
                             str(work / "src"), "--output", str(output), "--checkpoint",
                             str(work / "ck"), "--once")
    assert (code, out, err) == (2, "", f"kleene stream: {message.format(w=work)}\n")
    assert (work / "e.csv").read_text() == EVENTS and not (work / "ck").exists()


# ---------------------------------------------------------------- the guard itself


def test_the_guard_compares_inodes_not_names(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    events = data / "e.csv"
    events.write_text(EVENTS)
    (tmp_path / "alias").symlink_to(data)
    with pytest.raises(OutputError, match="is the input"):
        refuse_inputs(str(tmp_path / "alias" / "e.csv"), [str(events)], option="--output")
    with pytest.raises(OutputError, match="holds the input"):
        refuse_inputs(str(tmp_path / "alias"), [str(events)], option="the output",
                      folder=True)
    refuse_inputs(str(tmp_path / "other.csv"), [str(events)], option="--output")  # no error
    refuse_inputs(str(data / "x.parquet"), [str(events)], option="--output")
    with pytest.raises(OutputError, match="is a folder"):
        check_writable(str(data), option="--junit")
    check_writable(str(tmp_path / "new" / "r.xml"), option="--junit")   # the folder is made
    assert (tmp_path / "new").is_dir() and os.listdir(tmp_path / "new") == []


def test_stream_output_in_the_folder_of_a_source_glob_is_refused(capsys, work):
    (work / "src").mkdir()
    (work / "src" / "e.csv").write_text(EVENTS)
    code, out, err = run_cli(capsys, "stream", "--pattern", str(work / "p.op"), "--source",
                             str(work / "src" / "*.csv"), "--output",
                             str(work / "src" / "out.jsonl"), "--checkpoint", str(work / "ck"))
    assert (code, out, err) == (2, "", f"kleene stream: --output {work}/src/out.jsonl lies in "
                                       f"the input folder {work}/src; choose another path\n")


@pytest.mark.parametrize("writer", LOCAL)
def test_a_folder_as_target_is_one_line_and_kept(capsys, work, writer):
    _input(writer, work)
    suffix = _special_target(work, writer, "/dev/null").suffix
    folder = work / f"adir{suffix}"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep")
    capsys.readouterr()
    code, out, err = run_cli(capsys, *_argv(writer, work, folder))
    option = _option(writer)
    message = f"{option} {folder} is a folder; name a file" \
        if writer.startswith(("draw", "trace", "conform")) else \
        f"{option} {folder} is a folder that is not a previous output; remove it or " \
        "choose another path"
    assert (code, out, err) == (2, "", f"kleene {writer.split()[0]}: {message}\n")
    assert os.listdir(folder) == ["keep.txt"]
