"""Properties of SREMO (seed 004) on generated expressions and streams: printer
round trips, Def. 39 windows, choice and intersection laws, and Theorem 20
against an independent recogniser (Antimirov derivatives, written here and
sharing only the condition semantics of Def. 13 with the reference)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from kleene.reference.conditions import Condition, rename
from kleene.reference.events import Event, Stream
from kleene.reference.sremo.expressions import (
    Atom,
    Choice,
    Concat,
    Empty,
    Epsilon,
    Expr,
    Intersect,
    Not,
    Star,
    Strategy,
    Window,
    may_write,
    written,
)
from kleene.reference.sremo.language import matches_by_word, string, words
from kleene.reference.sremo.semantics import match_sets, span
from kleene.reference.sremo.streaming import stream_matches
from kleene.reference.sremo.text import format_sremo, parse_sremo
from kleene.reference.sremo.valuations import EMPTY, Valuation, satisfies, update
from kleene.reference.syntax import parse_condition

REGISTERS = ("r", "q")
HEAD_CONDITIONS = ("TRUE", "~.type = 'a'", "~.type = 'b'", "~.v > 1", "NOT ~.type = 'a'",
                   "~.type = 'a' OR ~.v = 2")
REGISTER_CONDITIONS = ("~.v = {r}.v", "~.v > {r}.v", "~.type = {r}.type AND ~.v < 3")
ALPHABET = ({"type": "a", "v": 1}, {"type": "a", "v": 2}, {"type": "b", "v": 1})

# ---------------------------------------------------------------- strategies


def _atom(draw, readable: frozenset[str], writable: Sequence[str]) -> Atom:
    texts = list(HEAD_CONDITIONS)
    texts += [t.format(r=r) for r in sorted(readable) for t in REGISTER_CONDITIONS]
    phi = parse_condition(draw(st.sampled_from(texts), label="condition"))
    write = draw(st.sampled_from([None, *writable]), label="write")
    return Atom(phi, draw(st.booleans(), label="marked"), write)


def _expr(draw, depth: int, readable: frozenset[str], writable: tuple[str, ...],
          windowed: bool, core: bool) -> Expr:
    """A well-formed expression: reads only registers some path wrote before."""
    kinds = ["atom", "atom", "eps", "empty"]
    if depth > 0:
        kinds += ["choice", "concat", "concat", "star"]
        if not core:
            kinds += ["window", "intersect", "not", "strategy"]
    kind = draw(st.sampled_from(kinds), label="kind")
    sub = depth - 1
    if kind == "atom":
        return _atom(draw, readable, writable)
    if kind in ("eps", "empty"):
        return Epsilon() if kind == "eps" else Empty()
    if kind == "choice":
        return Choice(tuple(_expr(draw, sub, readable, writable, windowed, core)
                            for _ in range(2)))
    if kind == "concat":
        parts = []
        for _ in range(draw(st.integers(2, 3), label="length")):
            parts.append(_expr(draw, sub, readable, writable, windowed, core))
            readable = readable | may_write(parts[-1])
        return Concat(tuple(parts))
    if kind == "star":
        return Star(_expr(draw, sub, readable, writable, windowed, core))
    if kind == "window":
        return Window(_expr(draw, sub, readable, writable, True, core),
                      draw(st.integers(1, 4), label="width"))
    if kind == "not":
        body = _expr(draw, sub, readable, writable, True, core)
        return Not(body) if windowed else Not(Window(body, draw(st.integers(1, 4))))
    if kind == "intersect":
        # Disjoint writable registers; nobody reads what another part may write.
        outer = readable - set(writable)
        return Intersect((_expr(draw, sub, outer, writable[:1], windowed, core),
                          _expr(draw, sub, outer, writable[1:], windowed, core)))
    return _strategy(draw, sub, readable, writable, windowed)


def _strategy(draw, depth: int, readable: frozenset[str], writable: tuple[str, ...],
              windowed: bool) -> Expr:
    kind = draw(st.sampled_from(["any", "next"]), label="strategy")
    inside = windowed or kind == "next"  # an unwindowed next gets a window below
    first = _expr(draw, depth, readable, writable, inside, False)
    if draw(st.booleans(), label="iteration"):
        body: Expr = Star(first)
    else:
        body = Concat((first, _expr(draw, depth, readable | may_write(first), writable, inside,
                                    False)))
    e: Expr = Strategy(kind, body)
    return e if windowed or kind == "any" else Window(e, draw(st.integers(1, 4)))


@st.composite
def sremo_expressions(draw, max_depth: int = 3, *, core: bool = False,
                      writable: tuple[str, ...] = REGISTERS) -> Expr:
    """Well-formed SREMO; ``core`` keeps to Def. 15 (ϵ, ∅, atoms, +, ·, *)."""
    depth = draw(st.integers(0, max_depth), label="depth")
    return _expr(draw, depth, frozenset(), writable, False, core)


@st.composite
def streams(draw, max_size: int = 5) -> Stream:
    rows = draw(st.lists(st.sampled_from(ALPHABET), max_size=max_size), label="letters")
    return Stream.from_rows([{"ts": i, **row} for i, row in enumerate(rows)])


# ---------------------------------------------------------------- round trips


@settings(max_examples=300)
@given(sremo_expressions(max_depth=4))
def test_printer_round_trips(e):
    text = format_sremo(e)
    note(text)
    assert parse_sremo(text) == e


# ---------------------------------------------------------------- Def. 39


@settings(max_examples=200)
@given(sremo_expressions(max_depth=2), st.integers(1, 4), streams())
def test_windowed_matches_are_the_unwindowed_ones_within_the_span(e, w, s):
    """Def. 39: (e[1..w], S, M, v) ⊣ v' iff (e, S, M, v) ⊣ v' and span(M) ≤ w."""
    windowed = Window(e, w)
    assert stream_matches(windowed, s) == {m for m in stream_matches(e, s)
                                           if m.last - m.first + 1 <= w}
    assert match_sets(windowed, s) == {m for m in match_sets(e, s) if span(m) <= w}


# ---------------------------------------------------------------- + and ∩


@settings(max_examples=200)
@given(sremo_expressions(max_depth=2), sremo_expressions(max_depth=2), streams())
def test_choice_is_the_union_of_matches(e1, e2, s):
    both = Choice((e1, e2))
    assert stream_matches(both, s) == stream_matches(e1, s) | stream_matches(e2, s)
    assert match_sets(both, s) == match_sets(e1, s) | match_sets(e2, s)


@settings(max_examples=200)
@given(sremo_expressions(max_depth=2, writable=("r",)),
       sremo_expressions(max_depth=2, writable=("q",)), streams())
def test_intersection_is_the_common_matches_on_every_string(e1, e2, s):
    """Report Def. 33: M is a match of e1 ∩ e2 iff it is a match of e1 and of e2.
    Streaming takes each slice S_j..k separately, so only ⊆ holds there: e1 and e2
    may report the same M from different starts j."""
    both = Intersect((e1, e2))
    assert match_sets(both, s) == match_sets(e1, s) & match_sets(e2, s)
    assert stream_matches(both, s) <= stream_matches(e1, s) & stream_matches(e2, s)


def _renamed(e: Expr) -> Expr:
    """``e`` with registers r, q renamed r2, q2 (a bijection: the same matches)."""
    mapping = {"r": "r2", "q": "q2"}
    if isinstance(e, Atom):
        phi: Condition = rename(e.condition, mapping)
        return Atom(phi, e.marked, mapping.get(e.write, e.write) if e.write else None)
    if isinstance(e, (Choice, Concat, Intersect)):
        return type(e)(tuple(_renamed(p) for p in e.parts))
    if isinstance(e, (Star, Not)):
        return type(e)(_renamed(e.body))
    if isinstance(e, Window):
        return Window(_renamed(e.body), e.width)
    if isinstance(e, Strategy):
        return Strategy(e.kind, _renamed(e.body))
    return e


@settings(max_examples=200)
@given(sremo_expressions(max_depth=2), streams())
def test_intersection_with_a_renamed_copy_changes_nothing(e, s):
    # A follow-up atom reads what e wrote: the valuation after ∩ must keep e's registers.
    reg = sorted(written(e))
    tail = Atom(parse_condition(f"~.v >= {reg[0]}.v" if reg else "TRUE"), marked=True)
    left, right = Concat((Intersect((e, _renamed(e))), tail)), Concat((e, tail))
    assert stream_matches(left, s) == stream_matches(right, s)


# ---------------------------------------------------------------- Theorem 20


def _nullable(e: Expr) -> bool:
    if isinstance(e, (Epsilon, Star)):
        return True
    if isinstance(e, Choice):
        return any(_nullable(p) for p in e.parts)
    if isinstance(e, Concat):
        return all(_nullable(p) for p in e.parts)
    return False


def _then(a: Expr, b: Expr) -> Expr:
    return b if isinstance(a, Epsilon) else Concat((a, b))


def _derivatives(e: Expr, u: Event, v: Valuation, s: Stream) -> set[tuple[Expr, Valuation]]:
    """Antimirov's partial derivatives of e by the element u, with registers."""
    if isinstance(e, Atom):
        if not satisfies(e.condition, u, v, s):
            return set()
        return {(Epsilon(), update(v, e.write, u.position) if e.write else v)}
    if isinstance(e, Choice):
        return set().union(*(_derivatives(p, u, v, s) for p in e.parts))
    if isinstance(e, Concat):
        head, rest = e.parts[0], e.parts[1:]
        tail = rest[0] if len(rest) == 1 else Concat(rest)
        out = {(_then(d, tail), w) for d, w in _derivatives(head, u, v, s)}
        return out | (_derivatives(tail, u, v, s) if _nullable(head) else set())
    if isinstance(e, Star):
        return {(_then(d, e), w) for d, w in _derivatives(e.body, u, v, s)}
    return set()  # ϵ, ∅


def recognises(e: Expr, s: Stream) -> bool:
    """S ∈ Lang(e) by running the derivative automaton from (e, ♯)."""
    states = {(e, EMPTY)}
    for u in s:
        states = set().union(*(_derivatives(x, u, v, s) for x, v in states))
    return any(_nullable(x) for x, _ in states)


def _same_matches(e: Expr) -> st.SearchStrategy[Expr]:
    """Expressions with the same matches as e on every string (so Thm 20 applies)."""
    return st.sampled_from([Choice((e, e)), Concat((e, Epsilon())), Concat((Epsilon(), e)),
                            Choice((Empty(), e)), Star(Star(e)) if isinstance(e, Star) else e])


@settings(max_examples=200)
@given(st.data())
def test_theorem_20_equal_matches_imply_equal_languages(data):
    e = data.draw(sremo_expressions(max_depth=3, core=True), label="e")
    other = data.draw(st.one_of(sremo_expressions(max_depth=3, core=True), _same_matches(e)),
                      label="e'")
    found = matches_by_word(e, ALPHABET, 3)
    found_other = matches_by_word(other, ALPHABET, 3)
    lang = {w for w in words(len(ALPHABET), 3) if recognises(e, string(w, ALPHABET))}
    lang_other = {w for w in words(len(ALPHABET), 3)
                  if recognises(other, string(w, ALPHABET))}
    # Def. 18 against the recogniser: S ∈ Lang(e) iff Match(e, S) is not empty.
    assert lang == {w for w, ms in found.items() if ms}
    # Thm 20, on strings up to length 3: if no string distinguishes the matches,
    # none distinguishes the languages.
    event("same matches" if found == found_other else "different matches")
    event("non-trivial language" if 0 < len(lang) < len(found) else "trivial language")
    if found == found_other:
        assert lang == lang_other
