"""Proofs about the SRT family of seed 004: :mod:`.symbolic` (edges and runs over symbolic
strings), :mod:`.dsrt` (minterms, determinism, ``srt = dsrt``), :mod:`.negation`
(the complement), :mod:`.report` (the checks of ``kleene prove``)."""
