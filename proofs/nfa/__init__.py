"""Proofs about the NFAs of seed 003: :mod:`.classes` (the classes of streams a pattern
tells apart), :mod:`.satisfiability` (dead variables and branches of operator
patterns), :mod:`.equivalence` (bounded equivalence, witnesses, coverage),
:mod:`.report` (the checks of ``kleene prove``)."""
