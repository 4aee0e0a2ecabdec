"""What several test files share (imported as ``tests.helpers``: pytest puts the
repository root on ``sys.path``, pyproject.toml): the worked example Q1, small event
builders, the ``kleene`` command and Spark harnesses, and the SES differential oracle.

Expected values stay in the tests; these only build inputs and run the code.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import lark
import pytest

from kleene.cli import main
from kleene.conformance.differential import reference_or_reject
from kleene.conformance.strategies import ses_patterns, streams
from kleene.data.columnar import Columns, columns_of
from kleene.engines import registry
from kleene.engines.protocol import Engine, Feature, Query, all_features
from kleene.engines.registry import engine, engine_names_for
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.match_recognize.ast import (
    Concat,
    Literal,
    MatchRecognize,
    Quantified,
    RowPattern,
)
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.semantics import _row_value
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.text import parse_ses

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "conformance" / "cases"

#: The SREMO case files.
SREMO_FILES = sorted(CASES.glob("sremo-*.json"))

#: Seed 000's Q1 (Fig. 1's treatments, Fig. 4's automaton), as its case file states it.
Q1 = parse_ses(json.loads((CASES / "ses-q1.json").read_text())["cases"][0]["pattern"])

# ---------------------------------------------------------------- events


def labelled(*rows: tuple[str, int]) -> Stream:
    """Events with label ``L`` at the given timestamps: ``labelled(("A", 0), ("B", 2))``."""
    return Stream.from_rows([{"ts": ts, "L": label} for label, ts in rows])


def letters(*types: str) -> Stream:
    """Events of the given types at timestamps 0, 1, 2, ..."""
    return Stream.from_rows([{"ts": i, "type": t} for i, t in enumerate(types)])


def typed_stream(*specs: str | tuple[str, float, Mapping[str, object]],
                 time_unit: str | None = None) -> Stream:
    """Events of a type (at ts = position), or ``(type, ts, attributes)``."""
    rows = []
    for i, spec in enumerate(specs):
        kind, ts, attrs = (spec, i, {}) if isinstance(spec, str) else spec
        rows.append({"ts": ts, "type": kind, **attrs})
    return Stream.from_rows(rows, time_unit=time_unit)


def m(**bindings: int | list[int]) -> Match:
    """A match from variables to a position or a list of positions."""
    return Match.of({v: [p] if isinstance(p, int) else p for v, p in bindings.items()})


def columnar(s: Stream) -> Stream:
    """``s`` held as Arrow columns (what the loaders build)."""
    return Stream.from_columns(columns_of(list(s)), s.time_unit)


class Cut:
    """A source read in batches (as ``kleene match --stream`` reads one) whose batches
    end at ``cuts`` (then every ``last`` rows): the columnar chain's pieces
    (engines/nfa/pieces.py) must not depend on where the batches end."""

    def __init__(self, stream: Stream, cuts: list[int], last: int = 7) -> None:
        self.columns = columns_of(stream.events)
        self.time_unit = stream.time_unit
        self.cuts, self.last = cuts, last
        self.sizes: list[int] = []

    def batches(self) -> Iterator[tuple[int, Columns]]:
        n, start = len(self.columns), 0
        sizes = iter(self.cuts)
        while start < n:
            stop = min(n, start + next(sizes, self.last))
            self.sizes.append(stop - start)
            yield start, self.columns.slice(start, stop)
            start = stop

    def __iter__(self) -> Iterator[Event]:
        for start, part in self.batches():
            yield from part.events(offset=start)


def claiming_engines(query: Query) -> list[str]:
    """Every registered engine that claims ``query`` (at least one)."""
    names = [n for n in engine_names_for(query.language)
             if query.features() <= engine(n).capabilities]
    assert names, query
    return names


def ulps(x: float, k: int) -> float:
    """``x`` moved ``k`` floats up (``k > 0``) or down: the edges of a window in floating
    point (docs/semantics.md, "Windows")."""
    for _ in range(abs(k)):
        x = math.nextafter(x, math.inf if k > 0 else -math.inf)
    return x


def rows(stream: Stream) -> list[tuple[object, ...]]:
    """Each event as ``(position, ts, type, attributes)``."""
    return [(e.position, e.ts, e.type, dict(e.attrs)) for e in stream]


def write(path: Path, text: str, *, gz: bool = False) -> Path:
    """Write ``text`` to ``path`` (gzip-compressed when ``gz``)."""
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def sremo_case_params() -> Iterator[Any]:
    """Every test of :data:`SREMO_FILES` expecting matches, under each window reading it
    pins, as ``pytest.param(case, test, reading, matches)`` (a test with ``readings`` once
    per reading; otherwise its ``reading``, default inclusive), named by its file and
    description (a rejected query's code is checked by tests/test_conformance_cases.py)."""
    for path in SREMO_FILES:
        data = json.loads(path.read_text())
        for case in data["cases"]:
            for test in case["tests"]:
                if "error" in test:
                    continue
                name = f"{path.stem}: {test['description']}"
                if "readings" in test:
                    for reading, matches in test["readings"].items():
                        yield pytest.param(case, test, reading, matches, id=f"{name} ({reading})")
                else:
                    yield pytest.param(case, test, test.get("reading", "inclusive"),
                                       test["matches"], id=name)

# ---------------------------------------------------------------- engines


@dataclass(frozen=True)
class _Claims:
    name: str
    capabilities: frozenset[Feature]


def claiming(capabilities: frozenset[Feature] | None = None) -> Engine:
    """An engine stub that claims ``capabilities`` (default: every feature) and nothing
    else: for what reads only an engine's claims (``plan_for``, ``require``)."""
    claims = all_features() if capabilities is None else capabilities
    return cast(Engine, _Claims("claims-everything", claims))

# ---------------------------------------------------------------- the kleene command


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``kleene ARGV`` in this process: its exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


#: What ``kleene match --spark`` and ``kleene stream`` say as Spark starts, before any
#: error Spark finds (cli/spark.py: ``say_if_small``, ``started_spark``).
SPARK_START = re.compile(r"kleene (match|stream): (starting Spark \(.*\)|Spark ready in "
                         r"\d+\.\d s|.* is .* MB; below .* MB one process matches faster .*)")


def after_spark_start(err: str) -> list[str]:
    """The lines of ``err`` but those of :data:`SPARK_START`."""
    return [line for line in err.splitlines() if not SPARK_START.fullmatch(line)]


def node_labels(g: Any) -> set[str]:
    """The labels of a picture's states (a networkx graph)."""
    return {d["label"] for _, d in g.nodes(data=True)}

# ---------------------------------------------------------------- Spark


@contextmanager
def small_jobs(spark: Any) -> Iterator[None]:
    """Adaptive query execution off: it re-plans after every tiny shuffle (0.4 s a job
    here instead of 0.15 s); the runner's results do not depend on it."""
    before = spark.conf.get("spark.sql.adaptive.enabled")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        yield
    finally:
        spark.conf.set("spark.sql.adaptive.enabled", before)


@contextmanager
def small_splits(spark: Any, size: int = 8192) -> Iterator[None]:
    """Files read in splits of ``size`` bytes: many partitions for a small file."""
    keys = ("spark.sql.files.maxPartitionBytes", "spark.sql.files.openCostInBytes")
    old = [spark.conf.get(k) for k in keys]
    for k in keys:
        spark.conf.set(k, str(size))
    try:
        yield
    finally:
        for k, v in zip(keys, old, strict=True):
            spark.conf.set(k, v)


def frame_of(spark: Any, cases: list[Stream], columns: tuple[str, ...]) -> Any:
    """One DataFrame of every stream: ``case`` names it, ``pos`` numbers its events."""
    found = [(k, e.position, e.ts, *(e.value(c) for c in columns))
             for k, s in enumerate(cases) for e in s]
    types = ", ".join(f"{c} {'string' if c in ('type', 'L') else 'bigint'}" for c in columns)
    return spark.createDataFrame(found, f"case int, pos bigint, ts bigint, {types}")

# ---------------------------------------------------------------- SES differential tests

#: Streams of at most 9 events keep the brute-force reference fast.
SES_STREAMS = streams(min_size=2, max_size=9)
SES_PATTERNS = ses_patterns(max_sets=3, max_vars=4)
#: SES patterns with ``LIKE`` properties (docs/ceql.md, "LIKE").
SES_LIKE_PATTERNS = ses_patterns(max_sets=3, max_vars=4, like=True)
SES_STEPS = 60_000


def ses_reference(pattern: SESPattern, stream: Stream, policy: str) -> set[Match]:
    """The reference result, or a rejected example when it would be too slow."""
    return reference_or_reject(pattern, stream, policy, steps=SES_STEPS)


def lit(value: None | bool | int | Decimal | float | str) -> Literal:
    """A MATCH_RECOGNIZE constant (ISO/IEC 9075-2 §5.3 <literal>) built by hand."""
    return Literal(value)


def seq(*items: RowPattern) -> Concat:
    """The row pattern ``p1 p2 …`` built by hand."""
    return Concat(items)


def rep(p: RowPattern, low: int, high: int | None = None, lazy: bool = False) -> Quantified:
    """``p{low,high}`` (``None``: unbounded), reluctant if ``lazy``, built by hand."""
    return Quantified(p, low, high, lazy)


def tiny_cases(tmp_path: Path) -> Path:
    """Three tests: good, bad (the first event says "bad"), good (tests/backends/misbehaving.py
    misbehaves on the bad one)."""
    rows = [{"ts": 0, "L": "A"}, {"ts": 1, "L": "B"}]
    doc = {"language": "ses", "description": "three tests", "cases": [{
        "description": "A then B", "specification": [{"seed": "000", "section": "Def. 2"}],
        "pattern": "PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5",
        "events": rows,
        "tests": [
            {"description": "first", "matches": [{"a": [0], "b": [1]}]},
            {"description": "second", "events": [{**rows[0], "bad": True}, rows[1]],
             "matches": [{"a": [0], "b": [1]}]},
            {"description": "third", "matches": [{"a": [0], "b": [1]}]}]}]}
    (tmp_path / "ses-tiny.json").write_text(json.dumps(doc))
    return tmp_path


# ---------------------------------------------------------------- docs/grammars.md

#: The page whose fenced ``lark`` blocks are the grammars of the pattern languages.
GRAMMARS = ROOT / "docs" / "grammars.md"

_BLOCK = re.compile(r"```lark\n(.*?)```", re.S)
_HEAD = re.compile(r"// (\S+)(?: \(uses: ([^)]*)\))?\n")


def grammar_blocks() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each fenced ``lark`` block of docs/grammars.md by the name its first line gives:
    its text and the blocks it uses (``// ses (uses: tokens, conditions)``)."""
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for block in _BLOCK.findall(GRAMMARS.read_text(encoding="utf-8")):
        head = _HEAD.match(block)
        assert head is not None, f"a lark block without its name line: {block[:60]!r}"
        uses = tuple(u.strip() for u in (head.group(2) or "").split(",") if u.strip())
        out[head.group(1)] = (block, uses)
    return out


def grammar_text(name: str) -> str:
    """The Lark grammar of block ``name`` with the blocks it uses, keywords ``"WORD"i``
    made whole words (``/WORD\\b/i``), as docs/grammars.md says."""
    blocks = grammar_blocks()
    order: list[str] = []

    def visit(block: str) -> None:
        for used in blocks[block][1]:
            visit(used)
        if block not in order:
            order.append(block)

    visit(name)
    text = "\n".join(blocks[b][0] for b in order)
    return re.sub(r'"([A-Za-z_]+)"i', r"/\1\\b/i", text)


@functools.cache
def grammar_parser(language: str) -> lark.Lark:
    """A parser built from the grammar of ``language`` in docs/grammars.md (Earley)."""
    return lark.Lark(grammar_text(language), start=language, parser="earley",
                     lexer="dynamic")


def grammar_accepts(language: str, text: str) -> bool:
    """Whether the grammar of ``language`` in docs/grammars.md derives ``text``."""
    try:
        grammar_parser(language).parse(text)
    except lark.exceptions.LarkError:
        return False
    return True


def first_key_floor(clause: MatchRecognize, names: tuple[str, ...],
                    rows: list[tuple[object, ...]], k: int) -> Any:
    """The first ``ORDER BY`` key of row ``k`` of a partition ``rows``: no row from ``k``
    on sorts below it (ascending keys only; ``None`` otherwise, or past the end, or a NULL
    key), the floor a stream's finality reads."""
    if k >= len(rows) or not clause.order_by or clause.order_by[0].descending:
        return None
    columns = {n.upper(): i for i, n in enumerate(names)}
    return _row_value(clause.order_by[0].expr, rows[k], columns)


def clause_of(sql: str) -> MatchRecognize:
    """The clause of the one ``MATCH_RECOGNIZE`` of the statement ``sql``."""
    return parse_statement(sql).recognitions[0].clause


def unregistered(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Take the engine ``name`` out of the registry for one test (its module stays
    imported, so it is not registered again): a query only it claims then falls back on
    the reference, as a query no engine claims does."""
    engine(name)
    monkeypatch.delitem(registry._REGISTRY, name)
