"""One query, decided once: the same answer through every door (issue 25, items 1 and 3).

Each language's query is run on the same three events through ``kleene match``,
``find_matches``, ``kleene match --spark``, ``match_dataframe`` and ``kleene conform``;
the expected lines are computed by hand from the definitions (below, per query), and
every door must print exactly them. The Wayeb ``.sre`` query is the issue's second
example: a three-event file with a time window, read strictly by default (as Wayeb
reads it) at every door, where ``kleene match`` said "read strict" and gave 0 matches
while ``--spark`` and ``find_matches`` read it inclusively and gave 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kleene.cli import main
from kleene.data.loaders import load_events
from kleene.engines.fastest import find_matches
from kleene.reference.errors import PatternError
from kleene.reference.query import Query

#: A@0, B@5, C@9 (ts in timestamp units, no unit).
ROWS = [{"ts": 0, "type": "A", "id": 1}, {"ts": 5, "type": "B", "id": 1},
        {"ts": 9, "type": "C", "id": 1}]

WAYEB = ";(IsEventTypePredicate(A), IsEventTypePredicate(B), IsEventTypePredicate(C))" \
        "{windowType:time}{window:9}\n"

#: (language, pattern text, window reading or None for the language's, expected lines).
QUERIES = [
    # a@0, b@5: span 5 <= 5 (seed 000 Def. 1, inclusive); a@0 with b@5 is the only pair.
    ("ses", "PATTERN <{a}, {b}> WHERE a.type = 'A' AND b.type = 'B' WITHIN 5\n", None,
     ['{"a": [0], "b": [1]}']),
    # a@0, c@9: span 9 <= 9 (seed 003 WITHIN); B in between is skipped (skip-till-any).
    ("operator", "PATTERN SEQ(A a, C c) WITHIN 9\n", None, ['{"a": [0], "c": [2]}']),
    # the marked A and C, the B read by the unmarked gap (seed 004 Def. 17).
    ("sremo", "mark {~.type = 'A'} ; {TRUE}* ; mark {~.type = 'C'}\n", None,
     ['{"~": [0, 2]}']),
    # Wayeb's default, strict: span 9 < 9 is false, no match.
    ("wayeb", WAYEB, None, []),
    # read inclusively: 9 <= 9, the three events.
    ("wayeb", WAYEB, "inclusive", ['{"~": [0, 1, 2]}']),
]

def printed(lines: list[str]) -> list[str]:
    """The canonical lines as ``kleene match`` prints them: SREMO's marked positions,
    ``~`` in the canonical form, under the name ``marked`` (docs/outputs.md, "Names")."""
    return [line.replace('{"~": ', '{"marked": ') for line in lines]


IDS = ["ses", "operator", "sremo", "wayeb-strict", "wayeb-inclusive"]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "events.csv").write_text(
        "ts,type,id\n" + "".join(f"{r['ts']},{r['type']},{r['id']}\n" for r in ROWS))
    return tmp_path


def _pattern_file(folder: Path, language: str, text: str) -> Path:
    path = folder / ("q.sre" if language == "wayeb" else f"q.{language}")
    path.write_text(text)
    return path


def _cli(capsys: pytest.CaptureFixture[str], folder: Path, language: str, text: str,
         reading: str | None, *extra: str) -> tuple[list[str], str]:
    argv = ["match", "--pattern", str(_pattern_file(folder, language, text)), "--events",
            str(folder / "events.csv"), *(["--window-reading", reading] if reading else []),
            *extra]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out.splitlines(), err


@pytest.mark.parametrize(("language", "text", "reading", "expected"), QUERIES, ids=IDS)
def test_kleene_match_and_find_matches(capsys, files, language, text, reading, expected):
    lines, err = _cli(capsys, files, language, text, reading)
    assert lines == printed(expected)
    found = find_matches(text, load_events(str(files / "events.csv")), reading=reading)
    assert sorted(m.dumps() for m in found.matches) == expected
    assert found.query.language == language
    said = found.query.said()
    assert (f"kleene match: {said}" in err.splitlines()) == (language == "wayeb")


@pytest.mark.spark
@pytest.mark.parametrize(("language", "text", "reading", "expected"), QUERIES, ids=IDS)
def test_spark_doors(spark, capsys, files, language, text, reading, expected):
    from kleene.engines.spark import collect_matches, match_dataframe

    lines, err = _cli(capsys, files, language, text, reading, "--spark", "--master",
                      "local[2,2]")
    assert lines == printed(expected)
    single = Query.parse(text, reading=reading)
    assert (f"kleene match: {single.said()}" in err.splitlines()) == (language == "wayeb")
    df = spark.createDataFrame(ROWS)
    found = collect_matches(match_dataframe(df, text, reading=reading))
    assert sorted(m.dumps() for m in found) == expected


@pytest.mark.parametrize(("language", "text", "reading", "expected"), QUERIES, ids=IDS)
def test_kleene_conform_agrees(capsys, files, language, text, reading, expected):
    """A case file holding the query and the hand-computed lines: the engine
    ``kleene match`` picks passes it through ``kleene conform``."""
    cases = files / "cases"
    cases.mkdir()
    prefix = Query.parse(text).lang.case_prefixes[0]
    test = {"description": f"the {language} query through kleene conform",
            "matches": [json.loads(line) for line in expected]}
    if reading is not None:
        test["reading"] = reading
    document = {"language": language, "description": "doors",
                "cases": [{"description": "three events", "pattern": text,
                           "specification": [{"seed": "000", "section": "Def. 1"}],
                           "events": ROWS, "tests": [test]}]}
    (cases / f"{prefix}doors.json").write_text(json.dumps(document))
    backend = find_matches(text, load_events(str(files / "events.csv")),
                           reading=reading).backend
    code = main(["conform", "--backend", backend, "--cases", str(cases)])
    out, _ = capsys.readouterr()
    assert code == 0, out
    assert "1 passed" in out


def test_defaults_come_from_the_registry():
    assert Query.parse(WAYEB).reading == "strict"
    assert Query.parse(QUERIES[0][1]).reading == "inclusive"
    assert Query.parse(QUERIES[2][1]).policy == "stream"
    assert Query.parse(QUERIES[0][1]).policy == "any"
    # an operator pattern that names its strategy is read under it
    named = Query.parse("PATTERN SEQ(A a, C c) WHERE skip_till_next_match { a.id = c.id } "
                        "WITHIN 9")
    assert named.policy == "next"


@pytest.mark.parametrize(("options", "said"), [
    ({"policy": "stream"}, "unknown policy 'stream' for SES patterns (seed 000); choose one "
                           "of any, next"),
    ({"reading": "loose"}, "unknown window reading 'loose' for SES patterns (seed 000); "
                           "choose one of inclusive, strict"),
    ({"time_unit": "weeks"}, "unknown time unit 'weeks'; choose one of ms, s, min, h, d"),
    ({"window": 5}, "a window override (--window, --window-type) applies to Wayeb .sre "
                    "patterns"),
])
def test_a_choice_the_language_lacks_is_one_line_at_the_door(options, said):
    with pytest.raises(PatternError) as err:
        Query.parse(QUERIES[0][1], **options)
    assert said in str(err.value) and "\n" not in str(err.value)


def test_a_policy_the_pattern_contradicts_is_refused():
    with pytest.raises(PatternError, match="names the policy 'next' itself"):
        Query.parse("PATTERN SEQ(A a, C c) WHERE skip_till_next_match { a.id = c.id } "
                    "WITHIN 9", policy="any")


def test_a_query_is_not_decided_twice():
    query = Query.parse(QUERIES[0][1])
    assert Query.ask(query) is query
    with pytest.raises(PatternError, match="already says its policy"):
        Query.ask(query, policy="next")


def test_bad_policy_on_the_command_line_is_one_line_before_reading(capsys, tmp_path):
    """The events file does not exist: the policy is refused before it is opened."""
    (tmp_path / "q.ses").write_text(QUERIES[0][1])
    code = main(["match", "--pattern", str(tmp_path / "q.ses"), "--events",
                 str(tmp_path / "missing.csv"), "--policy", "stream"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.splitlines() == ["kleene match: pattern: unknown policy 'stream' for SES "
                                "patterns (seed 000); choose one of any, next, "
                                "next-literal, earliest-maximal, "
                                "earliest-maximal-contained, contiguous, "
                                "partition-contiguous"]


#: A Wayeb query over the shipped stock ticks: a SELL of INTC then, next, a BUY of INTC,
#: within 1,828 ms. examples/stocks/stocks.stream lines 112-113 (positions 111-112) are
#: such a pair 28,582,348 - 28,580,520 = 1,828 ms apart, lines 302-303 are 2 ms apart,
#: lines 960-961 30 ms apart; every other adjacent SELL INTC, BUY INTC pair is further
#: apart. Read strictly (the default for .sre) the span of exactly 1,828 ms is out.
STOCK_SRE = (";(^(IsEventTypePredicate(SELL),EQStr(name,INTC)),"
             "^(IsEventTypePredicate(BUY),EQStr(name,INTC))){window:1828}{windowType:time}\n")
STOCKS = Path(__file__).resolve().parents[1] / "examples" / "stocks" / "stocks.stream"
STOCK_LINES = {"strict": ['{"~": [301, 302]}', '{"~": [959, 960]}'],
               "inclusive": ['{"~": [111, 112]}', '{"~": [301, 302]}', '{"~": [959, 960]}']}


def _stock_cli(capsys, tmp_path: Path, *extra: str) -> tuple[list[str], str]:
    (tmp_path / "k.sre").write_text(STOCK_SRE)
    code = main(["match", "--pattern", str(tmp_path / "k.sre"), "--events", str(STOCKS),
                 *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out.splitlines(), err


#: The reference enumerates the runs of every start event: on the whole file that took
#: over two CPU minutes, so it reads lines 101-320 (positions 100-319 of the file, which
#: hold the pairs at 111-112 and 301-302 and no other adjacent SELL INTC, BUY INTC pair):
#: the same pairs, 100 positions earlier.
SLICE_LINES = {"strict": ['{"~": [201, 202]}'],
               "inclusive": ['{"~": [11, 12]}', '{"~": [201, 202]}']}


@pytest.mark.parametrize("reading", ["strict", "inclusive"])
def test_the_stock_query_single_process(capsys, tmp_path, reading):
    extra = [] if reading == "strict" else ["--window-reading", reading]
    for engine in ([], ["--engine", "srt"]):
        lines, err = _stock_cli(capsys, tmp_path, *extra, *engine)
        assert lines == printed(STOCK_LINES[reading])
        assert f"time window 1828 (the file's), read {reading}" in err
    sliced = tmp_path / "slice.stream"
    sliced.write_text("".join(STOCKS.read_text().splitlines(keepends=True)[100:320]))
    (tmp_path / "k.sre").write_text(STOCK_SRE)
    code = main(["match", "--pattern", str(tmp_path / "k.sre"), "--events", str(sliced),
                 "--engine", "reference", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.splitlines() == printed(SLICE_LINES[reading])
    found = find_matches(STOCK_SRE, load_events(str(STOCKS)),
                         reading=None if reading == "strict" else reading)
    assert sorted(m.dumps() for m in found.matches) == STOCK_LINES[reading]


@pytest.mark.spark
@pytest.mark.parametrize("reading", ["strict", "inclusive"])
def test_the_stock_query_on_spark(spark, capsys, tmp_path, reading):
    from kleene.engines.spark import collect_matches, match_file

    extra = [] if reading == "strict" else ["--window-reading", reading]
    lines, err = _stock_cli(capsys, tmp_path, *extra, "--spark", "--master", "local[2,2]",
                            "--tasks", "4")
    assert lines == printed(STOCK_LINES[reading])
    assert f"time window 1828 (the file's), read {reading}" in err
    found = collect_matches(match_file(spark, str(STOCKS), STOCK_SRE, tasks=4,
                                       reading=None if reading == "strict" else reading))
    assert sorted(m.dumps() for m in found) == STOCK_LINES[reading]
