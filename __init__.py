"""Kleene: a formally grounded reference and conformance suite for complex
event pattern matching.

Subpackages (docs/architecture.md, "Top-level folders"):

- :mod:`kleene.reference`   the language definitions, written for clarity;
- :mod:`kleene.engines`     optimized engines behind one protocol;
- :mod:`kleene.conformance` language-neutral cases, strategies, differential runner;
- :mod:`kleene.proofs`      Z3 encodings and properties.
"""

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """``kleene.match_recognize`` (:func:`kleene.engines.tables.match_recognize`), imported when
    first read: a plain ``import kleene`` (every ``kleene`` command) loads no DuckDB."""
    if name == "match_recognize":
        # lazy: DuckDB and the SQL reference only for the Python users who ask for them
        from kleene.engines.tables import match_recognize

        return match_recognize
    raise AttributeError(f"module 'kleene' has no attribute {name!r}")
