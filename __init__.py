"""Kleene: a formally grounded reference and conformance suite for complex
event pattern matching.

In Python (docs/python.md), ``import kleene`` gives the few names a user needs,
each imported when first read (a plain ``import kleene``, as every ``kleene``
command does, loads no engine, Arrow, DuckDB or Spark):

- ``kleene.parse(text)``: a pattern's text as the one ``Query`` every door decides;
- ``kleene.load_events(path_or_table)``: events from a file, an Arrow table, a pandas
  DataFrame or mappings;
- ``kleene.match(pattern, events)``: the matches as a table, a row per match, variable
  and event with the event's attributes (Arrow, or pandas for pandas input; Spark for a
  Spark DataFrame); a ``MATCH_RECOGNIZE`` statement answers its own table;
- ``kleene.find_matches(pattern, events)``: the canonical matches (positions);
- ``kleene.count_matches(pattern, events)``: their number (SES under ``any``: without
  listing them); ``kleene.first_matches(pattern, events, k)``: the first k by last event;
- ``kleene.draw(pattern)``, ``kleene.trace(pattern, events)``: the automaton's picture and
  a run step by step, shown inline by a notebook;
- ``kleene.match_recognize(data, sql)``: a ``MATCH_RECOGNIZE`` statement's table.

Subpackages (docs/architecture.md, "Top-level folders"):

- :mod:`kleene.reference`   the language definitions, written for clarity;
- :mod:`kleene.engines`     optimized engines behind one protocol;
- :mod:`kleene.conformance` language-neutral cases, strategies, differential runner;
- :mod:`kleene.proofs`      Z3 encodings and properties.
"""

import importlib

# The names' own types, for mypy and editors, are in __init__.pyi (an import here, even
# under TYPE_CHECKING, would put every floor above the one that imports `kleene`).

__version__ = "0.1.0"

#: The names of :mod:`kleene.api` ``import kleene`` offers, and ``match_recognize``.
_API = ("parse", "load_events", "match", "find_matches", "count_matches", "first_matches",
        "draw", "trace")

__all__ = ["count_matches", "draw", "find_matches", "first_matches", "load_events", "match",
           "match_recognize", "parse", "trace"]


def __getattr__(name: str) -> object:
    """A name of :mod:`kleene.api` (or ``match_recognize``,
    :func:`kleene.engines.tables.match_recognize`), imported when first read."""
    if name in _API:
        return getattr(importlib.import_module("kleene.api"), name)
    if name == "match_recognize":
        return importlib.import_module("kleene.engines.tables").match_recognize
    raise AttributeError(f"module 'kleene' has no attribute {name!r}")

