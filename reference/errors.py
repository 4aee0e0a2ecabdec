"""One exception hierarchy for every user mistake Kleene can report.

Every error carries the facts a user needs to fix the input (line and column
of a pattern, row and field of an event, the name of an exhausted budget) and
renders as one line: the command line prints ``str(error)`` and exits, with
no traceback (docs/architecture.md, "Bad input"; docs/cli.md, "kleene match").
"""

from __future__ import annotations


class KleeneError(Exception):
    """Base class of every error Kleene reports to a user."""

    code = "kleene"

    def __str__(self) -> str:  # pragma: no cover - trivial
        return f"{self.code}: {self.args[0] if self.args else ''}"


class PatternSyntaxError(KleeneError):
    """Malformed pattern text: where it went wrong and what was expected."""

    code = "syntax"

    def __init__(self, message: str, *, line: int, column: int, source: str = "<pattern>",
                 text: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.source = source
        self.text = text

    def __str__(self) -> str:
        head = f"{self.source}:{self.line}:{self.column}: {self.message}"
        if self.text is None:
            return head
        lines = self.text.splitlines() or [""]
        if 1 <= self.line <= len(lines):
            src = lines[self.line - 1]
            return f"{head}\n  {src}\n  {' ' * (self.column - 1)}^"
        return head


class PatternError(KleeneError):
    """A pattern that parses but is not well formed (unknown variable, ...)."""

    code = "pattern"


class StreamError(KleeneError):
    """A malformed or unsorted event: the row (0-based) and the field."""

    code = "events"

    def __init__(self, message: str, *, row: int | None = None, field: str | None = None,
                 source: str = "<events>") -> None:
        super().__init__(message)
        self.message = message
        self.row = row
        self.field = field
        self.source = source

    def __str__(self) -> str:
        where = self.source
        if self.row is not None:
            where += f": row {self.row}"
        if self.field is not None:
            where += f", field {self.field!r}"
        return f"{where}: {self.message}"


class BudgetExceeded(KleeneError):
    """The reference would need more work than its explicit budget allows."""

    code = "budget"

    #: The command-line option that raises each budget.
    OPTIONS = {"steps": "--budget N", "seconds": "--time-limit SECONDS",
               "memory": "--memory-limit MB"}

    def __init__(self, budget: str, limit: int | float, what: str, unit: str = "") -> None:
        super().__init__(f"{what}: exceeded the budget {budget}={limit}{unit}")
        self.budget = budget
        self.limit = limit
        self.what = what
        self.unit = unit

    def __str__(self) -> str:
        option = self.OPTIONS.get(self.budget, f"--budget {self.budget}=N")
        return (f"budget {self.budget}={self.limit}{self.unit} exceeded while {self.what}; "
                f"raise it ({option}) or shrink the stream or window")


class Unsupported(KleeneError):
    """An engine (or a policy) cannot handle this pattern; ``reason`` says why."""

    code = "unsupported"


class TieError(KleeneError):
    """``MATCH_RECOGNIZE`` input rows tied on every ``ORDER BY`` key whose order can
    change the answer, refused under ``--ties error``
    (:mod:`kleene.reference.match_recognize.ties`)."""

    code = "ties"


class RecognitionError(PatternError):
    """A ``MATCH_RECOGNIZE`` clause that parses but breaks one of the standard's rules
    (ISO/IEC 9075-2 §7.6 syntax rules; ``kleene.reference.match_recognize.checks`` lists
    the codes): ``code`` names the rule, stable for tests and case files; ``line`` and
    ``column`` point at the offending node."""

    def __init__(self, code: str, message: str, *, line: int, column: int,
                 source: str = "<query>") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.source = source

    def __str__(self) -> str:
        return f"{self.source}:{self.line}:{self.column}: {self.message} [{self.code}]"
