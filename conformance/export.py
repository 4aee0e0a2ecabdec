"""``kleene conform --export DIR``: the corpus as plain JSON for backends in any language.

Writes, into ``DIR``:

- ``tests.jsonl``: one JSON object per line and per (test, window reading):
  the ``run`` request a backend receives (``language``, ``pattern``,
  ``policy``, ``window``, ``time_unit``, ``events``) with the ``id`` of the
  test, the features it needs, and ``expected`` (``{"matches": [...]}`` or
  ``{"error": "<code>"}``);
- ``cases/*.json``: the case files themselves (``case.schema.json`` beside them, and
  ``VERSION``, the corpus version of conformance/CHANGELOG.md);
- ``FORMAT.md``: the one-page description of both (:data:`FORMAT`).

Nothing in ``DIR`` needs Kleene: compare your match sets with ``expected``
as sets of objects (variable → sorted positions).
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from kleene import __version__
from kleene.conformance.cases import case_directory, case_id, iter_tests, load_case_files
from kleene.conformance.runner import needed_features, request_of
from kleene.conformance.versioning import VERSION_FILE, corpus_version
from kleene.data.outputs import OutputError, reason, refuse_inputs, replacing

FORMAT = """# Kleene conformance corpus (exported by `kleene conform --export`, Kleene {version})

Corpus version {corpus} (`cases/VERSION`; Kleene's `conformance/CHANGELOG.md` says what
each version added, changed or removed). {count} tests ({lines} lines: a test pinning
both window readings gives one line per reading). No Kleene installation is needed to
use them.

## `tests.jsonl`: one test per line

```json
{{"id": "op-kleene/pattern-5.../any-gives...", "language": "operator",
 "pattern": "PATTERN SEQ(A a, B+ b[], C c) WITHIN 1 hour", "policy": "any",
 "window": "inclusive", "time_unit": "min",
 "events": [{{"ts": 0, "type": "A"}}, ...],
 "needs": ["operator", "operator:any", "operator:kleene"],
 "expected": {{"matches": [{{"a": [0], "b": [1], "c": [4]}}, ...]}}}}
```

- `language`: `ses` (seed 000/001), `operator` (SASE+, seed 003) or `sremo` (seed 004);
  the pattern is text in that language's syntax (docs/semantics.md of Kleene).
- `policy`: the selection policy; `window`: `inclusive` (max ts − min ts ≤ τ) or
  `strict` (< τ); `time_unit`: the unit of `ts` (`ms s min h d`, or `null`).
- `events`: the stream; each event has a numeric `ts` and attributes (strings,
  numbers, booleans, `null`). **Positions are 0-based indexes into `events`.**
- `needs`: the features a backend must support to run the test (the language,
  the policy, the pattern's constructs, `LANG:window-strict` for the strict
  reading). Skip a test whose needs you do not meet; never count it as passed.
- `expected`: either `{{"matches": [...]}}`: the exact set of matches, each an
  object mapping every bound variable to its positions in stream order (SREMO:
  the single variable `~` holds the marked positions); compare **as sets**, and
  a match reported twice is a failure; or `{{"error": CODE}}`: the query must be
  rejected with that stable code (`syntax`, `pattern`, `events`, `budget`).

## `cases/*.json`: the same tests, grouped

Each file has a `language`, a `description` and `cases`; each case a
`pattern`, `events`, `specification` (the paper sections it pins) and
`tests`; each test a `policy` and `matches` (or `readings`: the matches under
each window reading; or `error`). `case.schema.json` is the JSON Schema.
Files named `*-generated.json` were drawn by `conformance/corpus.py` (a fixed
seed, streams of up to 12 events), selected so that a backend answering no match
or every subset fails nearly all of them (a test expecting no match is a near
miss, and rare) and deduplicated, each expected set confirmed by a second,
independent route named in the test's description.
"""


def export(directory: Path) -> tuple[int, int]:
    """Write the corpus into ``directory`` (made if absent; a file there is refused, and
    so is a folder holding the packaged cases), each file through a temporary file
    renamed into place (:func:`kleene.data.outputs.replacing`); (tests, lines) written."""
    sources = [str(f) for f in case_directory().iterdir()]
    refuse_inputs(str(directory), sources, option="--export", folder=True)
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"--export {directory} is a file; name a folder")
    case_files = load_case_files()
    lines = 0
    ids = set()
    records = []
    for case, test in iter_tests(case_files):
        if test.check != "matches":
            continue
        ident = case_id(case, test)
        ids.add(ident)
        for expected in test.expectations():
            req = request_of(case, test, expected.reading)
            record = {"id": ident, **{k: v for k, v in req.message(0).items()
                                      if k not in ("cmd", "seq")},
                      "needs": sorted(map(str, needed_features(req))),
                      "expected": ({"error": expected.error} if expected.error is not None
                                   else {"matches": sorted(
                                       (dict(m.bindings) for m in expected.matches or ()),
                                       key=lambda m: json.dumps(m, sort_keys=True))})}
            records.append(json.dumps(record, ensure_ascii=False) + "\n")
            lines += 1
    cases = directory / "cases"
    try:
        cases.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"cannot write --export {directory}: {reason(err)}") from None
    _write(directory / "tests.jsonl", "".join(records))
    for f in case_directory().iterdir():
        if f.name.endswith(".json"):
            _write(cases / f.name, f.read_text("utf-8"))
    schema = files("kleene.conformance") / "case.schema.json"
    _write(cases / "case.schema.json", schema.read_text("utf-8"))
    _write(cases / VERSION_FILE, corpus_version() + "\n")
    _write(directory / "FORMAT.md", FORMAT.format(version=__version__, count=len(ids),
                                                  lines=lines, corpus=corpus_version()))
    return len(ids), lines


def _write(path: Path, text: str) -> None:
    """``text`` to ``path`` through a temporary file renamed into place."""
    with replacing(str(path), option="--export") as temporary, \
            open(temporary, "w", encoding="utf-8") as out:
        out.write(text)
