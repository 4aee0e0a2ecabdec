"""Example backends of docs/backends.md: a minimal one in Python and in
JavaScript, and a deliberately broken one."""
