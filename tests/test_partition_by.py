"""``PARTITION BY attr`` in SES and operator patterns: sugar for an equality on
``attr`` between every pair of variables (docs/semantics.md, "PARTITION BY")."""

from __future__ import annotations

import pytest

from kleene.reference.conditions import Attr, Cmp
from kleene.reference.errors import PatternSyntaxError
from kleene.reference.operators.text import format_operator, parse_operator
from kleene.reference.ses.partitioning import partitioning_attributes
from kleene.reference.ses.text import format_ses, parse_ses


def eq(v: str, w: str, a: str) -> Cmp:
    return Cmp("=", Attr(v, a), Attr(w, a))


def test_ses_partition_by_is_every_pairwise_equality_first():
    p = parse_ses("PATTERN <{c, p+}, {b}> PARTITION BY ID WHERE c.L = 'C' WITHIN 5")
    assert p.conditions[:3] == (eq("c", "p", "ID"), eq("c", "b", "ID"), eq("p", "b", "ID"))
    assert p == parse_ses("PATTERN <{c, p+}, {b}> WHERE c.ID = p.ID AND c.ID = b.ID "
                          "AND p.ID = b.ID AND c.L = 'C' WITHIN 5")
    assert partitioning_attributes(p) == ("ID",)


def test_ses_printer_writes_the_clause_back():
    text = "PATTERN <{a}, {b}>\nPARTITION BY user, s\nWHERE a.x = 1\nWITHIN 3\n"
    assert format_ses(parse_ses(text)) == text


def test_operator_partition_by_relates_negated_variables_too():
    p = parse_operator("PATTERN SEQ(A a, NOT(B b), C c) PARTITION BY user WITHIN 10")
    assert p.conditions == (eq("a", "b", "user"), eq("a", "c", "user"), eq("b", "c", "user"))
    assert parse_operator(format_operator(p)) == p
    assert "PARTITION BY user\n" in format_operator(p)


def test_a_lone_variable_gets_no_condition():
    assert parse_ses("PATTERN <{a}> PARTITION BY user WITHIN 3").conditions == ()


@pytest.mark.parametrize("text", ["PATTERN <{a}, {b}> PARTITION BY WITHIN 3",
                                  "PATTERN <{a}, {b}> PARTITION BY x, WITHIN 3"])
def test_a_missing_attribute_is_a_syntax_error(text):
    with pytest.raises(PatternSyntaxError, match="1:3[36]: expected an attribute name"):
        parse_ses(text)
