"""An evaluator of the generated corpus's patterns that shares no code with :mod:`kleene.reference`.

Issue 28, item 3: the generated cases' expected match sets come from the
reference; this package confirms them from the papers' definitions again, with
its own tokenizer and condition interpreter (:mod:`.text`) and a naive
enumeration per language: SES (:mod:`.ses`, seed 000 Def. 2, seed 001 Def. 6),
operator patterns (:mod:`.operators`, seed 003 as docs/semantics.md section 12
defines them) and SREMO (:mod:`.sremo`, seed 004 report Defs. 17, 39, Cor. 43).
:mod:`.check` runs it over case files. No module here imports
:mod:`kleene.reference` or anything that does: ``lint-imports`` enforces it
(the ``independent`` contract in pyproject.toml).
"""
