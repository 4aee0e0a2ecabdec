"""``dsrt`` (report Thm 41, Alg. 7) and the complement (Alg. 8): the DSRT accepts exactly
the language of the expression (checked on every string up to a length over a small
alphabet, against the reference's Def. 18 and the ``srt`` engine's literal run), is
deterministic (proved by Z3 through ``iter_transitions``), and refuses with a one-line
reason what it does not cover."""

from __future__ import annotations

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.conformance.sremo_strategies import sremo_expressions
from kleene.engines.registry import engine
from kleene.engines.srt.complement import MAX_ATOMS, minterms
from kleene.engines.srt.dsrt import compile_dsrt
from kleene.proofs.automata import deterministic
from kleene.proofs.results import Proved
from kleene.reference.budget import Budget
from kleene.reference.conditions import Attr, Cmp, Const
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.query import Query
from kleene.reference.sremo import parse_sremo
from kleene.reference.sremo.expressions import Window
from kleene.reference.sremo.language import string, words
from kleene.reference.sremo.semantics import accepts

ALPHABET = ({"L": "A", "ID": 0, "V": 1}, {"L": "B", "ID": 1, "V": 0}, {"L": "C", "ID": 0, "V": 2})
LENGTH = 4


def _same_language(e):
    try:
        d = compile_dsrt(e)
    except Unsupported as err:
        assert "cap" in str(err) or "Alg. 7" in str(err), err
        reject()
    literal = engine("srt").compile(Query.of(e, policy="literal"))
    for word in words(len(ALPHABET), LENGTH):
        s = string(word, ALPHABET)
        try:
            expected = accepts(e, s, budget=Budget(limit=20_000))
        except BudgetExceeded:
            reject()
        assert d.accepts(s) == expected, word
        assert bool(list(literal.run(s))) == expected, word


@given(e=sremo_expressions(max_depth=2))
def test_dsrt_accepts_exactly_the_language(e):
    _same_language(e)


@given(e=sremo_expressions(max_depth=2, like=True))
def test_dsrt_accepts_exactly_the_language_with_like_guards(e):
    """Minterms of ``LIKE`` guards (drawn patterns over the labels; on ``ID``, unknown)."""
    _same_language(e)


@pytest.mark.parametrize("text", [
    "(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[1..3]",
    "!({~.L = 'A'} ; {~.L = 'B'})[1..2]",
    "(mark {~.L = 'A'} ; !({~.L = 'B'})[1..2] ; mark {~.L = 'C'})[1..4]",
    "({~.L != 'A'}* INTERSECT (mark {~.L = 'B'} + {TRUE})*)[1..3]",
])
def test_dsrt_of_the_windowed_examples(text):
    e = parse_sremo(text)
    d = compile_dsrt(e)
    for word in words(len(ALPHABET), LENGTH):
        s = string(word, ALPHABET)
        assert d.accepts(s) == accepts(e, s), word
    assert isinstance(deterministic(d), Proved)


def test_registers_written_then_read_without_marked_boundaries_are_refused():
    # the first element is not marked: the walk-length bound of the unrolling is not
    # Def. 39 here (docs/errata.md#seed-004-def39-span-vs-length), and no copies are made
    e = parse_sremo("({~.L = 'A'} -> r ; {TRUE}* ; mark {~.ID = r.ID})[1..2]")
    with pytest.raises(Unsupported, match="Alg. 7's register copies"):
        compile_dsrt(e)


@pytest.mark.parametrize("text", [
    "(mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.ID = r.ID})[1..3]",
    "ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B'}, mark {~.V > r.V})[1..4]",
    "ANY(mark {~.L = 'A'} -> r, ANY(mark {~.L = 'B' AND ~.ID = r.ID})*, "
    "mark {~.V > r.V})[1..3]",
])
def test_unrolled_dsrt_with_register_copies_accepts_exactly_the_language(text):
    # report Algs. 3-7: registers written and read, as in every Wayeb benchmark query
    e = parse_sremo(text)
    d = compile_dsrt(e)
    assert any("@" in r for r in d.dsrt.registers())
    for word in words(len(ALPHABET), LENGTH + 1):
        s = string(word, ALPHABET)
        assert d.accepts(s) == accepts(e, s), word
    assert isinstance(deterministic(d), Proved)


@given(e=sremo_expressions(max_depth=2), w=st.integers(1, 4))
def test_unrolled_dsrt_of_windowed_expressions(e, w):
    from kleene.engines.srt.compile import compile_sremo
    from kleene.engines.srt.unroll import boundary_marked
    from kleene.reference.sremo.expressions import Window

    if not boundary_marked(compile_sremo(e)):
        reject()
    _same_language(Window(e, w))


def test_the_minterm_cap_is_one_line_naming_it():
    atoms = tuple(Cmp("=", Attr("~", "V"), Const(i)) for i in range(MAX_ATOMS + 1))
    with pytest.raises(Unsupported) as err:
        minterms(atoms)
    assert "cap" in str(err.value) and "\n" not in str(err.value)


def test_the_state_cap_is_one_line_naming_it():
    e = parse_sremo("({TRUE}* ; mark {~.L = 'A'} ; {TRUE} ; {TRUE} ; {TRUE} ; {TRUE})[1..6]")
    with pytest.raises(Unsupported) as err:
        compile_dsrt(e, max_states=8)
    assert "cap" in str(err.value) and "\n" not in str(err.value)


def test_equal_head_constants_make_a_minterm_unsatisfiable():
    a, b = (Cmp("=", Attr("~", "L"), Const(x)) for x in "AB")
    assert len(minterms((a, b))) == 3  # {a, b} both satisfied is dropped


def test_the_unrolling_bounds_the_string_not_the_marks():
    # docs/errata.md#seed-004-def39-span-vs-length: on b, x, x, s Def. 39 accepts
    # ({b} ; {TRUE}* ; mark {s})[1..2] (M = {3}, span 1), the unrolled SRT of width 2
    # cannot read four elements; so compile_dsrt unrolls boundary-marked bodies only.
    from kleene.engines.srt.compile import compile_sremo
    from kleene.engines.srt.unroll import boundary_marked, unroll
    from kleene.reference.events import Stream

    e = parse_sremo("({~.L = 'B'} ; {TRUE}* ; mark {~.L = 'S'})[1..2]")
    s = Stream.from_rows([{"ts": i, "L": x} for i, x in enumerate("BXXS")])
    assert accepts(e, s) and isinstance(e, Window)
    body = compile_sremo(e.body)
    assert not boundary_marked(body)
    from kleene.engines.srt.complement import determinize
    from kleene.engines.srt.dsrt import CompiledDSRT

    walks = CompiledDSRT(*determinize(unroll(body, 2, 1000), 1000, copies=True))
    assert not walks.accepts(s)          # Alg. 4 as printed: too long
    assert compile_dsrt(e).accepts(s)    # the DSRT compile_dsrt builds follows Def. 39
