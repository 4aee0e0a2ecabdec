"""The coverage table of ``conformance/CASES.md``: tests per construct, policy and pair.

``python -m kleene.conformance.coverage`` prints, per language, how many tests
exercise each feature (policy or construct) and each pair of features, over
every engine-facing case file (hand-written and generated). A test counts for
the features its query needs (:meth:`kleene.engines.protocol.Query.features`).
"""

from __future__ import annotations

import itertools
from collections import Counter

from kleene.conformance.cases import iter_tests, load_case_files
from kleene.conformance.runner import needed_features, request_of
from kleene.reference.languages import language_named


def tally() -> dict[str, tuple[int, Counter[str], Counter[tuple[str, str]]]]:
    """Per language: tests, tests per feature, tests per pair of features."""
    out: dict[str, tuple[int, Counter[str], Counter[tuple[str, str]]]] = {}
    for case, test in iter_tests(load_case_files()):
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
    print(markdown())
