"""The regular expressions of ``LIKE``: the syntax RE2 and Python's ``re`` read alike.

CORE's ``LIKE`` (docs/ceql.md, "What a query means") compiles its string as an RE2
regular expression and holds where ``re2::RE2::PartialMatch`` finds it anywhere in the
attribute's value (``CompareWithRegexStronglyTyped`` / ``...WeaklyTyped`` under CORE's
``src/core_server/internal/evaluation/physical_predicate/like_predicate/``); Arrow's
``match_substring_regex`` is the same partial match by RE2. The reference decides it
with Python's ``re.search``. RE2 and ``re`` differ (RE2 has no backreferences, no
look-around, no possessive quantifiers; ``\\d``/``\\w``/``\\s``/``\\b`` are ASCII in RE2
and Unicode in ``re``; ``$`` is the end of the text in RE2 and also before a last
newline in ``re``; ``\\C``, ``\\pL``, ``\\Q...\\E``, ``[[:alpha:]]`` are RE2's only;
``{,n}`` is a repetition in ``re`` and text in RE2), so a pattern is read only in the
subset where they agree (docs/ceql.md, "LIKE")::

    alt     := concat ("|" concat)*
    concat  := piece*
    piece   := "^" | "$" | atom [quant]
    atom    := char | "." | "(" ["?:"] alt ")" | class | escape
    quant   := ("*" | "+" | "?" | "{" n "}" | "{" n ",}" | "{" n "," m "}") ["?"]
               (n ≤ m ≤ 1000, and at most 1000 for nested counts multiplied;
               groups nested at most 100 deep)
    class   := "[" ["^"] ["-"] item+ ["-"] "]"   item := cchar ["-" cchar] (a ≤ b)
    escape  := "\\" (ASCII punctuation | "n" | "t" | "r" | "f" | "v")

``char`` is any character but ``\\ . ^ $ | ? * + ( ) [ ] { }``; ``cchar`` any but
``\\ [ ] -`` (or an escape). Everything else is refused at its offset with one line:
:class:`RegexRefused`. On the subset, :func:`python_pattern` is the ``re`` pattern with
the same partial matches as RE2's: the same text, ``$`` written ``\\Z`` (tests/test_like.py
checks Arrow's RE2 against it on drawn patterns and strings).
"""

from __future__ import annotations

import functools
import re
import string

#: RE2's largest repetition count (``kMaxRepeat``).
MAX_REPEAT = 1000
#: The deepest nesting of groups read (as patterns nest, reference/syntax.py's
#: ``MAX_NESTING``): deeper is refused before Python's recursion limit is met.
MAX_GROUPS = 100

#: The control escapes both read, and the character each stands for.
_CONTROL = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}
_PUNCTUATION = frozenset(string.punctuation)


class RegexRefused(ValueError):
    """A pattern outside the subset, or invalid: ``offset`` is where, in the pattern."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message, self.offset = message, offset


class _Reader:
    """Recursive descent over the grammar of the module docstring, writing the
    ``re`` pattern as it goes."""

    def __init__(self, pattern: str) -> None:
        self.s, self.i = pattern, 0
        self.out: list[str] = []

    def peek(self, k: int = 0) -> str:
        return self.s[self.i + k] if self.i + k < len(self.s) else ""

    def refuse(self, message: str, at: int | None = None) -> RegexRefused:
        return RegexRefused(message, self.i if at is None else at)

    def take(self) -> str:
        ch = self.s[self.i]
        self.i += 1
        self.out.append(ch)
        return ch

    def alt(self, depth: int) -> int:
        """The alternatives; returns the largest product of counted repetitions inside."""
        weight = self.concat(depth)
        while self.peek() == "|":
            self.take()
            weight = max(weight, self.concat(depth))
        return weight

    def concat(self, depth: int) -> int:
        weight = 1
        while self.peek() not in ("", "|", ")"):
            weight = max(weight, self.piece(depth))
        return weight

    def piece(self, depth: int) -> int:
        ch = self.peek()
        if ch in ("^", "$"):
            self.i += 1
            self.out.append(r"\Z" if ch == "$" else "^")
            if self.peek() in ("*", "+", "?", "{"):
                raise self.refuse(f"nothing to repeat before {self.peek()!r}: an anchor "
                                  "cannot be repeated")
            return 1
        weight = self.atom(depth)
        return weight * self.quantifier()

    def atom(self, depth: int) -> int:
        ch, start = self.peek(), self.i
        if ch in ("*", "+", "?"):
            raise self.refuse(f"nothing to repeat before {ch!r} (write \\{ch} for the "
                              "character)")
        if ch in ("{", "}"):
            raise self.refuse(f"{ch!r} outside a repetition {{n,m}}: write \\{ch} for the "
                              "character (RE2 and Python read a loose brace apart)")
        if ch == "]":
            raise self.refuse("']' with no '[' before it: write \\] for the character")
        if ch == "(":
            if depth >= MAX_GROUPS:
                raise self.refuse(f"groups nested deeper than {MAX_GROUPS} levels")
            self.take()
            if self.peek() == "?":
                if self.peek(1) != ":":
                    raise self.refuse("(?...) is read only as (?:...): named groups, "
                                      "look-around and flags differ between RE2 and Python "
                                      "or are missing from RE2", start)
                self.take()
                self.take()
            weight = self.alt(depth + 1)
            if self.peek() != ")":
                raise self.refuse("the group opened here has no ')'", start)
            self.take()
            return weight
        if ch == ")":
            raise self.refuse("')' with no '(' before it: write \\) for the character")
        if ch == "[":
            self.char_class()
            return 1
        if ch == "\\":
            self.escape()
            return 1
        self.take()
        return 1

    def escape(self) -> str:
        start = self.i
        nxt = self.peek(1)
        if nxt == "":
            raise self.refuse("a trailing backslash escapes nothing", start)
        if nxt.isdigit():
            raise self.refuse(f"\\{nxt} is a backreference, and RE2 has none", start)
        if not (nxt in _PUNCTUATION or nxt in _CONTROL):
            raise self.refuse(f"\\{nxt} is not read: only punctuation and \\n \\t \\r \\f \\v "
                              "are escaped alike by RE2 and Python (\\d \\w \\s \\b are ASCII "
                              "in RE2, Unicode in Python; write a class such as [0-9])", start)
        self.take()
        return _CONTROL.get(self.take(), nxt)

    def class_char(self) -> str:
        ch = self.peek()
        if ch == "":
            raise self.refuse("a class with no ']'")
        if ch == "[":
            raise self.refuse("'[' inside a class is not read (RE2's [:alpha:], Python's "
                              "nested sets): write \\[ for the character")
        if ch == "\\":
            return self.escape()
        if ch + self.peek(1) in ("&&", "||", "~~", "--"):
            raise self.refuse(f"{ch + ch!r} inside a class is not read (Python reserves it "
                              "for set operations): escape one of them")
        return self.take()

    def char_class(self) -> None:
        start = self.i
        self.take()
        if self.peek() == "^":
            self.take()
        if self.peek() == "]":
            raise self.refuse("an empty class, or ']' first in a class: write \\] for the "
                              "character")
        if self.peek() == "-":
            self.take()
            if self.peek() == "-":
                raise self.refuse("'--' inside a class is not read (Python reserves it for "
                                  "set operations): escape one of them")
        while self.peek() != "]":
            if self.peek() == "":
                raise self.refuse("the class opened here has no ']'", start)
            at = self.i
            low = self.class_char()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.take()
                if self.peek() == "-":
                    raise self.refuse("'-' after a range's '-': escape it")
                high = self.class_char()
                if high < low:
                    raise self.refuse(f"the range {low!r}-{high!r} runs backwards", at)
                if self.peek() == "-" and self.peek(1) != "]":
                    raise self.refuse("'-' right after a range: escape it or put it last")
        self.take()

    def quantifier(self) -> int:
        ch = self.peek()
        if ch in ("*", "+", "?"):
            self.take()
            weight = 1
        elif ch == "{":
            weight = self.counted()
        else:
            return 1
        if self.peek() == "?":
            self.take()
        if self.peek() in ("*", "+", "?", "{"):
            raise self.refuse("a repetition of a repetition is not read (RE2 has no "
                              "possessive a*+, Python refuses a**)")
        return weight

    def counted(self) -> int:
        start = self.i
        close = self.s.find("}", self.i)
        body = self.s[self.i + 1:close] if close >= 0 else ""
        m = re.fullmatch(r"(\d+)(,(\d*))?", body)
        if m is None:
            raise self.refuse("'{' starts a repetition {n}, {n,} or {n,m} here: write \\{ "
                              "for the character", start)
        low = int(m.group(1))
        high = low if m.group(2) is None else int(m.group(3)) if m.group(3) else None
        if max(low, high or 0) > MAX_REPEAT:
            raise self.refuse(f"a repetition count above {MAX_REPEAT} (RE2's limit)", start)
        if high is not None and high < low:
            raise self.refuse(f"the repetition {{{body}}} has its bounds backwards", start)
        self.out.append(self.s[self.i:close + 1])
        self.i = close + 1
        return max(low, high or low, 1)


def _read(pattern: str) -> str:
    r = _Reader(pattern)
    weight = r.alt(0)
    if r.i < len(pattern):          # only a ')' stops the top level early
        raise r.refuse("')' with no '(' before it: write \\) for the character")
    if weight > MAX_REPEAT:
        raise RegexRefused(f"nested repetitions count more than {MAX_REPEAT} (RE2's limit)", 0)
    return "".join(r.out)


def check_pattern(pattern: str) -> None:
    """Nothing when ``pattern`` is in the subset; :class:`RegexRefused` at its offset
    otherwise."""
    _read(pattern)


@functools.lru_cache(maxsize=256)
def python_pattern(pattern: str) -> re.Pattern[str]:
    """The ``re`` pattern whose ``search`` holds exactly where RE2's ``PartialMatch``
    of ``pattern`` does (``pattern`` in the subset; :class:`RegexRefused` otherwise)."""
    return re.compile(_read(pattern))


def partial_match(pattern: str, value: str) -> bool:
    """RE2's ``PartialMatch(value, pattern)``: ``pattern`` found anywhere in ``value``."""
    return python_pattern(pattern).search(value) is not None
