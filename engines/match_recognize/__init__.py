"""The fast matcher of SQL row pattern recognition (``MATCH_RECOGNIZE``).

See docs/engines-match-recognize.md."""
