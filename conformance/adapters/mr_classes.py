"""Why a peer fails a ``MATCH_RECOGNIZE`` record: the classification of ``make peers``'
failures (issue 30, item 3), by rules on the engine, the record's constructs and the
engine's message.

A class is one of:

- ``engine bug``: the engine answers other rows than the standard's (ISO/IEC 9075-2:2016
  §7.6 and ISO/IEC TR 19075-5) or fails on a query the standard defines, and no vendor
  document says it chose so;
- ``documented limitation``: the engine's documentation says it does not support the
  construct (cited), so an error or a wrong answer there is its documented choice;
- ``engine limitation``: the engine rejects a standard construct with an error its
  documentation does not list;
- ``documented engine choice``: the construct is the engine's own extension (not the
  standard's) and the engine reads it otherwise than Kleene's reference;
- ``adapter limit``: the adapter cannot say the query in the engine's dialect;
- ``no verdict``: the reference gives no answer to compare (a drawn query with an output
  of no column);
- ``order among ties``: a wrong answer over rows that tie on the order (no verdict: the
  standard leaves their order open);
- ``disagrees with the reference``: a drawn recognition answered otherwise than Kleene's
  reference, shrunk, not yet read by hand;
- ``no answer in time``; ``unclassified``: an error no rule explains yet.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kleene.conformance.adapters.mr_generated import order_ties
from kleene.conformance.adapters.mr_repro import (
    in_other_variable,
    inner_star_next_row,
    leading_zero,
    like_defined,
    logical_offset,
    optional_then_lazy_star,
    parsed,
    within_boundary,
)
from kleene.conformance.adapters.mr_suite import Verdict
from kleene.conformance.sqllogictest.reader import read_file
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.ast import (
    Between,
    Binary,
    Concat,
    InList,
    IsNull,
    Like,
    MatchRecognize,
    Quantified,
    Unary,
)
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.parser import parse_statement

#: The words of a wrong answer (other rows than expected) in a verdict's reason.
WRONG_WORDS = (r"rows where|row \d+, column \d+: got|rows missing|rows extra|"
               r"columns .* where .* are expected|answered a table where|"
               r"succeeded where an error is expected")

#: A wrong answer that only misses rows (none extra).
MISSING = r"\d+ rows where \d+ are expected|^\d+ rows missing$"
#: The reference's errors for a skip the standard forbids, as a verdict says them.
SKIP_ERRORS = r"(raises|an error is expected).*(skip-to-first-row|skip-to-unmapped-variable)"
#: Flink's documentation of ``MATCH_RECOGNIZE``.
FLINK_DOCS = ("Flink SQL documentation, *Pattern Recognition* (nightlies.apache.org/flink/"
              "flink-docs-stable/docs/dev/table/sql/queries/match_recognize/)")
#: Flink's documentation of ``MATCH_RECOGNIZE``, section "Known Limitations".
FLINK_LIMITS = ("Flink SQL documentation, *Pattern Recognition*, \"Known Limitations\" "
                "(nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/"
                "match_recognize/#known-limitations)")


@dataclass(frozen=True)
class Rule:
    """Failures of ``engine`` (a prefix of the run's name: ``flink`` is both modes) whose
    record uses ``feature`` (any, when empty) and whose reason matches ``message`` (any,
    when empty) are ``cls``, for ``why``."""

    engine: str
    feature: str
    message: str
    cls: str
    why: str
    #: a pattern the record's statement (or the drawn one's) must hold (any, when empty)
    sql: str = ""
    #: what one of the statement's clauses must be (any, when ``None``)
    clause: Callable[[MatchRecognize], bool] | None = None
    #: what a drawn failure's shrunk reproduction must hold (:mod:`.mr_repro`; any, when
    #: ``None``; a record without one never holds it)
    rows: Callable[[str], bool] | None = None

    def holds(self, engine: str, v: Verdict) -> bool:
        return (engine.startswith(self.engine)
                and (not self.feature or self.feature in v.features)
                and (not self.message or re.search(self.message, v.reason) is not None)
                and (not self.sql or re.search(self.sql, statement(v), re.IGNORECASE)
                     is not None)
                and (self.clause is None or any(map(self.clause, clauses(v))))
                and (self.rows is None or bool(v.reproduction) and self.rows(v.reproduction)))


def clauses(v: Verdict) -> list[MatchRecognize]:
    """The clauses of ``v``'s statement (none where it does not parse)."""
    text = statement(v).split("\n-- table t (")[0]
    try:
        return [r.clause for r in parse_statement(text).recognitions]
    except KleeneError:
        return []


def boolean_measure(clause: MatchRecognize) -> bool:
    """Whether a measure of ``clause`` is a predicate (its value a truth value)."""
    return any(isinstance(m.expr, (IsNull, Like, Between, InList))
               or isinstance(m.expr, Binary) and m.expr.op in PREDICATES
               or isinstance(m.expr, Unary) and m.expr.op == "NOT" for m in clause.measures)


def greedy_before_more(clause: MatchRecognize) -> bool:
    """Whether ``clause``'s pattern has a greedy quantifier of variable length (``*``,
    ``+``, ``{m,n}`` with m < n) followed by more of the pattern."""
    p = clause.pattern
    return isinstance(p, Concat) and any(
        isinstance(q, Quantified) and not q.reluctant and q.high != q.low
        for q in p.items[:-1])


def not_equal_defined(clause: MatchRecognize) -> bool:
    """Whether a ``DEFINE`` condition of ``clause`` compares with ``<>`` (SQL's not-equal,
    which pandas-match-recognize's condition evaluator does not parse)."""
    return any(isinstance(e, Binary) and e.op == "<>"
               for d in clause.defines for e in walk(d.condition))


#: The binary operators whose value is a truth value.
PREDICATES = ("=", "<>", "<", "<=", ">", ">=", "AND", "OR")


@functools.cache
def _records(path: str) -> dict[int, str]:
    root = Path(__file__).resolve().parents[2]
    return {r.line: getattr(r, "sql", "") for r in read_file(root / path)}


def statement(v: Verdict) -> str:
    """The statement of ``v``: its record's SQL (``file:line`` of a sqllogictest file of
    the repository), or a drawn one's reproduction."""
    if v.reproduction:
        return v.reproduction
    path, _, line = v.where.rpartition(":")
    try:
        return _records(path).get(int(line), "")
    except (OSError, ValueError, KleeneError):
        return ""


#: Flink's greedy quantifier, read by hand (Kleene's file and drawn recognitions).
GREEDY = ("a greedy quantifier keeps every row its variable accepts and never gives one back "
           "to the rest of the pattern: X+ Y (or A* B) over rows both variables accept finds "
           "no match where the standard's greedy quantifier prefers the most rows with which "
           "the pattern still matches (ISO/IEC TR 19075-5:2016 §4.7, preferment; ISO/IEC "
           "9075-2 §7.6); read by hand on Kleene's file, 2026-11-28: A* B with A TRUE over "
           "rows a..b answers nothing where the standard matches all of them; Flink's CEP "
           "takes greedy as 'repeat as many as possible' (FLINK-7147) and FLINK-10587 "
           "(greedy/reluctant support, open) lists what it lacks; read by hand on a drawn "
           "one (session 9's #f444): PATTERN (B D* A) WITHIN INTERVAL '7' SECOND, B at 15 s, "
           "D accepting the rows at 18 and 28 s and A the one at 18: the standard gives D's "
           "rows back (B 15, A 18, 3 s apart), Flink answers no match there")


#: The rules, first match wins (filled from real runs: docs/peers.md).
RULES: tuple[Rule, ...] = (
    Rule("", "", r"an output of no column", "no verdict",
         "ONE ROW PER MATCH with neither PARTITION BY nor MEASURES: the reference refuses an "
         "output of no column (an SQL table has one or more); an engine's empty answer is "
         "not wrong"),
    Rule("flink", "", r"MATCH_NUMBER\(\)", "documented limitation",
         f"MATCH_NUMBER() is not implemented; {FLINK_LIMITS} lists the standard's functions "
         "Flink lacks"),
    Rule("flink", "all-rows", "", "documented limitation",
         f"ALL ROWS PER MATCH: {FLINK_LIMITS}, \"ALL ROWS PER MATCH output mode\""),
    Rule("flink", "", r"Cannot use PREV/NEXT in MEASURE|physical offsets",
         "documented limitation", f"physical offsets (PREV/NEXT) in MEASURES: {FLINK_LIMITS}"),
    Rule("flink", "skip-to-variable", SKIP_ERRORS, "engine bug",
         "AFTER MATCH SKIP TO FIRST/LAST v resumes at the match's first row or at a variable "
         "no row is mapped to: ISO/IEC 9075-2:2016 §7.6 makes that an exception, and so does "
         f"Flink's own documentation ({FLINK_DOCS}, \"After Match Strategy\": \"a runtime "
         "exception will be thrown\"); Flink answers rows instead"),
    Rule("", "skip-to-variable", SKIP_ERRORS, "engine bug",
         "AFTER MATCH SKIP TO FIRST/LAST v resumes at the match's first row or at a variable "
         "no row is mapped to, which ISO/IEC 9075-2:2016 §7.6 makes an exception; the engine "
         "answers rows instead"),
    Rule("flink", "", WRONG_WORDS, "documented limitation",
         f"PREV/NEXT see only the match's own rows in Flink (physical offsets over all rows "
         f"are unsupported: {FLINK_LIMITS}, \"Physical offsets\"), so a PREV reaching before "
         "the match's first row is NULL where the standard reads the partition's row",
         sql=r"\b(PREV|NEXT)\s*\("),
    Rule("flink", "", r"Unknown field '\*'", "engine limitation",
         "COUNT(A.*) (ISO/IEC 9075-2 §7.6: a row pattern variable's rows counted) is rejected "
         "at validation"),
    Rule("flink", "", r"Encountered \"(OMIT|WITH|SHOW)\"", "documented limitation",
         f"only ONE ROW PER MATCH parses; {FLINK_LIMITS}"),
    Rule("flink", "", r"The from should be a positive number", "engine limitation",
         "a quantifier {0} or {0,0} (the standard's empty repetition) fails at run time "
         "in Flink's CEP library instead of matching the empty sequence"),
    Rule("flink", "", r"Encountered \"\)\"", "documented limitation",
         "the parser stops at a `)`: a clause without DEFINE or with the empty pattern "
         "PATTERN (()); Flink's grammar (*Queries* overview, nightlies.apache.org/flink/"
         "flink-docs-stable/docs/dev/table/sql/queries/overview/) requires `DEFINE variable "
         "AS condition [, ...]` (as Oracle's does: docs/errata.md, mr-missing-define) and "
         "makes a pattern factor a variable"),
    Rule("flink", "", r"Pattern variables must be unique", "engine limitation",
         "a variable used twice in the pattern is rejected (\"That might change in the "
         "future\")"),
    Rule("flink", "permute", "", "documented limitation",
         f"PERMUTE: {FLINK_LIMITS}"),
    Rule("flink", "subset", "", "documented limitation", f"SUBSET: {FLINK_LIMITS}"),
    Rule("flink", "alternation", "", "documented limitation",
         f"alternation: {FLINK_LIMITS}, \"Alterations\""),
    Rule("flink", "anchor", "", "documented limitation", f"anchors ^ $: {FLINK_LIMITS}"),
    Rule("flink", "exclusion", "", "documented limitation", f"exclusion {{- -}}: {FLINK_LIMITS}"),
    Rule("flink", "running", "", "documented limitation",
         f"RUNNING vs. FINAL semantics: {FLINK_LIMITS}"),
    Rule("flink", "final", "", "documented limitation",
         f"RUNNING vs. FINAL semantics: {FLINK_LIMITS}"),
    Rule("flink", "distinct", "", "documented limitation",
         f"distinct aggregations: {FLINK_LIMITS}"),
    Rule("flink", "within", WRONG_WORDS, "documented engine choice",
         "a match spanning exactly the WITHIN interval (two rows of a partition of the shrunk "
         "table are the interval apart) is dropped by Flink and kept by Kleene's reference, "
         "so Flink finds other matches there (rows extra) or none; WITHIN is Flink's "
         "extension, not SQL:2016, and its reading Flink's own (read by hand 2026-11-28: "
         "PATTERN (D? B) WITHIN INTERVAL '1' SECOND over rows at 9, 10, 15, 19, 25 and 26 s, "
         "every row a B: the reference's D B over 9-10 and over 25-26, Flink's B alone at "
         "9, 10, 25 and 26, two rows more)", rows=within_boundary),
    Rule("flink", "within", MISSING, "engine bug", GREEDY, clause=greedy_before_more,
         rows=lambda text: not within_boundary(text)),
    Rule("flink", "within", WRONG_WORDS, "disagrees with the reference",
         "a drawn recognition with WITHIN that Flink answers otherwise though no two rows "
         "of a partition of its shrunk table lie the interval apart: not Flink's reading "
         "at the boundary; not yet read by hand",
         rows=lambda text: not within_boundary(text)),
    Rule("flink", "within", MISSING, "documented engine choice",
         "a match spanning exactly the WITHIN interval is dropped: Flink's CEP times a "
         "partial match out once a row is the interval or more after its first, where "
         "Kleene's reference keeps a row the interval after (reference/match_recognize/"
         "semantics.py, within_bound); WITHIN is Flink's extension, not SQL:2016, so its "
         "reading is Flink's own (read by hand 2026-11-28: A+ B over rows 7 and 8 WITHIN "
         "INTERVAL '1' SECOND answers nothing, over 70 and 80 WITHIN '10' SECOND likewise)"),
    Rule("flink", "", r"while converting FINAL", "engine limitation",
         "a measure holding [NOT] IN fails in the planner (`RuntimeException: while "
         "converting FINAL ...`), an internal error, not a documented limit (by hand, "
         "Flink 2.3.0, 2026-11-28: MEASURES A.X IN (1, 2), A.X IN (1, B.X) and A.X NOT IN "
         "(A.X) each fail so)"),
    Rule("flink", "", r"Optional pattern cannot be preceded by greedy pattern",
         "engine limitation",
         "Flink's CEP library rejects an optional variable after a greedy one "
         "(`MalformedPatternException`), a clear error; FLINK-10587 (open) lists the "
         "greedy/reluctant combinations Flink lacks"),
    Rule("flink", "", r"Cannot use aggregation in navigation", "engine limitation",
         "an aggregate inside a navigation (PREV(MAX(X)), ...) is rejected at validation; "
         "Kleene's reference evaluates it"),
    Rule("flink", "", MISSING, "engine bug", GREEDY,
         clause=greedy_before_more),
    Rule("flink", "", r"Columns ambiguously defined: \{\}", "engine limitation",
         "a recognition without MEASURES (ONE ROW PER MATCH: the output is the partition "
         "columns alone, ISO/IEC 9075-2:2016 §7.6) is rejected at validation (read by hand "
         "2026-11-28: PARTITION BY j ORDER BY i PATTERN (A) DEFINE A AS true)"),
    Rule("flink", "", r"Cannot downcast long value \d+ to integer", "engine limitation",
         "a navigation offset past 2^31 - 1 (FIRST(x, 9223372036854775806): the standard "
         "bounds an offset by none but its exact numeric type) fails at run time; Flink "
         "holds offsets as Java ints"),
    Rule("flink", "", r"Multiple pattern variables in 'FIRST\(CASE", "engine limitation",
         "FIRST/LAST over a CASE that reads one variable (FIRST(CASE WHEN A.v IS NULL THEN 99 "
         "END)) is rejected as reading several: the validator counts the CASE's literal "
         "branches as pattern variables (read by hand 2026-11-28)"),
    Rule("flink", "", r"No match found for function signature LENGTH\(", "adapter limit",
         "the record calls DuckDB's LENGTH, which Flink (and the standard: CHAR_LENGTH, "
         "ISO/IEC 9075-2:2016 §6.28) names CHAR_LENGTH; the adapter sends function names as "
         "written"),
    Rule("flink", "", r"Cannot apply '\|\|' to arguments of type '<BIGINT>", "adapter limit",
         "the record concatenates an integer with text, which DuckDB casts implicitly; the "
         "standard's || takes character strings (ISO/IEC 9075-2:2016 §6.31) and Flink casts "
         "nothing there; the adapter sends expressions as written"),
    Rule("flink", "", r"Cannot generate a valid execution plan", "engine limitation",
         "the planner finds no plan for the recognition (an internal error, not a "
         "documented limit)"),
    Rule("pmr", "within", "", "documented limitation",
         "WITHIN is Flink's extension, not SQL:2016; pandas-match-recognize does not parse it"),
    Rule("pmr", "", WRONG_WORDS, "engine bug",
         "a measure that is a predicate (a comparison, IS NULL, LIKE, BETWEEN, IN, AND, OR, "
         "NOT: a boolean value expression, which ISO/IEC 9075-2:2016 §7.6 allows as a "
         "measure) comes back NULL whatever its operands (by hand, 2026-11-28: MEASURES "
         "X >= X AS M0 over X = 2 answers NULL, D.S IS NULL over S = 'a' answers NULL); "
         "another difference in the same rows is not told apart",
         clause=boolean_measure),
    Rule("pmr", "", WRONG_WORDS, "engine bug",
         "a pattern beginning with `A*`, `A*?` (`{0,}`) or a reluctant `A??` or `A{,n}?` "
         "before more of the pattern misses every match where A takes no row (by hand, "
         "pandas-match-recognize 0.2.5, 2026-11-28: PATTERN (A* B) DEFINE A AS X < 1, B AS "
         "X != 0 over one row X = 3 answers no match where ISO/IEC 9075-2:2016 §7.6 and TR "
         "19075-5 §4.7 match B alone; so do PATTERN (A{,2}? B) and (A?? B) DEFINE A AS X < 1, "
         "B AS X < 0 over one row X = -1; `A? B`, `A{,2} B`, `C A{,2}? B` and `(A | C)* B` "
         "answer it)",
         clause=leading_zero),
    Rule("pmr", "", WRONG_WORDS, "engine bug",
         "with AFTER MATCH SKIP TO NEXT ROW, a match where a greedy `A*` inside the pattern "
         "takes no row is missed (by hand, pandas-match-recognize 0.2.5, 2026-11-28: "
         "PATTERN (C A* B), no DEFINE, over two rows answers no match where ISO/IEC "
         "9075-2:2016 §7.6 matches C B, and over three rows misses the second match, C B "
         "from row 2; the same pattern past the last row, and `C A+ B`, answer right); "
         "another difference in the same rows is not told apart",
         clause=inner_star_next_row),
    Rule("pmr", "", WRONG_WORDS, "engine bug",
         "FIRST(v.x, n) or LAST(v.x, n) with n beyond v's rows answers v's first or last "
         "row where ISO/IEC TR 19075-5 §4.10 (logical offsets) answers NULL (by hand, "
         "pandas-match-recognize 0.2.5, 2026-11-28: MEASURES LAST(C.X, 1) PATTERN (B C) over "
         "X = 1, 2 answers 2, LAST(C.X, 5) over a C+ of 1, 2, 3 answers 1; within range, "
         "LAST(C.X, 1) over it answers 2 as it should; in DEFINE too: PATTERN (B D+) DEFINE "
         "D AS FIRST(D.Y, 2) IS NULL over Y = 1, 5, 6 matches 2 rows, not 3); another "
         "difference in the same rows is not told apart",
         clause=logical_offset),
    Rule("pmr", "", WRONG_WORDS, "engine bug",
         "`x IN (B.y)` in a DEFINE, the list holding another variable's column, holds where "
         "both are NULL (by hand, pandas-match-recognize 0.2.5, 2026-11-28: PATTERN (B A) "
         "DEFINE A AS Y IN (B.Y) over two rows of NULL Y matches; ISO/IEC 9075-2:2016 §8.4: "
         "IN is = ANY, and NULL = NULL is unknown; `Y IN (X)` and `Y IN (A.Y)` answer "
         "right); another difference in the same rows is not told apart",
         clause=in_other_variable),
    Rule("pmr", "", WRONG_WORDS, "engine bug",
         "a pattern beginning `A? B*?` or `A{,n} B*?` misses the match where A gives back "
         "rows for the rest of the pattern (by hand, pandas-match-recognize 0.2.5, "
         "2026-11-28: PATTERN (A{,2} B*? D C) DEFINE A AS X > -5, B AS X > 5 over three "
         "rows answers no match where ISO/IEC 9075-2:2016 §7.6 and TR 19075-5 §4.7 match A "
         "D C over all three (A giving back its second row); `A{,2} B* D C`, `A+ B*? D C` "
         "and `B*? D C` answer right); another difference in the same rows is not told "
         "apart",
         clause=optional_then_lazy_star),
    Rule("pmr", "", WRONG_WORDS, "engine bug",
         "a DEFINE condition holding LIKE never holds (by hand, pandas-match-recognize "
         "0.2.5, 2026-11-28: PATTERN (C) DEFINE C AS S LIKE 'a%' over one row S = 'a' "
         "answers no match, with S = 'a' instead of the LIKE it matches; ISO/IEC "
         "9075-2:2016 §8.5 <like predicate>: 'a' LIKE 'a%' is true)",
         clause=like_defined),
    Rule("pmr", "", WRONG_WORDS, "engine bug",
         "a DEFINE condition written with `<>` (SQL's not-equal, ISO/IEC 9075-2:2016 §8.2 "
         "<comp op>) never holds: the engine's condition evaluator logs `Syntax error in "
         "condition 'A.X <> 0': invalid syntax` and treats the row as not matching, no "
         "error reaching the caller (the direct check above; read by hand 2026-11-28: "
         "every shrunk disagreement of this kind answers the reference's rows once `<>` "
         "is written `!=`)",
         clause=not_equal_defined),
    Rule("pmr", "", r"the peer answered columns .*\b(\w+), \1\b", "engine bug",
         "ALL ROWS PER MATCH with a column both in PARTITION BY and ORDER BY: the engine "
         "outputs the column twice (ISO/IEC 9075-2:2016 §7.6: the row pattern output table "
         "has the input table's columns, each once, and the measures)"),
    Rule("pmr", "", r"NFAConstructionError: Exact NFA construction failed", "engine limitation",
         "pandas-match-recognize cannot build its automaton for a valid row pattern (an "
         "internal error, not a documented limit)"),
    Rule("pmr", "", r"AFTER MATCH SKIP target '\w+' not found in pattern variables \[[^\]]*\(",
         "engine bug", "its parser lists a parenthesis as a pattern variable and rejects a "
         "skip target the pattern defines (ISO/IEC 9075-2 §7.6: the target is any primary "
         "row pattern variable)"),
    Rule("", "", r"mixes values Arrow cannot put in one column", "adapter limit",
         "the engine's answer has a column mixing lists and single values, which the adapter "
         "cannot turn into one Arrow column to compare"),
    Rule("", "", r"Syntax error|SQL parse failed|mismatched input", "engine limitation",
         "the engine's parser rejects standard syntax"),
)


def classify(engine: str, v: Verdict) -> tuple[str, str]:
    """The class of the failure ``v`` of ``engine`` and why (module docstring)."""
    for rule in RULES:
        if rule.holds(engine, v):
            return rule.cls, rule.why
    if v.reason.startswith(("no answer in time", "no verdict", "backend ", "budget seconds=")):
        return "no answer in time", ""
    if not WRONG.search(v.reason):
        return "unclassified", ""
    if v.reproduction and ties(v.reproduction):
        return "order among ties", TIES
    for start, cls, why in WRONG_BY_SOURCE:
        if v.where.startswith(start):
            return cls, why
    return "unclassified", ""


#: Why a disagreement over rows that tie on the order is no verdict.
TIES = ("rows of a partition tie on every ORDER BY key: the standard leaves their order "
        "implementation-dependent (ISO/IEC 9075-2:2016 §7.6, TR 19075-5), so the engine's "
        "answer may be right for another order; Kleene's reference keeps the input order "
        "(reference/match_recognize/semantics.py)")


def ties(reproduction: str) -> bool:
    """Whether the table of a drawn ``reproduction`` (:func:`.mr_repro.parsed`) has two
    rows of one partition equal on every ``ORDER BY`` key (keys that are not plain columns,
    or a statement that does not parse: yes)."""
    read = parsed(reproduction)
    return read is None or order_ties(*read)


#: A wrong answer: other rows than expected (the runner's and the drawn verdicts' words).
WRONG = re.compile(WRONG_WORDS)

#: A wrong answer no rule explains, by where its expected rows come from. The rules before
#: these place every construct an engine documents it lacks; pandas-match-recognize
#: documents SQL:2016 semantics and no limitation, Flink the list of FLINK_LIMITS.
WRONG_BY_SOURCE = (
    ("conformance/sqllogictest/kleene/", "engine bug",
     "other rows than the standard's: Kleene's file computes each expected row by hand from "
     "ISO/IEC 9075-2:2016 §7.6 and ISO/IEC TR 19075-5 (the comment above the record says "
     "how), and Kleene's engine agrees"),
    ("conformance/sqllogictest/duckdb/test_match_recognize_oracle", "engine bug",
     "other rows than Oracle Database's answer to the same query (the file's rows), which "
     "Kleene's engine gives too"),
    ("conformance/sqllogictest/duckdb/", "engine bug",
     "other rows than DuckDB's test expects and Kleene's engine gives (two independent "
     "readings of the standard agree)"),
    ("generated #", "disagrees with the reference",
     "other rows than Kleene's reference (the shrunk reproduction below): an engine bug "
     "unless the reference is wrong; not yet read by hand"),
)
