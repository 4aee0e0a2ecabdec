"""The notebook ``examples/notebook/kleene.ipynb`` runs from top to bottom (issue 29 item 5):
executed by ``nbclient`` in a fresh kernel, as a user's Jupyter would, from its own folder.

What it shows is checked against answers computed here without Kleene: the funnel's
matches by a pandas self-join written from the SES definition (seed 000 Def. 2: one view,
one cart, one purchase of the same user, in time order, within 30 minutes), and seed 000's
Fig. 1 under Q1 (three matches). The file in the repository keeps no outputs.
"""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "notebook" / "kleene.ipynb"


def funnel_by_hand() -> int:
    """The funnel's matches, by a self-join over the click log."""
    c = pd.read_csv(ROOT / "examples" / "funnel" / "clicks.csv", parse_dates=["ts"])
    c = c.reset_index(names="pos")
    step = {a: c[c.action == a][["pos", "ts", "user"]] for a in ("view", "cart", "purchase")}
    m = step["view"].merge(step["cart"], on="user", suffixes=("_v", "_c")).merge(
        step["purchase"].rename(columns={"pos": "pos_p", "ts": "ts_p"}), on="user")
    m = m[(m.ts_v < m.ts_c) & (m.ts_c < m.ts_p)]
    return int(((m.ts_p - m.ts_v) <= pd.Timedelta("30min")).sum())


def outputs(cell: nbformat.NotebookNode) -> str:
    return "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                     for o in cell.outputs)


def test_the_notebook_in_the_repository_has_no_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in nb.cells if c.cell_type == "code")


@pytest.mark.slow
def test_the_notebook_runs_and_shows_what_it_says():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    text = [outputs(c) for c in code]
    expected = funnel_by_hand()
    assert expected > 0
    assert any(f"{expected} matches" in t for t in text)
    assert any("3 matches" in t for t in text)                       # seed 000, Fig. 1, Q1
    kinds = {k for c in code for o in c.outputs for k in o.get("data", {})}
    assert {"image/svg+xml", "text/html", "image/png"} <= kinds       # picture, trace, plot
    assert f"{expected} matches over" in text[-1]                      # the plotted total
