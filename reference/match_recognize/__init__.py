"""SQL row pattern recognition, ``MATCH_RECOGNIZE`` (ISO/IEC 9075-2:2016 §7.6, ISO/IEC
TR 19075-5:2016): Kleene's fourth pattern language. ``ast.py`` is its AST."""
