"""``kleene``'s subcommands are imported lazily (issue 10): a command imports its own
module, not the others' dependencies, and the ``kleene`` program runs a command
without Spark with pandas unimportable (pyarrow would import it, 0.6 s, to
recognise pandas types). Each check runs a fresh interpreter."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

from kleene.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parent.parent

# Under `any`: (a0, b1), (a0, b3), (a2, b3); a2 cannot pair with the earlier b1.
PATTERN = "PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10\n"
EVENTS = "ts,L\n0,A\n1,B\n2,A\n3,B\n"

#: Heavy modules only other subcommands need, probes of pyarrow (pandas) and NumPy
#: (masked arrays) that the columnar plane avoids, dateutil (pyarrow probes it at its
#: first conversion), tqdm (no bar on a pipe), and DuckDB and the table door (a
#: MATCH_RECOGNIZE query's only).
HEAVY = ("pandas", "dateutil", "numpy.ma", "tqdm", "networkx", "z3", "jsonschema",
         "kleene.conformance.cases", "kleene.cli.demo", "kleene.cli.prove", "kleene.cli.draw",
         "duckdb", "kleene.engines.tables")

PROGRAM = """
import json, sys
import kleene.cli as cli
argv, watch = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.argv = ["kleene", *argv]
exit_now = cli._exit_now

def report(code):      # a lean command ends the process in main (cli._exit_now)
    print(json.dumps([code, [m for m in watch if m in sys.modules]]))
    exit_now(code)

cli._exit_now = report
report(cli.main())
"""


def program(*argv: str, watch: tuple[str, ...] = HEAVY) -> tuple[list[str], list[str]]:
    """Run ``kleene ARGV`` as the program in a fresh interpreter: its output lines
    (the last one removed) and which modules of ``watch`` it imported."""
    done = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(argv), json.dumps(watch)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, check=True)
    lines = done.stdout.splitlines()
    code, imported = json.loads(lines[-1])
    assert code == 0, done.stderr
    return lines[:-1], imported


def test_match_imports_no_other_command_nor_pandas(tmp_path):
    (tmp_path / "q.ses").write_text(PATTERN)
    (tmp_path / "e.csv").write_text(EVENTS)
    out, imported = program("match", "--pattern", str(tmp_path / "q.ses"), "--events",
                            str(tmp_path / "e.csv"), "--policy", "any",
                            "--engine", "windows+ses")
    assert out == ['{"a": [0], "b": [1]}', '{"a": [0], "b": [3]}', '{"a": [2], "b": [3]}']
    assert imported == []


#: What ``kleene match --engine windows+ses`` on an SES pattern never needs: Spark,
#: the other engine families, the other languages' references, the proof and
#: drawing libraries (the engine and language registries import a module only
#: when one of its engines or languages is asked for).
NOT_FOR_SES = ("pyspark", "kleene.engines.spark", "kleene.engines.nfa", "kleene.engines.srt",
               "kleene.engines.ses.bruteforce", "kleene.reference.operators",
               "kleene.reference.sremo", "z3", "networkx", "jsonschema", "pandas")


def test_an_ses_engine_imports_no_other_engine_family_language_nor_spark(tmp_path):
    (tmp_path / "q.ses").write_text(PATTERN)
    (tmp_path / "e.csv").write_text(EVENTS)
    for engine in (["--engine", "windows+ses"], ["--engine", "ses-automaton"]):
        out, imported = program("match", "--pattern", str(tmp_path / "q.ses"), "--events",
                                str(tmp_path / "e.csv"), "--count", *engine,
                                watch=NOT_FOR_SES)
        assert (out, imported) == (["3"], []), engine
    # choosing the fastest engine asks every SES engine what it claims, and no other
    out, imported = program("match", "--pattern", str(tmp_path / "q.ses"), "--events",
                            str(tmp_path / "e.csv"), "--policy", "next", watch=NOT_FOR_SES)
    assert imported == ["kleene.engines.ses.bruteforce"]
    # --count under any counts without listing the matches: no engine is chosen
    out, imported = program("match", "--pattern", str(tmp_path / "q.ses"), "--events",
                            str(tmp_path / "e.csv"), "--count", watch=NOT_FOR_SES)
    assert (out, imported) == (["3"], [])


def test_an_operator_pattern_imports_its_engines_only(tmp_path):
    (tmp_path / "q.op").write_text("PATTERN SEQ(A a, B b) WITHIN 10\n")
    (tmp_path / "e.csv").write_text("ts,type\n0,A\n1,B\n2,A\n3,B\n")
    # The chain over columns shares the windows family's Arrow column reader
    # (engines/columns.py), not its engine: the framework is never imported.
    watch = ("kleene.engines.nfa", "kleene.engines.columns",
             "kleene.engines.windows.framework", "kleene.engines.windows.engine",
             "kleene.engines.ses", "kleene.engines.srt", "kleene.reference.sremo", "pyspark",
             *HEAVY)
    out, imported = program("match", "--pattern", str(tmp_path / "q.op"), "--events",
                            str(tmp_path / "e.csv"), watch=watch)
    assert (len(out), imported) == (3, ["kleene.engines.nfa", "kleene.engines.columns"])
    # --count reads it as the SES pattern <{a}, {b}> (engines/count/operators.py): no NFA
    out, imported = program("match", "--pattern", str(tmp_path / "q.op"), "--events",
                            str(tmp_path / "e.csv"), "--count", watch=watch)
    assert (out, imported) == (["3"], ["kleene.engines.columns"])
    # a condition between two variables: the chain takes candidates' rows and values
    # (by index arrays that must not go through pa.array, which imports numpy.ma)
    (tmp_path / "q2.op").write_text("PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN 10\n")
    (tmp_path / "e2.csv").write_text("ts,type,x\n0,A,1.5\n1,B,1\n2,A,0.5\n3,B,2\n")
    out, imported = program("match", "--pattern", str(tmp_path / "q2.op"), "--events",
                            str(tmp_path / "e2.csv"), "--policy", "any", watch=watch)
    assert out == ['{"a": [0], "b": [3]}', '{"a": [2], "b": [3]}']    # (0, 1): 1 > 1.5 fails
    assert imported == ["kleene.engines.nfa", "kleene.engines.columns"]


def test_convert_then_match_without_pandas(tmp_path):
    (tmp_path / "q.ses").write_text(PATTERN)
    (tmp_path / "e.csv").write_text(EVENTS)
    _, imported = program("convert", str(tmp_path / "e.csv"), "-o", str(tmp_path / "e.parquet"))
    assert imported == []
    out, imported = program("match", "--pattern", str(tmp_path / "q.ses"), "--events",
                            str(tmp_path / "e.parquet"), "--policy", "any", "--count")
    assert (out, imported) == (["3"], [])


def test_help_imports_every_command_and_lists_it():
    out, imported = program("--help", watch=tuple(f"kleene.cli.{n}" for n in COMMANDS))
    assert imported == [f"kleene.cli.{n}" for n in COMMANDS]
    listed = [line.split()[0] for line in out if line.startswith("    ") and
              line.split()[0] in COMMANDS]
    assert listed == list(COMMANDS)


def test_each_entry_names_its_module():
    for name in COMMANDS:
        assert importlib.import_module(f"kleene.cli.{name}").NAME == name


def test_an_unknown_command_lists_the_commands(capsys):
    assert main(["matc"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'matc'" in err and all(f"'{n}'" in err for n in COMMANDS)


def test_in_process_runs_leave_pandas_importable(capsys, tmp_path):
    (tmp_path / "q.ses").write_text(PATTERN)
    (tmp_path / "e.csv").write_text(EVENTS)
    assert main(["match", "--pattern", str(tmp_path / "q.ses"), "--events",
                 str(tmp_path / "e.csv"), "--policy", "any", "--count"]) == 0
    assert capsys.readouterr().out == "3\n"
    assert not any(type(f).__name__ == "_NoPandas" for f in sys.meta_path)


LANGUAGE_PROGRAM = """
import json, sys
from kleene.reference.languages import LANGUAGES, detect_language, language_of
names = list(LANGUAGES)
ses = detect_language("-- a comment\\nPATTERN <{a}> WITHIN 3")
before = [m for m in ("kleene.reference.ses", "kleene.reference.operators",
                      "kleene.reference.sremo", "kleene.reference.match_recognize")
          if m in sys.modules]
pattern = ses.parse("PATTERN <{a}> WITHIN 3", "<test>")
from kleene.reference.sremo import parse_sremo
found = [ses.name, language_of(pattern).name, language_of(parse_sremo("{~.x = 1}")).name]
print(json.dumps([names, before, found, "kleene.reference.operators" in sys.modules]))
"""


def test_the_language_registry_builds_only_the_languages_asked_for():
    done = subprocess.run([sys.executable, "-c", LANGUAGE_PROGRAM], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, check=True)
    names, before, found, operators = json.loads(done.stdout.splitlines()[-1])
    assert names == ["ses", "sremo", "wayeb", "operator", "match_recognize", "ceql"]
    assert before == ["kleene.reference.ses"]
    # a SREMO expression is SREMO's (registered before Wayeb, whose patterns are SREMO's)
    assert found == ["ses", "ses", "sremo"]
    assert operators is False


def test_the_program_ends_at_once_with_its_output_whole(tmp_path):
    """A lean command ends the process without the interpreter's teardown
    (``cli._exit_now``): what it printed and the files it wrote are complete."""
    (tmp_path / "q.ses").write_text(PATTERN)
    (tmp_path / "e.csv").write_text(EVENTS)
    base = [sys.executable, "-m", "kleene", "match", "--pattern", str(tmp_path / "q.ses"),
            "--events", str(tmp_path / "e.csv"), "--policy", "any"]
    done = subprocess.run(base, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert (done.returncode, done.stdout.splitlines()) == \
        (0, ['{"a": [0], "b": [1]}', '{"a": [0], "b": [3]}', '{"a": [2], "b": [3]}'])
    for name in ("m.jsonl", "m.parquet"):
        done = subprocess.run([*base, "--output", str(tmp_path / name)], capture_output=True,
                              text=True, timeout=120, cwd=ROOT)
        assert done.returncode == 0, done.stderr
    lines = (tmp_path / "m.jsonl").read_text().splitlines()
    assert len(lines) == 6 and lines[-1].endswith("}")     # 3 matches × 2 variables, long
    import pyarrow.parquet as pq

    assert pq.read_table(tmp_path / "m.parquet").num_rows == 6


def test_a_mistake_ends_the_program_in_one_line_while_it_reads_ahead(tmp_path):
    """The read-ahead thread may still be cutting a large file's lines when a mistake in
    the pattern ends the command: the program still ends with the one line and exit 2
    (it does not wait for the thread, nor tear the interpreter down under it)."""
    import gzip

    lines = "".join(f"BUY(id={i},name=N{i % 9},price={i}.25,stock_time={i})\n"
                    for i in range(300_000))
    (tmp_path / "s.stream.gz").write_bytes(gzip.compress(lines.encode(), 1))
    (tmp_path / "bad.op").write_text("PATTERN SEQ(BUY b, SELL s WITHIN 5\n")
    for _ in range(5):      # the interpreter's teardown under the thread crashed 1 in 5
        done = subprocess.run([sys.executable, "-m", "kleene", "match", "--pattern",
                               str(tmp_path / "bad.op"), "--events",
                               str(tmp_path / "s.stream.gz"), "--count"],
                              capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.splitlines()) <= 3 and "bad.op" in done.stderr, done.stderr
