"""Worker of the pandas-match-recognize adapter: MATCH_RECOGNIZE over a pandas DataFrame.

Run by the Python of ``.peers/pmr`` (``pandas-match-recognize``), not by
Kleene's: standard library, pandas and the engine only. Same one-line JSON
exchange as :mod:`flink_worker`: ``{"cmd": "version"}`` or
``{"cmd": "run", "sql", "columns", "rows"}`` → ``{"version"}``,
``{"rows": [{measure: value}]}`` or ``{"error": "..."}``. The table is named
``df`` in the query, as the engine's documentation does.
"""

from __future__ import annotations

import json
import math
import sys


def main() -> None:
    """Serve requests until stdin closes."""
    out = sys.stdout
    sys.stdout = sys.stderr  # keep the engine's own prints off the answer channel
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "version":
                from importlib.metadata import version

                answer: dict[str, object] = {
                    "version": "pandas-match-recognize " + version("pandas-match-recognize")}
            else:
                answer = {"rows": run(msg["sql"], msg["columns"], msg["rows"])}
        except Exception as err:  # the engine's failure is the answer
            answer = {"error": f"{type(err).__name__}: {str(err)[:2000]}"}
        out.write(json.dumps(answer, default=str) + "\n")
        out.flush()


def _plain(v: object) -> object:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def run(sql: str, columns: list[list[str]], rows: list[dict[str, object]]
        ) -> list[dict[str, object]]:
    """The measures of every match of ``sql`` over ``rows``."""
    import pandas as pd
    from pandas_match_recognize import match_recognize

    df = pd.DataFrame(rows, columns=[name for name, _ in columns])
    result = match_recognize(sql.replace("FROM events", "FROM df"), df)
    if result is None:
        return []
    return [{k: _plain(v) for k, v in rec.items()} for rec in result.to_dict("records")]


if __name__ == "__main__":
    main()
