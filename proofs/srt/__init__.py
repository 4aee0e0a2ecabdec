"""Proofs about the SRT family of seed 004: :mod:`.symbolic` (edges and runs over symbolic
strings), :mod:`.satisfiability` (SREMO's dead branches and transitions, unwritten
register reads), :mod:`.dsrt` (minterms, determinism, ``srt = dsrt``), :mod:`.negation`
(the complement), :mod:`.report` (the checks of ``kleene prove``)."""
