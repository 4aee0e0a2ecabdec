"""Optimized engines (issue 4 onwards), each verified against :mod:`kleene.reference`."""
