"""The coverage tables of ``conformance/CASES.md``: tests per construct, policy and pair.

``python -m kleene.conformance.coverage`` prints, per language, how many tests
exercise each feature (policy or construct) and each pair of features, over
every engine-facing case file (hand-written and generated).
``python -m kleene.conformance.coverage --hand-written`` prints, per language
and feature label, how many *hand-written* tests (every file but the
``*-generated.json`` ones) need it, and marks the labels below
:data:`HAND_WRITTEN_FLOOR` (issue 28: every construct and policy has at least ten
tests whose expectations were computed by hand; ``tests/test_case_coverage.py``
holds the floor). A test counts for the features its query needs
(:meth:`kleene.engines.protocol.Query.features`).

``MATCH_RECOGNIZE`` answers tables, and its hand-computed tests are Kleene's own
sqllogictest file (``conformance/sqllogictest/kleene/``), not JSON cases: there a test is a
record holding ``MATCH_RECOGNIZE`` (a ``query`` or a ``statement``), and it counts for the
language's policy and the constructs of its statement (:func:`records_tally`, the labels
``kleene conform --sqllogictest`` reports per construct); a statement Kleene's parser
rejects counts for the policy only.
"""

from __future__ import annotations

import itertools
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from kleene.conformance.cases import CaseFile, iter_tests, load_case_files
from kleene.conformance.runner import needed_features, request_of
from kleene.conformance.sqllogictest import KLEENE_FILES
from kleene.conformance.sqllogictest.backend import LANGUAGE as RECORDS_LANGUAGE
from kleene.conformance.sqllogictest.reader import Query, Statement, expand, read_file
from kleene.conformance.sqllogictest.runner import constructs, files_in, holds_recognition
from kleene.reference.errors import KleeneError
from kleene.reference.languages import language_named
from kleene.reference.match_recognize.parser import parse_statement

#: The fewest hand-written tests each feature label of a language with hand-written
#: cases needs (issue 28, item 2).
HAND_WRITTEN_FLOOR = 10

#: The feature labels no pattern of a language's syntax can need, with the reason: Wayeb's
#: ``.sre`` files share SREMO's labels, but their grammar
#: (:mod:`kleene.reference.sremo.wayeb`) has no intersection and marks every sentence.
NOT_EXPRESSIBLE: dict[tuple[str, str], str] = {
    ("wayeb", "intersection"): "the .sre grammar has no intersection",
    ("wayeb", "unmarked"): "every .sre sentence is marked",
}


def generated(case_file: CaseFile) -> bool:
    """Whether ``case_file`` is drawn by ``kleene.conformance.corpus`` (its name ends in
    ``-generated.json``), not written by hand."""
    return case_file.name.endswith("-generated.json")


def tally(case_files: Iterable[CaseFile] | None = None,
          ) -> dict[str, tuple[int, Counter[str], Counter[tuple[str, str]]]]:
    """Per language: tests, tests per feature, tests per pair of features, over
    ``case_files`` (default: every engine-facing file)."""
    out: dict[str, tuple[int, Counter[str], Counter[tuple[str, str]]]] = {}
    files = load_case_files() if case_files is None else case_files
    for case, test in iter_tests(files):
        if test.check != "matches":
            continue
        n, single, pairs = out.setdefault(case.language, (0, Counter(), Counter()))
        labels = sorted({f.label for e in test.expectations()
                         for f in needed_features(request_of(case, test, e.reading))
                         if f.label})
        single.update(labels)
        pairs.update(itertools.combinations(labels, 2))
        out[case.language] = (n + 1, single, pairs)
    return out


def records_tally(paths: Iterable[str | Path] | None = None) -> tuple[int, Counter[str]]:
    """The ``MATCH_RECOGNIZE`` records of the sqllogictest files ``paths`` (files or folders;
    default: Kleene's own hand-computed ones) and how many use each feature label (the
    policy, and each construct of the statement Kleene's parser reads; module docstring)."""
    policy = language_named(RECORDS_LANGUAGE).default_policy
    n, single = 0, Counter[str]()
    for path in files_in([KLEENE_FILES] if paths is None else paths):
        for record in expand(read_file(path)):
            if not isinstance(record, Statement | Query) or not holds_recognition(record.sql):
                continue
            n += 1
            single[policy] += 1
            try:
                statement = parse_statement(record.sql, source=f"{record.file}:{record.line}")
            except KleeneError:
                continue
            single.update(constructs(statement))
    return n, single


def hand_written(case_files: Iterable[CaseFile] | None = None,
                 sqllogictest: Iterable[str | Path] | None = None,
                 ) -> dict[str, tuple[int, Counter[str]]]:
    """Per language with hand-written tests: among ``case_files`` (default: every
    engine-facing file), and ``MATCH_RECOGNIZE``'s records among the sqllogictest files
    ``sqllogictest`` (default: Kleene's own; none when empty): its hand-written tests, and how
    many of them need each of the language's feature labels (every label listed, 0
    included)."""
    files = load_case_files() if case_files is None else case_files
    counts: dict[str, tuple[int, Counter[str]]] = {
        language: (n, single)
        for language, (n, single, _) in tally(f for f in files if not generated(f)).items()}
    paths = None if sqllogictest is None else list(sqllogictest)
    if paths is None or paths:
        counts[RECORDS_LANGUAGE] = records_tally(paths)
    out = {}
    for language, (n, single) in sorted(counts.items()):
        labels = language_named(language).feature_labels()
        out[language] = (n, Counter({label: single[label] for label in labels}))
    return out


def thin(case_files: Iterable[CaseFile] | None = None,
         sqllogictest: Iterable[str | Path] | None = None) -> list[tuple[str, str, int]]:
    """``(language, label, tests)`` for every feature label with fewer hand-written
    tests than :data:`HAND_WRITTEN_FLOOR` (:func:`hand_written` of ``case_files`` and
    ``sqllogictest``), except those :data:`NOT_EXPRESSIBLE`."""
    return [(language, label, k)
            for language, (_, single) in hand_written(case_files, sqllogictest).items()
            for label, k in single.items()
            if k < HAND_WRITTEN_FLOOR and (language, label) not in NOT_EXPRESSIBLE]


def hand_written_markdown(case_files: Iterable[CaseFile] | None = None,
                          sqllogictest: Iterable[str | Path] | None = None) -> str:
    """The hand-written tests per language and feature label (:func:`hand_written` of
    ``case_files`` and ``sqllogictest``), as markdown."""
    lines = ["| language | feature | kind | hand-written tests |",
             "| --- | --- | --- | ---: |"]
    for language, (n, single) in hand_written(case_files, sqllogictest).items():
        lang = language_named(language)
        lines.append(f"| {language} | (all) | | {n} |")
        for label, k in single.items():
            why = NOT_EXPRESSIBLE.get((language, label))
            mark = (f" (not expressible: {why})" if why else
                    f" (below {HAND_WRITTEN_FLOOR})" if k < HAND_WRITTEN_FLOOR else "")
            lines.append(f"| {language} | {label} | {lang.feature_kind(label)} | {k}{mark} |")
    return "\n".join(lines)


def markdown() -> str:
    """The table as markdown: one section per language, a matrix of pairs."""
    lines = []
    for language, (n, single, pairs) in sorted(tally().items()):
        lang = language_named(language)
        labels = list(lang.feature_labels())
        lines += [f"**{language}** ({n} tests). Diagonal: tests needing the feature; "
                  "elsewhere: tests needing both.", "",
                  "| | " + " | ".join(labels) + " |",
                  "| --- | " + " | ".join("---:" for _ in labels) + " |"]
        for a in labels:
            row = [str(single[a]) if a == b else
                   str(pairs[(min(a, b), max(a, b))]) for b in labels]
            lines.append(f"| {a} | " + " | ".join(row) + " |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(hand_written_markdown() if "--hand-written" in sys.argv[1:] else markdown())
