"""SREMO text syntax (seed 004): parsing, printing and the errors a user sees,
each with the line and column of the offending token."""

from __future__ import annotations

import pytest

from kleene.reference.conditions import And, Attr, Cmp, Const
from kleene.reference.errors import PatternError, PatternSyntaxError
from kleene.reference.sremo.expressions import (
    SKIP,
    Atom,
    Choice,
    Concat,
    IllFormed,
    Intersect,
    Not,
    Star,
    Strategy,
    Window,
    check,
)
from kleene.reference.sremo.text import format_sremo, parse_sremo

E1 = "mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.type = 'S' AND ~.id = r1.id}"


def is_type(t: str) -> Cmp:
    return Cmp("=", Attr("~", "type"), Const(t))


def test_expression_1_of_the_paper_parses_to_its_ast():
    # Report Example 16: (TypeIsB(~) ↑• ↓r1) · (⊤ ↑⊗)* · ((TypeIsS(~) ∧ EqualId(~, r1)) ↑•).
    e = parse_sremo(E1)
    assert isinstance(e, Concat) and len(e.parts) == 3
    first, skip, last = e.parts
    assert first == Atom(is_type("B"), marked=True, write="r1")
    assert skip == Star(SKIP)
    assert isinstance(last, Atom) and last.marked and last.write is None
    # The register convention: r1.id is Attr("r1", "id"), the head's id is Attr("~", "id").
    assert isinstance(last.condition, And)
    assert Cmp("=", Attr("~", "id"), Attr("r1", "id")) in last.condition.parts


def test_precedence_choice_below_intersection_below_sequence_below_negation():
    a, b, c = (Atom(is_type(t)) for t in "abc")
    got = parse_sremo("{~.type = 'a'} + {~.type = 'b'} ; {~.type = 'c'}")
    assert got == Choice((a, Concat((b, c))))
    got = parse_sremo("{~.type = 'a'} INTERSECT {~.type = 'b'} + {~.type = 'c'}")
    assert got == Choice((Intersect((a, b)), c))
    got = parse_sremo("(!{~.type = 'a'} ; {~.type = 'b'})[1..3]")
    assert got == Window(Concat((Not(a), b)), 3)
    assert parse_sremo("{~.type = 'a'}*[1..2]") == Window(Star(a), 2)


def test_strategy_arguments_are_a_sequence():
    a, b = Atom(is_type("a"), True), Atom(is_type("b"), True)
    text = "ANY(mark {~.type = 'a'}, mark {~.type = 'b'})"
    assert parse_sremo(text) == Strategy("any", Concat((a, b)))
    assert parse_sremo("ANY((mark {~.type = 'a'} ; mark {~.type = 'b'}))") == parse_sremo(text)
    assert parse_sremo("next((mark {~.type = 'b'})*)") == Strategy("next", Star(b))


@pytest.mark.parametrize("text", [
    E1,
    "(" + E1 + ")[1..4]",
    "EPS + EMPTY",
    "!({~.x > 2.5 OR NOT ~.y = 'q'})[1..2]",
    "ANY(mark {TRUE} -> r, (mark {~.v < r.v})*, NEXT(mark {FALSE})[1..3])",
    "(mark {TRUE} -> r)* ; {~.v = r.v} INTERSECT ({TRUE} ; {TRUE})",
])
def test_printer_round_trips(text):
    e = parse_sremo(text)
    assert parse_sremo(format_sremo(e)) == e


@pytest.mark.parametrize("text, line, column, expected", [
    ("mark {~.type = 'B'} ;", 1, 22, "an atom"),
    ("mark ~.type = 'B'", 1, 6, "'{' opening a condition"),
    ("{~.type = }", 1, 11, "an attribute reference"),
    ("{TRUE}\n ; {~.a = 1} -> ANY", 2, 17, "a register name (not a keyword)"),
    ("{TRUE}[1..0]", 1, 11, "a positive integer window size"),
    ("{TRUE}[1..2.5]", 1, 11, "a positive integer window size"),
    ("{TRUE}[2..5]", 1, 8, "a window starting at 1"),
    ("{TRUE} {TRUE}", 1, 8, "end of input"),
    ("ANY({TRUE}, {TRUE}", 1, 19, "',' or ')' closing ANY("),
])
def test_syntax_errors_say_where_and_what_was_expected(text, line, column, expected):
    with pytest.raises(PatternSyntaxError) as err:
        parse_sremo(text)
    assert (err.value.line, err.value.column) == (line, column)
    assert expected in str(err.value)


def test_a_register_read_before_any_write_is_an_error_at_the_reading_atom():
    with pytest.raises(PatternSyntaxError) as err:
        parse_sremo("{TRUE} ;\n  mark {~.id = r.id} ; {TRUE} -> r")
    assert (err.value.line, err.value.column) == (2, 3)
    assert "register r is read before" in str(err.value)
    # Written on one branch only: some path writes it first, so it is well formed
    # (on the other path the comparison is false, report Def. 13).
    parse_sremo("({TRUE} -> r + {TRUE}) ; {~.id = r.id}")
    # A star may read what its previous iteration wrote.
    parse_sremo("({~.id = r.id} + {TRUE} -> r)*")


def test_negation_needs_a_window():
    with pytest.raises(PatternSyntaxError) as err:
        parse_sremo("{TRUE} ; !{~.a = 1}")
    assert (err.value.line, err.value.column) == (1, 10)
    assert "negation needs a window" in str(err.value)
    parse_sremo("{TRUE} ; !({~.a = 1})[1..3]")       # windowed operand
    parse_sremo("({TRUE} ; !{~.a = 1} ; {TRUE})[1..3]")  # inside a window (report Sec. 5.1.2)


def test_next_over_a_non_condition_needs_a_window():
    with pytest.raises(PatternSyntaxError) as err:
        parse_sremo("NEXT({TRUE}, {TRUE} ; {TRUE})")
    assert "skip-till-next" in str(err.value) and err.value.column == 1
    parse_sremo("NEXT({TRUE}, {~.a = 1})")  # a condition: logical negation suffices
    parse_sremo("NEXT({TRUE}, {TRUE} ; {TRUE})[1..4]")


def test_intersection_parts_cannot_use_each_others_registers():
    with pytest.raises(PatternSyntaxError) as err:
        parse_sremo("{TRUE} -> r ; ({~.a = r.a} INTERSECT {TRUE} -> r)")
    assert "intersection" in str(err.value)
    assert err.value.column == 16
    # Both parts reading a register written before the intersection is harmless.
    parse_sremo("{TRUE} -> r ; ({~.a = r.a} INTERSECT {~.b = r.b})")


def test_programmatic_construction_checks_without_positions():
    with pytest.raises(IllFormed):
        Window(SKIP, 0)
    with pytest.raises(IllFormed):
        Concat((SKIP,))
    with pytest.raises(PatternError):
        check(Not(SKIP))
    with pytest.raises(PatternSyntaxError, match="prev"):
        parse_sremo("{prev(~.a) < ~.a}")
