"""The picture a compiled automaton shows in a notebook (:class:`Pictured`)."""

from __future__ import annotations


class Pictured:
    """A compiled automaton that shows its picture in a notebook (Jupyter calls
    ``_repr_svg_``): the drawing of :func:`kleene.engines.drawers.draw`, read through
    ``iter_transitions`` like every picture. Compiled classes inherit it."""

    def _repr_svg_(self) -> str:
        # lazy: networkx and Graphviz only when a notebook shows a picture (the startup
        # floor of `kleene match`, tests/test_cli_imports.py)
        from kleene.engines.drawers import draw

        return draw(self, "svg").decode("utf-8")
