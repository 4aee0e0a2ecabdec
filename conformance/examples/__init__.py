"""Example backends of docs/backends.md: a minimal one in Python and in
JavaScript, a deliberately broken one, and two constant ones (no match; every subset)."""
