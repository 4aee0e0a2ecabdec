"""A table of Python values: what row pattern recognition reads and writes.

ISO/IEC 9075-2:2016 §7.6 defines ``<source> MATCH_RECOGNIZE (…)`` as a table
(the *row pattern input table*) in, a table (the *row pattern output table*)
out. Kleene's reference keeps both as a :class:`Table`: column names and rows,
each value a plain Python value, so that ``reference/`` needs neither Arrow nor
a database (docs/architecture.md, "Layers"; the data plane converts).

Values: ``None`` is SQL's NULL; ``bool``, ``int``, ``float``,
``decimal.Decimal``, ``str``, ``datetime.date`` and ``datetime.datetime``
the SQL types BOOLEAN, the integers, the approximate numbers, DECIMAL, the
character strings, DATE and TIMESTAMP.

Column names keep the input's spelling; a name is looked up case-insensitively
(SQL's rule for regular identifiers, ISO/IEC 9075-2 §5.2: the parser gives
unquoted names in upper case, a table may spell them in lower case).
"""

from __future__ import annotations

from dataclasses import dataclass

from kleene.reference.errors import PatternError


@dataclass(frozen=True)
class Table:
    """Column ``names`` and ``rows`` (each a tuple of one value per name), in order."""

    names: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]

    def __post_init__(self) -> None:
        width = len(self.names)
        for i, row in enumerate(self.rows):
            if len(row) != width:
                raise PatternError(f"row {i} has {len(row)} values for {width} columns")

    def index(self, name: str) -> int:
        """The position of column ``name`` (case-insensitive); :class:`PatternError`
        naming the columns present if there is none, or more than one."""
        found = [i for i, n in enumerate(self.names) if n.upper() == name.upper()]
        if len(found) != 1:
            what = "no column" if not found else "more than one column"
            raise PatternError(f"{what} named {name!r}; the columns are {', '.join(self.names)}")
        return found[0]
