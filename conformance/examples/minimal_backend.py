#!/usr/bin/env python3
"""A complete minimal Kleene backend in Python (standard library only; docs/backends.md).

It speaks protocol 1 over stdin/stdout (one JSON object per line) and
computes SES patterns of singleton variables under the ``any`` policy
(seed 000 Def. 2): a match binds every variable to one event, no event
twice, every condition holds (SQL three-valued logic: a missing attribute or
a comparison of a string with a number is unknown, and unknown is not true),
every event of a set comes strictly before (``ts``) every event of the next
set, and ``max ts - min ts <= tau``. It claims exactly ``ses`` and
``ses:any``: the runner skips every case needing anything else, with the
reason.

    kleene conform --backend "cmd:python3 conformance/examples/minimal_backend.py"
"""

import json
import re
import sys

NAME, VERSION = "minimal-python", "1.0"
CAPABILITIES = ["ses", "ses:any"]
UNIT_MS = {"ms": 1, "s": 1000, "sec": 1000, "second": 1000, "seconds": 1000,
           "min": 60_000, "minute": 60_000, "minutes": 60_000, "h": 3_600_000,
           "hour": 3_600_000, "hours": 3_600_000, "d": 86_400_000, "day": 86_400_000,
           "days": 86_400_000}
TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<str>'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")"
                   r"|(?P<op><>|!=|<=|>=|[=<>(),.{}+-])|(?P<word>[A-Za-z_]\w*))")


class Unsupported(Exception):
    """A pattern outside the fragment (code ``unsupported``) or malformed (``syntax``)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def tokens(text):
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise Unsupported("syntax", f"unexpected character at {pos}: {text[pos]!r}")
        kind = m.lastgroup
        assert kind is not None             # a non-empty match ends in one named group
        value = m.group(kind)
        if kind == "str":
            value = value[1:-1].replace(value[0] * 2, value[0])
        elif kind == "num":
            value = float(value) if "." in value else int(value)
        out.append((kind, value))
        pos = m.end()
    return out


class Parser:
    """``PATTERN <{a, b}, {c}> [WHERE condition] WITHIN n [unit]``."""

    def __init__(self, text):
        self.toks, self.i = tokens(text), 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def word(self, *words):
        kind, value = self.peek()
        return kind == "word" and str(value).upper() in words

    def take(self, value=None):
        tok = self.peek()
        if tok[0] is None or (value is not None and tok[1] != value):
            raise Unsupported("syntax", f"expected {value!r}, found {tok[1]!r}")
        self.i += 1
        return tok[1]

    def pattern(self):
        if not self.word("PATTERN"):
            raise Unsupported("syntax", "a pattern starts with PATTERN")
        self.take()
        self.take("<")
        sets = []
        while True:
            self.take("{")
            names = []
            while True:
                names.append(self.take())
                if self.peek()[1] == "+":
                    raise Unsupported("unsupported", "group variables are not in this fragment")
                if self.peek()[1] != ",":
                    break
                self.take(",")
            self.take("}")
            sets.append(names)
            if self.peek()[1] != ",":
                break
            self.take(",")
        self.take(">")
        keys = []
        if self.word("PARTITION"):          # PARTITION BY a, b: v.a = w.a for every pair
            self.take()
            if not self.word("BY"):
                raise Unsupported("syntax", "expected BY after PARTITION")
            self.take()
            keys.append(self.take())
            while self.peek()[1] == ",":
                self.take(",")
                keys.append(self.take())
        condition: tuple[object, ...] = ("true",)
        if self.word("WHERE"):
            self.take()
            condition = self.disjunction()
        names = [v for part in sets for v in part]
        pairs = [("cmp", "=", ("attr", v, a), ("attr", w, a))
                 for a in keys for i, v in enumerate(names) for w in names[i + 1:]]
        if pairs:
            condition = ("and", [*pairs, condition])
        if not self.word("WITHIN"):
            raise Unsupported("syntax", "expected WITHIN")
        self.take()
        tau = self.take()
        unit = self.take() if self.peek()[0] == "word" else None
        if self.peek()[0] is not None:
            raise Unsupported("syntax", f"unexpected {self.peek()[1]!r} after the window")
        names = [v for part in sets for v in part]
        if len(set(names)) != len(names):
            raise Unsupported("syntax", "a variable is declared twice")
        undeclared = variables(condition) - set(names)
        if undeclared:
            raise Unsupported("syntax", f"undeclared variables: {sorted(undeclared)}")
        return sets, condition, tau, unit

    def disjunction(self):
        parts = [self.conjunction()]
        while self.word("OR"):
            self.take()
            parts.append(self.conjunction())
        return ("or", parts) if len(parts) > 1 else parts[0]

    def conjunction(self):
        parts = [self.atom()]
        while self.word("AND"):
            self.take()
            parts.append(self.atom())
        return ("and", parts) if len(parts) > 1 else parts[0]

    def atom(self):
        if self.word("NOT"):
            self.take()
            return ("not", self.atom())
        if self.word("TRUE", "FALSE"):
            return ("true",) if str(self.take()).upper() == "TRUE" else ("false",)
        if self.peek()[1] == "(":
            self.take("(")
            inner = self.disjunction()
            self.take(")")
            return inner
        left = self.term()
        op = self.take()
        if op not in ("=", "!=", "<>", "<", "<=", ">", ">="):
            raise Unsupported("syntax", f"expected a comparison, found {op!r}")
        return ("cmp", "!=" if op == "<>" else op, left, self.term())

    def term(self):
        kind, value = self.peek()
        if kind in ("num", "str"):
            self.take()
            return ("const", value)
        if value == "-":
            self.take()
            return ("const", -self.take())
        if kind == "word" and str(value).lower() == "prev" or kind != "word":
            raise Unsupported("unsupported", f"{value!r}: only var.attr, numbers and strings")
        var = self.take()
        self.take(".")
        return ("attr", var, self.take())


def variables(c):
    """The variables a condition reads."""
    if c[0] == "cmp":
        return {t[1] for t in c[2:] if t[0] == "attr"}
    if c[0] == "not":
        return variables(c[1])
    if c[0] in ("and", "or"):
        return set().union(*(variables(x) for x in c[1]))
    return set()


def kind(v):
    return "bool" if isinstance(v, bool) else "num" if isinstance(v, (int, float)) else "str"


def evaluate(c, binding):
    """True, False or None (unknown), SQL style."""
    tag = c[0]
    if tag in ("true", "false"):
        return tag == "true"
    if tag == "not":
        v = evaluate(c[1], binding)
        return None if v is None else not v
    if tag in ("and", "or"):
        values = [evaluate(x, binding) for x in c[1]]
        decisive = tag == "or"
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    _, op, left, right = c
    a, b = (t[1] if t[0] == "const" else binding[t[1]].get(t[2]) for t in (left, right))
    if a is None or b is None or kind(a) != kind(b):
        return None
    return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def matches(request):
    if request["language"] != "ses" or request["policy"] != "any":
        raise Unsupported("unsupported", "only SES patterns under the any policy")
    sets, condition, tau, unit = Parser(request["pattern"]).pattern()
    if unit is not None:
        if request["time_unit"] is None:
            raise Unsupported("pattern", "the window has a unit, the timestamps have none")
        tau = tau * UNIT_MS[unit.lower()] / UNIT_MS[request["time_unit"]]
    strict = request["window"] == "strict"
    names = [v for part in sets for v in part]
    set_of = {v: i for i, part in enumerate(sets) for v in part}
    events = request["events"]
    out = []

    def extend(chosen):
        if len(chosen) == len(names):
            ts = [events[p]["ts"] for p in chosen]
            span = max(ts) - min(ts)
            if span > tau or (strict and span == tau):
                return
            for x, px in zip(names, chosen, strict=True):
                for y, py in zip(names, chosen, strict=True):
                    if set_of[x] < set_of[y] and not events[px]["ts"] < events[py]["ts"]:
                        return
            binding = dict(zip(names, (events[p] for p in chosen), strict=True))
            if evaluate(condition, binding) is True:
                out.append({v: [p] for v, p in zip(names, chosen, strict=True)})
            return
        for p in range(len(events)):
            if p not in chosen:
                extend(chosen + [p])

    extend([])
    return out


def main():
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "hello":
            answer = {"protocol": 1, "name": NAME, "version": VERSION,
                      "capabilities": CAPABILITIES}
        elif message["cmd"] == "run":
            try:
                answer = {"seq": message["seq"], "matches": matches(message)}
            except Unsupported as err:
                answer = {"seq": message["seq"], "error": {"code": err.code, "message": str(err)}}
        else:  # bye
            return
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
