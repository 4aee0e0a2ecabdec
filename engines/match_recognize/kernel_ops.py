"""The operation codes of a program encoded as arrays (:mod:`.kernel`, :mod:`.jitted`)."""

TEST, SPLIT, JUMP, ANCHOR, ENTER, LOOP, DONE = range(7)
