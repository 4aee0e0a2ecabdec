"""Each language's ``kleene prove`` report, found through the language registry.

A language names its report in its registry entry (``hooks["prove"]``,
:func:`kleene.reference.languages.hook`): SES patterns (:data:`SES`, seed 000
Sec. 4 and seed 001 Thm 2; :mod:`.ses.report`), operator patterns
(:data:`OPERATOR`, seed 003; :mod:`.nfa.report`) and SREMO expressions, Wayeb's
files included (:data:`SREMO`, seed 004; :mod:`.srt.report`). A language with
none gets :data:`AUTOMATON_ONLY`: the language-neutral checks of the automaton of
the fastest engine that claims the query (:func:`kleene.proofs.automata.checks`).

A report turns the :class:`~kleene.reference.query.Query` the door built and the
:class:`ProofOptions` the user gave into checks, yielded as each is decided; what
it says before the checks (the schema, the bound) goes through ``options.say``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TypedDict, cast

from kleene.engines.registry import engine, fastest_engine
from kleene.engines.srt.compile import compile_sremo
from kleene.proofs.automata import checks
from kleene.proofs.nfa.classes import schema_of as operator_schema
from kleene.proofs.nfa.equivalence import BOUND as NFA_BOUND
from kleene.proofs.nfa.report import SECTIONS as OPERATOR_SECTIONS
from kleene.proofs.nfa.report import prove as prove_operator
from kleene.proofs.results import Check
from kleene.proofs.schema import attributes, in_timestamp_units, schema_for, timestamp_unit
from kleene.proofs.ses.report import SECTIONS as SES_SECTIONS
from kleene.proofs.ses.report import prove as prove_ses
from kleene.proofs.ses.witnesses import BOUND as SES_BOUND
from kleene.proofs.srt.clocks import in_units, time_windows
from kleene.proofs.srt.report import SECTIONS as SREMO_SECTIONS
from kleene.proofs.srt.report import bound_for
from kleene.proofs.srt.report import prove as prove_sremo
from kleene.proofs.srt.satisfiability import BOUND as SREMO_BOUND
from kleene.proofs.srt.symbolic import schema_of as sremo_schema
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream
from kleene.reference.operators.pattern import OperatorPattern
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.sremo.expressions import Expr
from kleene.reference.sremo.features import EXPRESSION_TYPES

#: The section of the language-neutral checks of the fastest engine's automaton.
AUTOMATON = "automaton"


class SchemaSources(TypedDict):
    """Where a schema's sorts come from (the schema functions' keyword arguments)."""

    declared: dict[str, str]
    stream: Stream | None
    required: tuple[str, ...]


@dataclass
class ProofOptions:
    """What the user said about the proofs (``kleene prove``'s options).

    ``sorts`` are the declared ``(attribute, sort)`` pairs; ``events`` reads the
    first rows of ``--events`` when a schema needs them (``None``: no file);
    ``time_unit`` is the timestamps' unit, and a report that takes it from the
    pattern's window sets it here for the header; ``bound`` ``None`` is the
    language's default.
    """

    sorts: list[tuple[str, str]] = field(default_factory=list)
    events: Callable[[], Stream] | None = None
    time_unit: str | None = None
    no_missing: bool = False
    bound: int | None = None
    timeout: float = 10
    say: Callable[[str], None] = print

    @property
    def timeout_ms(self) -> int:
        return int(1000 * self.timeout)

    def unit_note(self) -> str:
        """The header's note of the timestamps' unit, if any."""
        return f"; ts in {self.time_unit}" if self.time_unit else ""

    def unit_less(self, windows: Sequence[Duration]) -> list[Duration]:
        """``windows`` in timestamp units (:func:`~kleene.proofs.schema.timestamp_unit`);
        the unit chosen is kept in ``time_unit``. A unit taken from the window makes
        ``ts`` real unless declared (every finer unit is a fraction of it: integer hours
        would forbid three increasing timestamps in WITHIN 1 hour)."""
        if self.time_unit is None and any(w.unit for w in windows) and not any(
                a == "ts" for a, _ in self.sorts):
            self.sorts.append(("ts", "real"))
        self.time_unit = timestamp_unit(windows, self.time_unit)
        return [in_timestamp_units(w, self.time_unit) for w in windows]

    def schema_sources(self, names: Iterable[str]) -> SchemaSources:
        """The schema's sources the options name: sorts, events, required attributes
        (the keyword arguments of every language's schema function)."""
        return {"declared": dict(self.sorts),
                "stream": self.events() if self.events else None,
                "required": tuple(names) if self.no_missing else ()}


@dataclass(frozen=True)
class ProofReport:
    """A language's report: its sections, in order, and how to run the wanted ones."""

    sections: tuple[str, ...]
    run: Callable[[Query, ProofOptions, Sequence[str]], Iterator[Check]]

    def wanted(self, asked: Sequence[str] | None) -> Sequence[str]:
        """The sections to run: those asked for (one line naming the choices when one is
        not this language's), else all but the automaton's generic checks."""
        if not asked:
            return [x for x in self.sections if x != AUTOMATON]
        unknown = [c for c in asked if c not in self.sections]
        if unknown:
            raise PatternError(f"no section {', '.join(unknown)} for this language; choose "
                               f"from {', '.join(self.sections)}")
        return list(asked)


def automaton_checks(query: Query, options: ProofOptions) -> Iterator[Check]:
    """The language-neutral checks of the automaton of the engine that runs ``query``."""
    choice = fastest_engine(query)
    if choice is None:
        raise PatternError(f"kleene prove checks an automaton, and no registered engine "
                           f"compiles {query.lang.title} yet")
    compiled = engine(choice.name).compile(query)
    guards = [t.guard for t in compiled.iter_transitions()]
    schema = schema_for(guards, declared=dict(options.sorts),
                        stream=options.events() if options.events else None)
    options.say(f"engine {choice.name}; schema {schema}")
    return checks(compiled, schema=schema, timeout_ms=options.timeout_ms)


def _ses(query: Query, options: ProofOptions, wanted: Sequence[str]) -> Iterator[Check]:
    pattern = query.pattern
    assert isinstance(pattern, SESPattern)
    pattern = replace(pattern, window=options.unit_less([pattern.window])[0])
    bound = SES_BOUND if options.bound is None else options.bound
    if bound < 1:
        raise PatternError("--bound must be at least 1")
    names = attributes(pattern.conditions) | {"ts"}
    schema = schema_for(pattern.conditions, pattern.window, **options.schema_sources(names))
    options.say(f"schema {schema}{options.unit_note()}; bound {bound}")
    return prove_ses(pattern, schema=schema, bound=bound, sections=wanted,
                     timeout_ms=options.timeout_ms)


def _operator(query: Query, options: ProofOptions, wanted: Sequence[str]) -> Iterator[Check]:
    pattern = query.pattern
    assert isinstance(pattern, OperatorPattern)
    if pattern.window is not None:
        pattern = replace(pattern, window=options.unit_less([pattern.window])[0])
        query = replace(query, pattern=pattern)
    schema = operator_schema(pattern, **options.schema_sources(
        attributes(pattern.conditions) | {"ts"}))
    bound = NFA_BOUND if options.bound is None else options.bound
    options.say(f"schema {schema}{options.unit_note()}; bound {bound}")
    yield from prove_operator(pattern, schema=schema, bound=bound, sections=wanted,
                              timeout_ms=options.timeout_ms)
    if AUTOMATON in wanted:
        yield from automaton_checks(query, options)


def _sremo(query: Query, options: ProofOptions, wanted: Sequence[str]) -> Iterator[Check]:
    assert isinstance(query.pattern, EXPRESSION_TYPES)
    e = cast(Expr, query.pattern)
    options.unit_less(time_windows(e))
    e = in_units(e, options.time_unit)
    query = replace(query, pattern=e)
    a = compile_sremo(e)
    guards = [c for edge in a.edges for c in (edge.guard, *edge.unless)]
    schema = sremo_schema(a, **options.schema_sources(attributes(guards) | {"ts"}))
    bound = SREMO_BOUND if options.bound is None else options.bound
    options.say(f"schema {schema}{options.unit_note()}; bound {bound_for(e, bound)}")
    yield from prove_sremo(e, schema=schema, bound=bound, sections=wanted,
                           timeout_ms=options.timeout_ms)
    if AUTOMATON in wanted:
        yield from automaton_checks(query, options)


def _automaton_only(query: Query, options: ProofOptions,
                    wanted: Sequence[str]) -> Iterator[Check]:
    return automaton_checks(query, options)


SES = ProofReport(SES_SECTIONS, _ses)
OPERATOR = ProofReport((*OPERATOR_SECTIONS, AUTOMATON), _operator)
SREMO = ProofReport((*SREMO_SECTIONS, AUTOMATON), _sremo)
#: The report of a language with no proofs of its own.
AUTOMATON_ONLY = ProofReport((AUTOMATON,), _automaton_only)
