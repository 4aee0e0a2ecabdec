"""The fast matcher of SQL row pattern recognition (``MATCH_RECOGNIZE``): docs/engines-match-recognize.md."""
