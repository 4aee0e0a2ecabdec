"""Satisfiability of patterns: :mod:`.operator` (seed 003) and :mod:`.sremo` (seed 004)."""
