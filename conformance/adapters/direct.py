"""Direct checks of ``make peers``: hand-written ``MATCH_RECOGNIZE`` queries, each
isolating one behaviour a probe finding pointed at, with the SQL:2016 answer
worked out by hand (the rows, the measures, why). They run on every engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COLUMNS = [("kpos", "BIGINT"), ("kts", "BIGINT"), ("c_type", "VARCHAR"), ("c_x", "BIGINT")]


def _rows(types: str, xs: list[int] | None = None) -> list[dict[str, Any]]:
    return [{"kpos": i, "kts": i, "c_type": t, "c_x": (xs or [0] * len(types))[i]}
            for i, t in enumerate(types)]


def query(pattern: str, defines: str, measures: str) -> str:
    """A query over ``events`` ordered by time, ``SKIP TO NEXT ROW``."""
    return ("SELECT * FROM events\nMATCH_RECOGNIZE (\n  ORDER BY kts, kpos\n"
            f"  MEASURES {measures}\n  ONE ROW PER MATCH\n  AFTER MATCH SKIP TO NEXT ROW\n"
            f"  PATTERN ({pattern})\n  DEFINE {defines}\n)")


@dataclass(frozen=True)
class Check:
    """One query, its rows and the rows SQL:2016 gives (measures by name)."""

    title: str
    sql: str
    rows: list[dict[str, Any]]
    expected: list[dict[str, Any]]
    why: str


AB = "FIRST(V_a.kpos) AS f_a, FIRST(V_b.kpos) AS f_b, LAST(V_b.kpos) AS l_b"
CHECKS = [
    Check("not-equal written <> (SQL:2016)",
          query("V_a", "V_a AS V_a.c_x <> 0", "FIRST(V_a.kpos) AS f_a"),
          _rows("A", [1]), [{"f_a": 0}],
          "1 <> 0 holds: one match of the single row"),
    Check("a greedy quantifier as the pattern's last element",
          query("V_a V_b+", "V_a AS V_a.c_type = 'A', V_b AS V_b.c_type = 'B'", AB),
          _rows("ABB"), [{"f_a": 0, "f_b": 1, "l_b": 2}],
          "B+ takes both Bs (greedy); the match ends at the end of the partition"),
    Check("PREV() and another variable in one DEFINE, B+ last",
          query("V_a V_b+", "V_a AS V_a.c_type = 'A', "
                "V_b AS V_b.kts >= PREV(V_b.kts) AND V_a.kts < 1 AND V_b.c_type = 'B'", AB),
          _rows("ABB"), [{"f_a": 0, "f_b": 1, "l_b": 2}],
          "both conjuncts hold on rows 1 and 2 (ts grows, a's ts is 0), so B+ takes both"),
    Check("PREV() and another variable in one DEFINE, B+ before C",
          query("V_a V_b+ V_c", "V_a AS V_a.c_type = 'A', "
                "V_b AS V_b.kts >= PREV(V_b.kts) AND V_a.kts < 1 AND V_b.c_type = 'B', "
                "V_c AS V_c.c_type = 'C'", AB),
          _rows("ABBC"), [{"f_a": 0, "f_b": 1, "l_b": 2}],
          "both conjuncts hold on rows 1 and 2, so B+ takes both before C"),
    Check("LAST(v.x, 1) and another variable in one DEFINE, B+ last",
          query("V_a V_b+", "V_a AS V_a.c_type = 'A', "
                "V_b AS V_b.c_type = 'B' AND (V_b.kts > V_a.kts OR V_b.kts > LAST(V_b.kts, 1))",
                AB),
          _rows("ABB"), [{"f_a": 0, "f_b": 1, "l_b": 2}],
          "b.ts > a.ts holds on rows 1 and 2 whatever LAST(b.ts, 1) is"),
    Check("LAST(v.x, 1) and another variable in one DEFINE, B+ before C",
          query("V_a V_b+ V_c", "V_a AS V_a.c_type = 'A', "
                "V_b AS V_b.c_type = 'B' AND (V_b.kts > V_a.kts OR V_b.kts > LAST(V_b.kts, 1)), "
                "V_c AS V_c.c_type = 'C'", AB),
          _rows("ABBC"), [{"f_a": 0, "f_b": 1, "l_b": 2}],
          "b.ts > a.ts holds on rows 1 and 2 whatever LAST(b.ts, 1) is"),
]


def verdict(check: Check, answer: dict[str, Any]) -> str:
    """``agrees``, ``differs: ...`` or ``rejected: ...``."""
    if "error" in answer:
        return "rejected: " + str(answer["error"]).splitlines()[0][:300]
    got = [{k: r.get(k) for k in check.expected[0]} for r in answer["rows"]] \
        if check.expected else answer["rows"]
    return "agrees" if got == check.expected else f"differs: got {got}"
