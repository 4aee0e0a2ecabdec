"""Worker of the pandas-match-recognize adapter: MATCH_RECOGNIZE over a pandas DataFrame.

Run by the Python of ``.peers/pmr`` (``pandas-match-recognize``), not by
Kleene's: standard library, pandas and the engine only. One JSON object per line on
stdin, one answer per line on stdout:

- ``{"cmd": "version"}`` → ``{"version"}``;
- ``{"cmd": "run", "sql", "columns", "rows"}`` (a translated operator pattern over rows as
  objects, the table named ``events``) → ``{"rows": [{measure: value}]}``;
- ``{"cmd": "table", "sql", "name", "columns", "rows" | "path"}`` (a ``MATCH_RECOGNIZE``
  statement as written, over the table ``name``: ``columns`` its ``[name, SQL type]``
  pairs, ``rows`` its rows as lists, or ``path`` a file, CSV with a header line or JSON
  Lines as ``format`` says, ``csv`` or ``jsonl``, the default) →
  ``{"columns": [[name, type]], "rows": [[value]], "seconds": {"load", "match"}}``
  (:mod:`kleene.conformance.adapters.native`);
- ``{"cmd": "tables", "requests": [table request], "limit"}`` → ``{"answers": [answer
  or {"error"}]}``, each answered as ``table`` answers it within ``limit`` seconds
  (``PeerTimeout`` past it; Flink's worker runs many in one job; here it saves the round
  trips);

or ``{"error": "..."}``. The engine takes the DataFrame itself (the ``FROM`` name is the
query's; the engine's documentation names it ``df``).
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import signal
import sys
import time
from typing import Any


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
            elif msg["cmd"] == "table":
                answer = table(msg)
            elif msg["cmd"] == "tables":
                answer = {"answers": [answered(table, m, msg.get("limit"))
                                      for m in msg["requests"]]}
            else:
                answer = {"rows": run(msg["sql"], msg["columns"], msg["rows"])}
        except Exception as err:  # the engine's failure is the answer
            answer = {"error": f"{type(err).__name__}: {str(err)[:2000]}"}
        out.write(json.dumps(answer, default=str) + "\n")
        out.flush()


class PeerTimeout(Exception):
    """A request ran out of its seconds (``limit``)."""


def _alarm(signum: int, frame: Any) -> None:
    raise PeerTimeout("no answer in time")


def answered(serve: Any, msg: dict[str, Any], limit: float | None = None
             ) -> dict[str, object]:
    """``serve(msg)``, or the engine's failure as the answer; with ``limit``, a request
    still running after that many seconds is stopped (``PeerTimeout``: the engine's loops
    are Python, so the alarm's exception reaches them) and the next one served."""
    if limit:
        import pandas  # noqa: F401  (imported before the alarm: an import it interrupts
        import pandas_match_recognize  # noqa: F401  stays broken for the next request)

        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, float(limit))
    try:
        return dict(serve(msg))
    except Exception as err:  # the engine's failure is the answer
        return {"error": f"{type(err).__name__}: {str(err)[:2000]}"}
    finally:
        if limit:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _plain(v: object) -> object:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    if v is not None and type(v).__name__ in ("NaTType", "NAType"):
        return None
    if isinstance(v, datetime.datetime | datetime.date):
        return v.isoformat(sep=" ") if isinstance(v, datetime.datetime) else v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
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


def frame(columns: list[list[str]], rows: list[list[Any]]) -> Any:
    """The DataFrame of ``rows`` typed by ``columns`` (integers nullable, dates and
    timestamps as pandas datetimes, decimals as floats: pandas has no exact decimal)."""
    import pandas as pd

    names = [name for name, _ in columns]
    df = pd.DataFrame(rows, columns=names, dtype=object)
    for name, kind in columns:
        kind = kind.upper()
        if kind in ("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "HUGEINT"):
            df[name] = df[name].astype("Int64")
        elif kind in ("DOUBLE", "FLOAT", "REAL") or kind.startswith("DECIMAL"):
            df[name] = pd.to_numeric(df[name].map(lambda v: None if v is None else float(v)))
        elif kind == "DATE" or kind.startswith("TIMESTAMP"):   # the adapter's TIMESTAMP(3)
            df[name] = pd.to_datetime(df[name])
        elif kind == "BOOLEAN":
            df[name] = df[name].astype("boolean")
    return df


#: The pandas dtype of a column of each SQL type a file is read with (the rest: pandas's own).
DTYPES = {"BIGINT": "int64", "DOUBLE": "float64", "VARCHAR": "object"}


def read(msg: dict[str, Any]) -> Any:
    """The DataFrame of the file ``msg["path"]`` by pandas's own reader of its ``format``
    (``read_csv``, ``read_json(lines=True)``), each column of a type in :data:`DTYPES` read
    as that dtype (the types the other engines read the file with)."""
    import pandas as pd

    dtype = {name: DTYPES[kind.upper()] for name, kind in msg["columns"]
             if kind.upper() in DTYPES}
    if msg.get("format", "jsonl") == "csv":
        return pd.read_csv(msg["path"], dtype=dtype)
    return pd.read_json(msg["path"], lines=True, dtype=dtype)


def table(msg: dict[str, Any]) -> dict[str, object]:
    """A statement over one table (the module docstring), timed: the table's load (from
    the file or the rows) and the engine's run to its rows as Python values."""
    from pandas_match_recognize import match_recognize

    began = time.perf_counter()
    df = read(msg) if "path" in msg else frame(msg["columns"], msg["rows"])
    loaded = time.perf_counter()
    result = match_recognize(msg["sql"], df)
    columns: list[list[str]] = []
    rows: list[list[object]] = []
    if result is not None:
        columns = [[str(c), str(t)] for c, t in result.dtypes.items()]
        rows = [[_plain(v) for v in rec] for rec in result.itertuples(index=False)]
    done = time.perf_counter()
    return {"columns": columns, "rows": rows,
            "seconds": {"load": loaded - began, "match": done - loaded}}


if __name__ == "__main__":
    main()
