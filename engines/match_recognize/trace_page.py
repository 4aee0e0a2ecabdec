"""The page of a ``MATCH_RECOGNIZE`` trace (``kleene trace q.sql --events t.csv -o
run.html``): one self-contained HTML page (:func:`kleene.engines.pages.page`) with the
statement, each recognition's program as the engine draws it (:mod:`.draw`), each search
as a tree beside its steps in words (:mod:`.trace`), and the statement's answer."""

from __future__ import annotations

import html

from kleene.engines.match_recognize.draw import program_graph, search_graph
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.match_recognize.trace import StatementTrace, clause_text, search_text
from kleene.engines.pages import page, svg_of, table
from kleene.engines.trace import MAX_PICTURED_STEPS
from kleene.reference.errors import Unsupported


def trace_page(t: StatementTrace, *, title: str, sql: str) -> str:
    """The page of ``t``, the trace of the statement ``sql`` (module docstring); past
    :data:`~kleene.engines.trace.MAX_PICTURED_STEPS` searches, the rest in words only."""
    parts = ["<h2>Statement</h2>", f"<pre>{html.escape(sql)}</pre>"]
    pictured = 0
    for i, r in enumerate(t.recognitions):
        if len(t.recognitions) > 1:
            parts.append(f"<h2>Recognition {i + 1} of {len(t.recognitions)}</h2>")
        try:
            parts += ["<h2>The program</h2>", svg_of(program_graph(CompiledRecognition(r.clause)))]
        except Unsupported as err:   # a clause the engine does not compile: no program
            parts.append(f"<p>{html.escape(str(err))}</p>")
        parts.append(f"<h2>The searches</h2><pre>{html.escape(clause_text(r.clause))}</pre>")
        for s in r.searches:
            key, rows = r.partitions[s.partition]
            where = f"partition {s.partition + 1}" + (f" ({key})" if key else "")
            parts.append(f"<div class='step'><h3>{html.escape(where)}, row {s.start + 1}</h3>")
            if pictured < MAX_PICTURED_STEPS:
                parts.append(svg_of(search_graph(s), rankdir="TB"))
                pictured += 1
            parts.append(f"<pre>{html.escape(chr(10).join(search_text(r, s)))}</pre></div>")
    if t.answer is not None:
        parts += ["<h2>Answer</h2>",
                  table(t.answer.column_names,
                        ([row[c] for c in t.answer.column_names] for row in t.answer.to_pylist()))]
    if t.error is not None:
        parts.append(f"<p class='reported'>{html.escape(str(t.error))}</p>")
    return page(title, parts)
