"""Engines for CEQL queries beyond the SREMO expression they denote (docs/ceql.md):
:mod:`~kleene.engines.ceql.selection`, ``srt+selection``."""
