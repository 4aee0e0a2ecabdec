"""The engine registry: engines found by name (docs/architecture.md, "Engines").

The backend is chosen in one place and fails loudly: :func:`engine` imports a
built-in engine's module when it is first asked for (:data:`BUILTIN_ENGINES`)
and raises :class:`UnknownEngine` naming the choices; :func:`fastest_engine`
picks, among the engines that claim a query exactly
(:func:`~kleene.engines.protocol.claims`), the first of :data:`PREFERENCE`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kleene.engines.protocol import Engine, Query, claims
from kleene.reference.errors import KleeneError, Unsupported


class UnknownEngine(KleeneError):
    """No engine is registered under the name asked for."""

    code = "engine"


#: The built-in engines: for each module that registers engines when imported,
#: the languages its engines run and the names it registers. An engine's module
#: is imported when the engine is first asked for (``kleene match --engine
#: windows+ses`` imports no NFA, SRT or Spark module); a query is offered only
#: to the engines of its language. A new family is one folder under
#: ``engines/`` and one line here (tests/test_engines_protocol.py checks each
#: line against what its module registers and claims).
BUILTIN_ENGINES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("kleene.engines.windows.engine", ("ses",),
     ("windows+ses", "windows-plain+ses", "windows-f+ses", "windows-fp+ses", "windows-fc+ses",
      "windows-fpc+ses", "windows+ses-bruteforce", "windows+ses-earliest", "windows-paper+ses")),
    ("kleene.engines.ses.run", ("ses",),
     ("ses-automaton", "ses-automaton-unfiltered", "ses-automaton-paper-filter",
      "ses-automaton-faithful")),
    ("kleene.engines.ses.contiguous", ("ses",), ("ses-contiguous",)),
    ("kleene.engines.ses.next_literal", ("ses",), ("ses-next-literal",)),
    ("kleene.engines.ses.bruteforce", ("ses",), ("ses-bruteforce", "ses-bruteforce-paper")),
    ("kleene.engines.nfa.engine", ("operator",),
     ("nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree")),
    ("kleene.engines.srt.run", ("sremo", "wayeb", "ceql"), ("srt", "srt-faithful")),
    ("kleene.engines.srt.dsrt", ("sremo", "wayeb", "ceql"), ("dsrt",)),
    ("kleene.engines.ceql.selection", ("ceql",), ("srt+selection",)),
    ("kleene.engines.match_recognize.engine", ("match_recognize",), ("match-recognize",)),
)

#: Engine name → (its module, the languages it runs), from :data:`BUILTIN_ENGINES`.
_BUILTIN: dict[str, tuple[str, tuple[str, ...]]] = {
    name: (module, languages) for module, languages, names in BUILTIN_ENGINES for name in names}

_REGISTRY: dict[str, Callable[[], Engine]] = {}


def register(name: str, factory: Callable[[], Engine]) -> None:
    """Register ``factory`` (a callable returning a fresh engine) under ``name``."""
    known = _REGISTRY.get(name)
    if known is not None and known.__module__ != factory.__module__:
        raise ValueError(f"an engine named {name!r} is already registered by {known.__module__}")
    _REGISTRY[name] = factory


def _import(modules: Iterable[str]) -> None:
    for module in modules:
        importlib.import_module(module)


def engine_names() -> tuple[str, ...]:
    """The names of all registered engines, sorted (every built-in module imported)."""
    _import(module for module, _, _ in BUILTIN_ENGINES)
    return tuple(sorted(_REGISTRY))


def engine_names_for(language: str) -> tuple[str, ...]:
    """The registered engines that may run patterns of ``language``, sorted: the
    built-in ones of that language (only their modules are imported) and every
    engine registered from elsewhere."""
    _import(module for module, languages, _ in BUILTIN_ENGINES if language in languages)
    return tuple(sorted(n for n in _REGISTRY if n not in _BUILTIN or language in _BUILTIN[n][1]))


def engine(name: str) -> Engine:
    """A fresh engine registered as ``name``, its module imported on first use;
    :class:`UnknownEngine` lists the choices."""
    if name not in _REGISTRY and name in _BUILTIN:
        importlib.import_module(_BUILTIN[name][0])
    if name not in _REGISTRY and name not in engine_names():
        raise UnknownEngine(f"no engine named {name!r}; registered engines: "
                            f"{', '.join(sorted(_REGISTRY)) or '(none)'}")
    return _REGISTRY[name]()


@dataclass(frozen=True)
class Choice:
    """The engine picked for a query, and why (said on stderr by ``kleene match``)."""

    name: str
    reason: str
    others: tuple[str, ...] = field(default=())


#: Engine names in order of preference when several claim a query exactly
#: (fastest first, measured by ``python -m bench``); engines not listed come
#: after these, in name order, and the reference last.
PREFERENCE: tuple[str, ...] = ("windows+ses", "ses-automaton", "ses-contiguous",
                               "windows+ses-earliest", "ses-next-literal", "nfa-chain",
                               "nfa-multichain", "nfa-tree", "srt", "srt+selection")


def fastest_engine(query: Query) -> Choice | None:
    """The preferred registered engine that claims ``query`` exactly, or ``None``
    when no engine does (then only the reference computes it)."""
    names = engine_names_for(query.language)
    ordered = [n for n in PREFERENCE if n in names] + [n for n in names if n not in PREFERENCE]
    able = [n for n in ordered if claims(engine(n), query)]
    if not able:
        return None
    needed = ", ".join(sorted(map(str, query.features())))
    return Choice(able[0], f"the fastest engine that claims {needed}", tuple(able[1:]))


#: The engine pictures and traces show unless told (``kleene draw``/``trace``,
#: :func:`kleene.draw`/:func:`kleene.trace`): seed 000's SES automaton (Def. 4), whose runs
#: the paper draws (Fig. 6), where it claims the query.
PICTURED = "ses-automaton"


def pictured_engine(query: Query) -> str:
    """The engine a picture or a trace of ``query`` shows unless told: :data:`PICTURED`
    where it claims the query, else the fastest engine that does; one line when none does."""
    if claims(engine(PICTURED), query):
        return PICTURED
    choice = fastest_engine(query)
    if choice is None:
        raise Unsupported(f"no registered engine compiles this {query.lang.title} pattern "
                          f"under policy {query.policy}")
    return choice.name
