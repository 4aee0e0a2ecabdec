"""``make peers --parts mr`` in pieces: the share of the drawn recognitions in Flink SQL's
dialect (conformance/recognize_flink.py, drawn by mr_generated.drawn), each engine's run
of several pieces joined (mr_suite.EngineRun.joined) and the section saying the commands
and the Flink share (mr_report.py)."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.adapters import mr_generated, mr_report, mr_suite, native
from kleene.conformance.adapters.mr_classes import classify
from kleene.conformance.adapters.mr_suite import EngineRun, Verdict
from kleene.conformance.recognize_flink import flink_clauses, flink_tables
from kleene.reference.match_recognize.ast import (
    Aggregate,
    Classifier,
    Concat,
    MatchNumber,
    MatchRecognize,
    Navigation,
    Quantified,
    Var,
)
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.features import clause_constructs, expressions_of
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.printer import format_clause
from scripts.peers import dated

#: Constructs Flink's documentation lists as unsupported ("Known Limitations" of its
#: MATCH_RECOGNIZE page) or that it rejects (MATCH_NUMBER(), an empty match).
UNSUPPORTED = {"alternation", "grouping", "permute", "anchor", "exclusion", "empty-pattern",
               "empty-match", "subset", "all-rows", "omit-empty-matches", "unmatched-rows",
               "nested-navigation", "aggregate-filter", "array-aggregate", "distinct",
               "running", "final", "classifier", "match-number"}


@settings(max_examples=60, deadline=None)
@given(flink_clauses())
def test_a_flink_clause_leaves_out_what_flink_documents_unsupported(
        clause: MatchRecognize) -> None:
    assert not clause_constructs(clause) & UNSUPPORTED
    items = clause.pattern.items if isinstance(clause.pattern, Concat) else (clause.pattern,)
    names = [i.body.name if isinstance(i, Quantified) and isinstance(i.body, Var) else
             i.name if isinstance(i, Var) else None for i in items]
    assert None not in names and len(set(names)) == len(names)   # distinct variables
    last = items[-1]
    assert not isinstance(last, Quantified) or last.reluctant      # FLINK-10587
    for q in items:
        if isinstance(q, Quantified) and q.reluctant:
            assert (q.low, q.high) != (0, 1)                       # no A??
    found = [x for e in expressions_of(clause) for x in walk(e)]
    assert not any(isinstance(x, Navigation) and x.kind in ("PREV", "NEXT") for x in found)
    assert not any(isinstance(x, (MatchNumber, Classifier)) for x in found)
    assert not any(isinstance(x, Aggregate) and x.name == "AVG"
                   and any(getattr(y, "name", "") == "X" for y in walk(x.operand))
                   for x in found if isinstance(x, Aggregate) and x.operand is not None)
    assert clause.rows_per_match == "ONE" and clause.measures
    # the reference's parser and static checks read it back as drawn
    text = f"SELECT * FROM t MATCH_RECOGNIZE (\n{format_clause(clause)}\n)"
    assert parse_statement(text).recognitions[0].clause == clause


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_flink_table_orders_by_distinct_times_flinks_adapter_sends(data: st.DataObject
                                                                        ) -> None:
    clause, table = data.draw(flink_clauses()), data.draw(flink_tables())
    times = table.column("T").to_pylist()
    assert None not in times and len(set(times)) == len(times) and 2 <= len(times) <= 12
    request = native.request("flink", clause, table)   # no Unsupported: Flink takes it
    assert request["time"] == ["kleene_rt", "TO_TIMESTAMP_LTZ(`T`, 0)"]
    assert "MATCH_NUMBER" not in request["sql"] and "PREV(" not in request["sql"]


@pytest.mark.slow
def test_drawn_recognitions_hold_the_flink_share_after_the_others() -> None:
    items = mr_generated.drawn(8, flink_share=0.5)
    assert [x.flink for x in items] == [False] * 4 + [True] * 4
    assert all(not clause_constructs(x.clause) & UNSUPPORTED for x in items[4:])
    again = mr_generated.drawn(8, flink_share=0.5)
    assert [x.sql() for x in again] == [x.sql() for x in items]


def test_the_pieces_of_a_run_join_and_may_not_overlap() -> None:
    files = EngineRun("pmr", (Verdict("conformance/sqllogictest/kleene/m.test:3", "passed"),),
                      10.0, "python scripts/peers.py --mr-files all --drawn 0", (3.5, 20.0))
    drawn = EngineRun("pmr", (Verdict("generated #f0", "failed", "1 rows missing"),
                              Verdict("generated #1", "passed")), 5.5,
                      "python scripts/peers.py --mr-files none --drawn 2", (12.0, 31.5))
    joined = EngineRun.joined([files, drawn])
    assert joined.load == (3.5, 31.5)      # the lowest and highest load of the pieces
    assert EngineRun.joined([files, dataclasses.replace(drawn, load=None)]).load == (3.5, 20)
    assert EngineRun.of_json(json.loads(json.dumps(joined.to_json()))) == joined
    assert [v.where for v in joined.verdicts] == [
        "conformance/sqllogictest/kleene/m.test:3", "generated #f0", "generated #1"]
    assert joined.seconds == 15.5 and joined.command.splitlines() == [files.command,
                                                                       drawn.command]
    assert joined.counts() == {"passed": 2, "failed": 1, "declined": 0}
    with pytest.raises(ValueError, match="generated #1 is in two pieces"):
        EngineRun.joined([drawn, EngineRun("pmr", (Verdict("generated #1", "passed"),), 1.0)])
    with pytest.raises(ValueError, match="different engines"):
        EngineRun.joined([files, EngineRun("kleene", (), 1.0)])


def test_the_section_says_the_commands_and_counts_the_flink_share_apart() -> None:
    run = EngineRun("flink batch", (Verdict("generated #0", "declined", "no", ("permute",)),
                                    Verdict("generated #f1", "passed", "", ("quantifier",)),
                                    Verdict("generated #f2", "failed", "1 rows missing",
                                            ("quantifier",))),
                    3.0, "python scripts/peers.py --a\npython scripts/peers.py --b",
                    (9.4, 30.6))
    lines = mr_report.section([run], [Path("k"), Path("d")], 3, "2026-01-01", "DuckDB x")
    assert any(line.startswith("Seconds: flink batch 3. The machine's load") and
               "each engine's run; two cores, shared with other work): flink batch 9–31. "
               in line for line in lines)
    assert lines[2] == ("*Run on 2026-01-01* (in pieces, then joined: `python "
                        "scripts/peers.py --parts mr --combine DIR,...`):")
    assert lines[4:8] == ["```text", "python scripts/peers.py --a",
                          "python scripts/peers.py --b", "```"]
    assert "1 with every construct" in lines[9] and "2 in the dialect Flink SQL" in lines[9]
    assert "| *drawn (Hypothesis)* | 1/1/1 |" in lines
    assert "| *drawn in Flink's dialect* | 1/1/0 |" in lines
    assert "| `quantifier` | 1/1/0 |" in lines
    # the run held drawn recognitions only: the section says which sources it lacks
    assert any(line.startswith("*This run is incomplete: not run flink batch on Kleene's "
                               "file, flink batch on DuckDB's files (") for line in lines)



def test_a_run_of_the_corpus_alone_marks_the_sections_it_kept_with_their_date() -> None:
    page = ["# Kleene against real engines", "",
            "*Written by `make peers` (`scripts/peers.sh`) on 2026-11-23.", "Do not edit.*",
            "", "## flink: apache-flink 2.3.0", ""]
    once = dated(page)
    assert once[:5] == page[:5] and once[5].startswith("*Not rerun since 2026-11-23: the "
                                                       "engine sections")
    assert once[6:] == page[4:]
    assert dated(once) == once   # a second run says it once


def test_a_skip_the_standard_forbids_answered_with_rows_is_an_engine_bug() -> None:
    reason = ("answered a table where the reference raises: skip-to-first-row: AFTER MATCH "
              "SKIP TO FIRST C resumes at the match's first row, which would find it again")
    v = Verdict("generated #f3", "failed", reason, ("skip-to-variable",))
    cls, why = classify("flink streaming", v)
    assert cls == "engine bug" and "After Match Strategy" in why   # Flink documents it too
    assert classify("pmr", v)[0] == "engine bug"
    # the same words on another construct's failure say nothing of skipping
    other = Verdict("generated #f4", "failed", "1 rows missing", ("skip-to-variable",))
    assert classify("flink batch", other)[0] == "disagrees with the reference"


class Slow:
    """A worker that answers each request of a message with no row, and records each
    message's size and the seconds it was given; a message of more than ``most`` requests
    runs out of time."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.asked: list[tuple[int, float | None]] = []

    def ask(self, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        self.asked.append((len(message["requests"]), timeout))
        if len(message["requests"]) > self.most:
            raise TimeoutError("no answer")
        return {"answers": [{"columns": [["N", "BIGINT"]], "rows": []}
                            for _ in message["requests"]]}


def test_prefetch_sends_forty_requests_a_message_each_given_its_seconds() -> None:
    messages = [{"cmd": "table", "sql": f"q{k}", "rows": []} for k in range(85)]
    worker = Slow(most=40)
    peer = native.Native(worker, "flink", timeout=60.0)  # type: ignore[arg-type]
    peer.prefetch(messages)
    # 85 requests: 40, 40 and 5, each message 60 s and 20 s a request
    assert worker.asked == [(40, 60.0 + 800.0), (40, 60.0 + 800.0), (5, 60.0 + 100.0)]
    assert len(peer.known) == 85          # every answer kept: none asked again one by one


def test_a_pmr_disagreement_with_a_predicate_measure_is_its_null_predicate_bug() -> None:
    text = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY T MEASURES X >= X AS M0 PATTERN (D))\n"
            "-- table t (X, T), 1 rows:\n--   [2, 4]\n-- expected (M0): (True,)\n"
            "-- got: 1 rows missing, 1 rows extra")
    v = Verdict("generated #f14", "failed", "1 rows missing, 1 rows extra", ("measures",), text)
    cls, why = classify("pmr", v)
    assert cls == "engine bug" and "comes back NULL" in why
    # a predicate inside CASE is no predicate measure: the disagreement stays unread
    case = text.replace("X >= X AS M0", "CASE WHEN X >= X THEN 1 END AS M0")
    v = Verdict("generated #f15", "failed", "1 rows missing, 1 rows extra", ("measures",), case)
    assert classify("pmr", v)[0] == "disagrees with the reference"
    assert classify("flink batch", Verdict("generated #f14", "failed", v.reason, (), text)
                    )[0] == "disagrees with the reference"   # pmr's bug, not Flink's


def _pmr_wrong(sql: str, engine: str = "pmr") -> tuple[str, str]:
    text = (f"{sql}\n-- table t (X, T), 1 rows:\n--   [3, 0]\n-- expected (N): (1,)\n"
            "-- got: 1 rows missing")
    return classify(engine, Verdict("generated #7", "failed", "1 rows missing", (), text))


def test_pmr_disagreements_read_by_hand_are_its_leading_star_and_not_equal_bugs() -> None:
    head = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY T MEASURES COUNT(*) AS N PATTERN "
    star = _pmr_wrong(head + "(A*? B) DEFINE A AS A.X < 1, B AS B.X > 0)")
    assert star[0] == "engine bug" and "takes no row" in star[1]
    assert "takes no row" in _pmr_wrong(head + "(A{0,} B C) DEFINE B AS B.X > 0)")[1]
    ne = _pmr_wrong(head + "(A B) DEFINE A AS A.X <> 0)")
    assert ne[0] == "engine bug" and "`<>`" in ne[1]
    # neither: a leading A? or a star not first, and <> only in a measure
    for other in ("(A? B) DEFINE B AS B.X > 0)", "(C A* B) DEFINE B AS B.X > 0)",
                  "(A) DEFINE A AS A.X > 0 AND NOT (A.X = 2))"):
        assert _pmr_wrong(head + other)[0] == "disagrees with the reference", other
    for pmrs in ("(A B) DEFINE A AS A.X <> 0)", "(A*? B) DEFINE B AS B.X > 0)"):
        assert _pmr_wrong(head + pmrs, "flink batch")[0] == "disagrees with the reference"


def test_pmr_answering_a_column_twice_is_an_engine_bug() -> None:
    v = Verdict("conformance/sqllogictest/duckdb/x.test:3", "failed",
                "peer: the peer answered columns SYM, SYM, MNO, PRICE; expected sym, MNO, price")
    assert classify("pmr", v)[0] == "engine bug"
    v = dataclasses.replace(v, reason="peer: the peer answered columns SYM, MNO; expected x")
    assert classify("pmr", v)[0] == "unclassified"


def test_the_load_seen_during_a_block_spans_its_readings() -> None:
    with mr_suite.Load(every=0.01) as load:
        time.sleep(0.05)
    assert len(load.seen) >= 3 and load.span == (min(load.seen), max(load.seen))
    assert all(x >= 0 for x in load.seen)


def test_flinks_wrong_answer_after_a_greedy_quantifier_is_its_no_give_back_bug() -> None:
    head = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY T MEASURES COUNT(*) AS N PATTERN "
    greedy = _pmr_wrong(head + "(X+ Y) DEFINE X AS X.X > 0, Y AS Y.X > 2)", "flink batch")
    assert greedy[0] == "engine bug" and "never gives one back" in greedy[1]
    assert "never gives one back" in _pmr_wrong(head + "(A B{1,3} C) DEFINE B AS B.X > 0)",
                                                "flink streaming")[1]
    # reluctant, fixed, or greedy only last: another disagreement, not read yet
    for other in ("(X+? Y) DEFINE X AS X.X > 0)", "(X{2} Y) DEFINE X AS X.X > 0)",
                  "(Y X+) DEFINE X AS X.X > 0)"):
        assert _pmr_wrong(head + other, "flink batch")[0] == "disagrees with the reference"


def test_flinks_within_at_the_boundary_and_its_planner_errors_are_classified() -> None:
    within = Verdict("conformance/sqllogictest/kleene/k.test:9", "failed",
                     "0 rows where 3 are expected", ("within",))
    assert classify("flink batch", within)[0] == "documented engine choice"
    extra = dataclasses.replace(within, reason="2 rows extra")   # not the boundary
    assert classify("flink batch", extra)[0] != "documented engine choice"
    for said in ("java.lang.RuntimeException: while converting FINAL (`D`.`X` NOT IN (1))",
                 "MalformedPatternException: Optional pattern cannot be preceded by greedy "
                 "pattern", "ValidationException: Cannot use aggregation in navigation 'M'"):
        v = Verdict("generated #f1", "failed", f"the backend reported error 'peer': {said}")
        assert classify("flink streaming", v)[0] == "engine limitation", said
        assert classify("pmr", v)[0] == "unclassified"


def test_pmrs_skip_target_parse_bug_and_a_budget_are_classified() -> None:
    said = ("the backend reported error 'peer': peer: pmr: ValueError: Failed to parse query: "
            "AFTER MATCH SKIP target 'B' not found in pattern variables ['PERMUTE(('].")
    assert classify("pmr", Verdict("generated #9", "failed", said))[0] == "engine bug"
    fine = said.replace("['PERMUTE((']", "['A', 'C']")   # B really missing: not this bug
    assert classify("pmr", Verdict("generated #9", "failed", fine))[0] == "unclassified"
    late = Verdict("conformance/sqllogictest/duckdb/x.test:4", "failed",
                   "budget seconds=60.0 s exceeded while pmr ran a recognition")
    assert classify("pmr", late)[0] == "no answer in time"
