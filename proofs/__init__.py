"""Z3 encodings of conditions and automata (issue 6)."""
