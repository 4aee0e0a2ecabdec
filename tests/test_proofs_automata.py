"""Proofs about any compiled automaton through iter_transitions (proofs/automata.py).

Expected verdicts by hand from seed 000 Sec. 4.2: the SES automaton of
``<{a, b}>`` has, from the start state, a transition binding a and one binding
b; with properties a.L = 'A' and b.L = 'B' no event enables both (Def. 6
mutual exclusivity, Lemma 1), without them any event does.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator

from kleene.engines.protocol import Counters, Transition
from kleene.engines.registry import engine
from kleene.proofs.automata import deterministic, overlapping_guards, unsatisfiable_guards
from kleene.proofs.results import CounterExample, Proved
from kleene.reference.budget import Budget
from kleene.reference.conditions import TRUE, Attr, Cmp, Const, holds
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses


def compiled(text: str):
    return engine("ses-automaton").compile(Query.of(parse_ses(text), policy="next"))


def test_exclusive_properties_make_the_automaton_deterministic():
    c = compiled("PATTERN <{a, b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5")
    assert isinstance(deterministic(c), Proved)
    assert all(isinstance(r, Proved) for r in overlapping_guards(c).values())


def test_without_properties_one_event_enables_two_transitions():
    c = compiled("PATTERN <{a, b}> WHERE a.V < b.V WITHIN 5")
    r = deterministic(c)
    assert isinstance(r, CounterExample)
    assert len(r.stream) >= 1   # the event read (and what the run holds)


def test_satisfiable_guards_are_refuted_with_a_witness_event():
    c = compiled("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5")
    results = unsatisfiable_guards(c)
    assert results and all(isinstance(r, CounterExample) for r in results.values())
    for t, r in results.items():
        assert isinstance(r, CounterExample)
        last = r.stream[-1] if t.variable == "b" else r.stream[0]
        want = {"a": "A", "b": "B"}[t.variable or ""]
        assert any(e.value("L") == want for e in r.stream), (t, r.stream.to_json(), last)


def test_a_contradictory_guard_is_proved_dead():
    c = compiled("PATTERN <{a}> WHERE a.V > 3 AND a.V < 2 WITHIN 5")
    results = unsatisfiable_guards(c)
    assert results and all(isinstance(r, Proved) for r in results.values())


class _Hand:
    """A hand-made automaton of another family: SRT-like edges over the head ``~``."""

    initial: frozenset[Hashable] = frozenset({0})
    accepting: frozenset[Hashable] = frozenset({1})

    def iter_transitions(self) -> Iterator[Transition]:
        yield Transition(0, 1, None, Cmp("=", Attr("~", "type"), Const("A")), mark=True)
        yield Transition(0, 0, None, TRUE, kind="skip", mark=False)
        yield Transition(1, 1, None, TRUE, kind="epsilon")

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        return iter(())


def test_any_engines_transitions_are_read_alike():
    # the marked A edge and the TRUE skip edge overlap on an event of type A
    r = deterministic(_Hand())
    assert isinstance(r, CounterExample)
    assert holds(Cmp("=", Attr("~", "type"), Const("A")), {"~": (r.stream[-1],)})


class _HandEngine:
    """An engine of another language (operator patterns) compiling to :class:`_Hand`."""

    name = "hand-made"

    @property
    def capabilities(self):
        from kleene.engines.protocol import Feature

        return Feature.of("operator", "any")

    def compile(self, query):
        return _Hand()


def test_kleene_prove_checks_any_languages_automaton(monkeypatch, tmp_path, capsys):
    from kleene.cli import main
    from kleene.engines import registry

    pattern = tmp_path / "p.op"
    pattern.write_text("PATTERN SEQ(A a, B b) WITHIN 5\n", encoding="utf-8")
    monkeypatch.setattr(registry, "PREFERENCE", ("hand-made",))
    monkeypatch.setitem(registry._REGISTRY, "hand-made", _HandEngine)
    assert main(["prove", str(pattern), "--check", "automaton"]) == 0   # overlaps: info
    out = capsys.readouterr().out
    assert "engine hand-made" in out and "determinism" in out and "1 info" in out


def test_transitions_are_named_with_the_pictures_numbers():
    """kleene prove names a transition Θi as kleene draw's legend numbers it (seed 000
    Fig. 4 numbers Q1's transitions Θ1..Θ17 in the same order)."""
    from pathlib import Path

    from kleene.engines.draw import to_graph
    from kleene.engines.ses.automaton import ses_automaton
    from kleene.engines.ses.trace import view_of
    from kleene.proofs.automata import names

    q1 = parse_ses((Path(__file__).parent.parent / "examples/chemo/q1.ses").read_text())
    view = view_of(ses_automaton(q1))
    named = names(view.iter_transitions())
    g = to_graph(view, guards="legend")
    pictured = {(u, v, d["variable"], d["guard"]): d["name"] for u, v, d in g.edges(data=True)}
    assert len(named) == len(pictured) == 17
    for key, name in named.items():
        assert name.split()[0] == pictured[key]
    assert named[next(k for k in named if k[0] == frozenset() and k[2] == "c")].startswith(
        "Θ1 ∅ --c--> {c}")


def test_the_automaton_checks_name_transitions_as_each_family_draws_them():
    import kleene.proofs.nfa.report  # noqa: F401  (registers the NFA namer)
    import kleene.proofs.srt.report  # noqa: F401  (registers the SRT and DSRT namers)
    from kleene.engines.registry import engine
    from kleene.engines.srt.dsrt import compile_dsrt
    from kleene.proofs.automata import checks, transition_namer
    from kleene.reference.operators.text import parse_operator
    from kleene.reference.sremo import parse_sremo

    chain = engine("nfa-chain").compile(Query.of(parse_operator("PATTERN SEQ(A a, B b)")))
    assert [transition_namer(chain)(t) for t in chain.iter_transitions()] == [
        "Θ1 ∅ --ε--> ∅", "Θ2 ∅ --a--> a", "Θ3 a --ε--> a", "Θ4 a --b--> ab"]
    e = parse_sremo("(mark {~.L = 'A'} ; mark {~.L = 'B'})[1..2]")
    srt = engine("srt").compile(Query.of(e, policy="literal"))
    assert [transition_namer(srt)(t) for t in srt.iter_transitions()] == [
        "q0 --~.L = 'A' ↑ ●--> q1", "q1 --~.L = 'B' ↑ ●--> q2"]
    dsrt = compile_dsrt(e)
    names = [transition_namer(dsrt)(t) for t in dsrt.iter_transitions()]
    assert any(n.startswith("Θ") and " {q0} --ε--> {q1}" in n for n in names), names
    assert any("--ε--> ∅" in n for n in names)   # the sink of Alg. 7's subset construction
    # checks() uses them
    lines = [c.sentence for c in checks(srt)]
    assert "q0 --~.L = 'A' ↑ ●--> q1 can fire, for example:" in lines
