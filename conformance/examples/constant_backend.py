"""Two constant backends: what a corpus with a strong pass signal must fail (issue 28).

Each claims every feature of every language (:func:`~kleene.reference.query.all_features`)
and answers without looking at the conditions, the policy or the window:

- ``--answer empty`` (``:empty``): no match, ever;
- ``--answer all-subsets`` (``:all_subsets``): every non-empty subset of the positions,
  bound as the language binds them. SREMO and Wayeb's ``.sre`` queries (a match is the
  set of marked positions, the variable ``~``): ``{"~": S}`` for every non-empty subset
  ``S``. SES and operator patterns (a match binds variables): every way to bind the
  pattern's positive variables to pairwise disjoint non-empty sets of positions, a
  singleton variable to one position, a group variable (SES ``v+``, a variable under an
  operator's iteration) to any non-empty set. Only the first :data:`POSITIONS`
  positions are used (12: 4,095 subsets) and at most :data:`CAP` matches are
  answered, in a fixed order (variables by name, positions and subsets by their
  bits); a query Kleene rejects (its text, policy or window) gets no match.

``tests/test_conform_constant.py`` runs both through ``kleene conform`` over every
case file and checks that each fails at least 90 % of the tests that reach it
(docs/backends.md, "Constant backends"). As a plug-in or as an external command:

    kleene conform --backend kleene.conformance.examples.constant_backend:all_subsets -q
    kleene conform -q --backend \
        "cmd:python -m kleene.conformance.examples.constant_backend --answer empty"
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from functools import cache
from itertools import islice

from kleene import __version__
from kleene.conformance.outcome import Outcome
from kleene.conformance.serve import serve
from kleene.conformance.wire import AnyRequest, Request
from kleene.engines.protocol import Feature
from kleene.reference.errors import KleeneError
from kleene.reference.match import Match
from kleene.reference.operators.pattern import OperatorPattern, iterated_variables
from kleene.reference.query import Query, all_features
from kleene.reference.ses.pattern import SESPattern

#: The positions an ``all-subsets`` answer uses: the first 12 (4,095 non-empty subsets).
POSITIONS = 12

#: The most matches one ``all-subsets`` answer holds: more than any test expects, so
#: the cap decides no verdict (tests/test_conform_constant.py checks it).
CAP = 256

#: The answers, by their ``--answer`` name.
ANSWERS = ("empty", "all-subsets")


def shape(request: Request) -> list[tuple[str, bool]] | None:
    """The variables a match of ``request``'s pattern binds, each with whether it binds
    a set (``True``) or one position; ``None`` when Kleene rejects the query."""
    if request.language in ("sremo", "wayeb"):
        return [("~", True)]
    try:
        pattern = Query.parse(request.pattern, language=request.language,
                              policy=request.policy, reading=request.window,
                              time_unit=request.time_unit).pattern
    except KleeneError:
        return None
    if isinstance(pattern, SESPattern):
        return [(v.name, v.group) for v in pattern.variables]
    if isinstance(pattern, OperatorPattern):
        groups = iterated_variables(pattern.expr)
        return [(v, v in groups) for v in pattern.names]
    return None


def subsets(free: int) -> list[int]:
    """The non-empty subsets of the bit set ``free``, as bit sets, smallest number first."""
    out, s = [], free
    while s:
        out.append(s)
        s = (s - 1) & free
    return out[::-1]


def bindings(variables: list[tuple[str, bool]], free: int
             ) -> Iterator[tuple[tuple[str, int], ...]]:
    """Every binding of ``variables`` to pairwise disjoint non-empty subsets of ``free``."""
    if not variables:
        yield ()
        return
    (name, group), rest = variables[0], variables[1:]
    choices = subsets(free) if group else [1 << p for p in positions(free)]
    for chosen in choices:
        for tail in bindings(rest, free & ~chosen):
            yield ((name, chosen), *tail)


@cache
def positions(bits: int) -> tuple[int, ...]:
    """The positions of the bit set ``bits``, ascending."""
    return tuple(p for p in range(bits.bit_length()) if bits >> p & 1)


def every_subset(request: Request) -> tuple[Match, ...]:
    """The ``all-subsets`` answer to ``request`` (the module docstring)."""
    variables = shape(request)
    if variables is None:
        return ()
    free = (1 << min(len(request.events), POSITIONS)) - 1
    ordered = sorted(variables)      # a Match's bindings are sorted by variable
    return tuple(Match(tuple((v, positions(bits)) for v, bits in sorted(binding)))
                 for binding in islice(bindings(ordered, free), CAP))


class ConstantBackend:
    """A backend that claims everything and answers ``empty`` or ``all-subsets``."""

    version = __version__

    def __init__(self, answer: str) -> None:
        if answer not in ANSWERS:
            raise ValueError(f"answer {answer!r}: one of {', '.join(ANSWERS)}")
        self.answer = answer
        self.name = f"constant-{answer}"
        self.origin = f"kleene.conformance.examples.constant_backend --answer {answer}"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return all_features()

    def run(self, request: AnyRequest, *, timeout: float | None = None) -> Outcome:
        if not isinstance(request, Request):
            return Outcome(declined="a constant backend answers no table request")
        start = time.perf_counter()
        found = every_subset(request) if self.answer == "all-subsets" else ()
        return Outcome(matches=found, seconds=time.perf_counter() - start)

    def close(self) -> None:
        """Nothing to release."""


def empty() -> ConstantBackend:
    """The factory of the ``empty`` backend (``module:factory``)."""
    return ConstantBackend("empty")


def all_subsets() -> ConstantBackend:
    """The factory of the ``all-subsets`` backend (``module:factory``)."""
    return ConstantBackend("all-subsets")


def main(argv: list[str] | None = None) -> int:
    """Serve one constant backend over the protocol (``cmd:``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answer", choices=ANSWERS, required=True)
    return serve(ConstantBackend(parser.parse_args(argv).answer))


if __name__ == "__main__":
    sys.exit(main())
