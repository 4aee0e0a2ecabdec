"""``LIKE``, as CORE means it (issue 31 item 1; reference/regex.py, docs/ceql.md, "LIKE"):
``v.A LIKE 'regex'`` holds where RE2's ``PartialMatch`` finds the pattern in the text.

Expected values are worked out by hand from that definition (the pattern found anywhere
in the value; ``%`` and ``_`` plain characters; ``$`` the end of the text; unknown on a
missing value or a number); the Arrow kernel (RE2 itself) is checked against
``re.search`` of the reference's translation on drawn patterns of the subset and drawn
texts; the engines are checked against the reference on drawn SREMO with ``LIKE`` guards
where the other differential tests draw (tests/test_srt_differential.py,
tests/test_srt_dsrt.py, tests/test_count_sremo.py: ``like=True``).
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.conformance.regex_strategies import regexes, texts
from kleene.engines.columns import ArrowColumns, Columns, F, T, U
from kleene.engines.count import tecs
from kleene.proofs.encode import compare, constant
from kleene.reference.ceql.parser import parse_ceql
from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import LIKE, Attr, Cmp, Const, Instance, Not, evaluate
from kleene.reference.errors import PatternError, PatternSyntaxError, Unsupported
from kleene.reference.events import Event, Stream, Value
from kleene.reference.operators.text import parse_operator
from kleene.reference.operators.to_match_recognize import Untranslatable, translate
from kleene.reference.query import Query
from kleene.reference.regex import RegexRefused, check_pattern, python_pattern
from kleene.reference.syntax import parse_condition
from tests.helpers import columnar, run_cli, typed_stream


def truth(pattern: str, value: Value) -> bool | None:
    """``e.name LIKE pattern`` on one event whose ``name`` is ``value``."""
    attrs: dict[str, Value] = {} if value is None else {"name": value}
    e = Event(position=0, ts=0, type="T", attrs=attrs)
    return evaluate(Cmp(LIKE, Attr("e", "name"), Const(pattern)),
                    Instance({"e": e}, {}, {}))


# ---------------------------------------------------------------- the definition, by hand


@pytest.mark.parametrize("pattern, value, expected", [
    ("SF", "MSFT", True),            # anywhere in the value, not the whole of it
    ("M.FT", "MSFT", True),          # . any character
    ("^MS", "MSFT", True),
    ("^SF", "MSFT", False),
    ("FT$", "MSFT", True),
    ("MS%", "MSFT", False),          # SQL's % is a plain character here
    ("MS%", "MS%", True),
    ("M_FT", "MSFT", False),         # and so is _
    ("", "MSFT", True),              # the empty pattern is found in every text
    ("a$", "a\n", False),            # RE2's $ is the end of the text (re's also before \n)
    ("a.b", "a\nb", False),          # . is no newline in either dialect
    ("[^a]", "\n", True),            # a negated class takes the newline
    ("é", "café", True),
    ("^.{4}$", "café", True),        # . is one character (code point), not one byte
    ("x|FT", "MSFT", True),
    ("(?:MS)+F", "MSMSF", True),
    ("SF", None, None),              # a missing value: unknown
    ("1", 1, None),                  # a number: unknown (Kleene's kinds never meet)
    ("T", True, None),
])
def test_like_by_hand(pattern: str, value: Value, expected: bool | None) -> None:
    assert truth(pattern, value) is expected


def test_dollar_is_translated_and_plain_re_search_would_differ() -> None:
    assert re.search("a$", "a\n") is not None            # Python's reading
    assert python_pattern("a$").search("a\n") is None     # RE2's, which Kleene keeps
    got = pc.match_substring_regex(pa.array(["a\n", "a"]), pattern="a$").to_pylist()
    assert got == [False, True]


def test_not_like_is_unknown_where_like_is() -> None:
    missing = Event(position=0, ts=0, type="T", attrs={})
    c = Not(Cmp(LIKE, Attr("e", "name"), Const("x")))
    assert evaluate(c, Instance({"e": missing}, {}, {})) is None


# ---------------------------------------------------------------- the subset and its refusals


@pytest.mark.parametrize("pattern, offset, words", [
    ("a\\d", 1, "\\d is not read"),
    ("\\w+", 0, "\\w is not read"),
    ("(a)\\1", 3, "backreference"),
    ("(?P<x>a)", 0, "(?...) is read only as (?:...)"),
    ("a(?=b)", 1, "(?...)"),
    ("(?i)a", 0, "(?...)"),
    ("a*+", 2, "a repetition of a repetition"),
    ("a**", 2, "a repetition of a repetition"),
    ("*a", 0, "nothing to repeat"),
    ("^*", 1, "nothing to repeat"),
    ("a{,3}", 1, "'{' starts a repetition"),
    ("a{3,1}", 1, "backwards"),
    ("a{1001}", 1, "above 1000"),
    ("(a{100}){11}", 0, "nested repetitions"),
    ("x}", 1, "outside a repetition"),
    ("[[:alpha:]]", 1, "'[' inside a class"),
    ("[]a]", 1, "']' first in a class"),
    ("[a&&b]", 2, "'&&' inside a class"),
    ("[z-a]", 1, "runs backwards"),
    ("(ab", 0, "has no ')'"),
    ("ab)", 2, "')' with no '('"),
    ("[ab", 0, "has no ']'"),
    ("ab\\", 2, "trailing backslash"),
    ("\\C", 0, "\\C is not read"),
    ("(" * 101 + ")" * 101, 100, "groups nested deeper than 100"),
])
def test_outside_the_subset_is_refused_at_its_character(pattern: str, offset: int,
                                                         words: str) -> None:
    with pytest.raises(RegexRefused) as err:
        check_pattern(pattern)
    assert err.value.offset == offset
    assert words in err.value.message


def test_a_refused_pattern_is_a_pattern_error_at_its_column() -> None:
    text = "a.name = 'x' AND\n  a.name LIKE 'b''c\\d'"
    with pytest.raises(PatternSyntaxError) as err:
        parse_condition(text, "p.ses")
    # line 2: the string opens at column 15; b, '' (one quote of the value), c, then \d
    assert (err.value.source, err.value.line, err.value.column) == ("p.ses", 2, 20)
    assert str(err.value).splitlines()[2].index("^") - 2 == 19
    with pytest.raises(PatternError):
        Cmp(LIKE, Attr("a", "name"), Const("(?P<x>)"))
    with pytest.raises(PatternError):
        Cmp(LIKE, Const("x"), Const("x"))


def test_like_prints_and_reads_back() -> None:
    c = parse_condition("a.name LIKE 'it''s' AND NOT b.x like '^M.$'")
    assert format_condition(c) == "a.name LIKE 'it''s' AND NOT b.x LIKE '^M.$'"
    assert parse_condition(format_condition(c)) == c


# ---------------------------------------------------------------- RE2 (Arrow) against re.search


@settings(max_examples=400, deadline=None)
@given(regexes(), st.lists(texts(), min_size=1, max_size=6))
def test_arrow_re2_is_re_search_on_the_subset(pattern: str, values: list[str]) -> None:
    check_pattern(pattern)      # every drawn pattern is in the subset
    got = pc.match_substring_regex(pa.array(values, pa.string()), pattern=pattern)
    assert got.to_pylist() == [python_pattern(pattern).search(v) is not None for v in values]


@settings(max_examples=200, deadline=None)
@given(regexes(), st.lists(st.one_of(texts(), st.none(), st.integers(0, 2)), min_size=1,
                           max_size=6))
def test_the_column_kernels_are_the_reference(pattern: str, values: list[Value]) -> None:
    events = [Event(position=i, ts=i, type="T", attrs={} if v is None else {"name": v})
              for i, v in enumerate(values)]
    c = Cmp(LIKE, Attr("e", "name"), Const(pattern))
    codes = {True: T, False: F, None: U}
    expected = [codes[evaluate(c, Instance({"e": e}, {}, {}))] for e in events]
    assert Columns(events, "e").truth(c).tolist() == expected
    stream = columnar(Stream(events))
    assert stream.columns is not None
    assert ArrowColumns(stream.columns, "e").truth(c).tolist() == expected


# ---------------------------------------------------------------- CEQL, by hand

#: SELL MSFT, BUY INTC, BUY MSFT, SELL AMZN, BUY AMD at ts 0..4.
STOCKS = typed_stream(*((kind, i, {"name": name}) for i, (kind, name) in enumerate((
    ("SELL", "MSFT"), ("BUY", "INTC"), ("BUY", "MSFT"), ("SELL", "AMZN"), ("BUY", "AMD")))))


def found(text: str, s: Stream) -> set[tuple[int, ...]]:
    """The reference's matches of CEQL ``text``; ``srt``, the tECS listing (over events
    and over the stream's Arrow columns) and the count must agree."""
    result = kleene.find_matches(text, s, engine="reference")
    srt = kleene.find_matches(text, s, engine="srt")
    assert srt.matches == result.matches
    query = Query.of(parse_ceql(text), language="ceql").with_time_unit(s.time_unit)
    for source in (s, columnar(s)):
        assert set(tecs.matches(query, source)) == set(result.matches)
    assert kleene.count_matches(text, s).count == len(result.matches)
    return {m.positions for m in result.matches}


@pytest.mark.parametrize("where, expected", [
    # a = the SELL whose name holds SF: MSFT at 0; b = a later BUY starting with A: AMD at 4
    ("(SELL as a; BUY as b) FILTER a[name LIKE 'SF'] AND b[name LIKE '^A']", {(0, 4)}),
    # M.FT: MSFT; every later BUY (1, 2, 4)
    ("(SELL as a; BUY as b) FILTER a[name LIKE 'M.FT']", {(0, 1), (0, 2), (0, 4)}),
    # SQL's MS%: no name holds a %
    ("BUY as b FILTER b[name LIKE 'MS%']", set()),
    # BUY names ending in T: MSFT at 2; NOT keeps INTC (1) and AMD (4)
    ("BUY as b FILTER b[NOT name LIKE 'T$']", {(1,), (4,)}),
    ("BUY as b FILTER b[name LIKE '[CD]$']", {(1,), (4,)}),
    ("SELL as a FILTER a[name LIKE 'A.*N']", {(3,)}),
    # LIKE with = and OR: the SELL of AMZN or a SELL whose name has an S after M
    ("SELL as a FILTER a[name = 'AMZN' OR name LIKE 'MS']", {(0,), (3,)}),
])
def test_ceql_like_by_hand(where: str, expected: set[tuple[int, ...]]) -> None:
    assert found("SELECT * FROM S WHERE " + where, STOCKS) == expected


def test_like_on_a_missing_attribute_holds_nowhere() -> None:
    s = typed_stream(("SELL", 0, {}), ("SELL", 1, {"name": "MSFT"}))
    assert found("SELECT * FROM S WHERE SELL as a FILTER a[name LIKE '']", s) == {(1,)}
    assert found("SELECT * FROM S WHERE SELL as a FILTER a[NOT name LIKE 'x']", s) == {(1,)}


# ---------------------------------------------------------------- where LIKE is refused


def test_z3_refuses_like() -> None:
    with pytest.raises(Unsupported, match="Z3 has no RE2"):
        compare(LIKE, constant("MSFT"), constant("SF"))


def test_the_match_recognize_translation_refuses_like() -> None:
    pattern = parse_operator("PATTERN SEQ(A a, B b) WHERE a.L LIKE 'A' WITHIN 5")
    with pytest.raises(Untranslatable, match="not SQL's LIKE"):
        translate(Query.of(pattern, policy="contiguous"))


def test_kleene_prove_says_in_one_line_that_like_is_not_proved(capsys) -> None:
    code, _, err = run_cli(capsys, "prove", "--bound", "3",
                           "PATTERN <{a}, {b}> WHERE a.L LIKE 'A' AND b.L = 'B' WITHIN 3")
    assert code != 0
    assert "a condition with LIKE is not proved: Z3 has no RE2 partial match" in err
    assert "Traceback" not in err


def test_kleene_match_refuses_like_on_a_column_without_text(tmp_path, capsys) -> None:
    events = tmp_path / "e.jsonl"
    events.write_text('{"ts": 0, "type": "A", "price": 1}\n')
    code, _, err = run_cli(capsys, "match", "--pattern",
                           "SELECT * FROM S WHERE A as a FILTER a[price LIKE '1']",
                           "--events", str(events))
    assert code != 0
    assert "LIKE '1' compares numbers with text" in err
    assert "Traceback" not in err
