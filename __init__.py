"""Kleene: a formally grounded reference and conformance suite for complex
event pattern matching.

Subpackages (docs/architecture.md, "Top-level folders"):

- :mod:`kleene.reference`   the language definitions, written for clarity;
- :mod:`kleene.engines`     optimized engines behind one protocol;
- :mod:`kleene.conformance` language-neutral cases, strategies, differential runner;
- :mod:`kleene.proofs`      Z3 encodings and properties.
"""

__version__ = "0.1.0"
