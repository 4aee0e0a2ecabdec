"""``kleene conform``: the options that make the suite a product (issue 28, items 4-5).

``--languages`` and ``--features`` select tests
(:class:`kleene.conformance.selection.Selection`), ``--expected-failures FILE`` marks a
backend's known failures (:mod:`kleene.conformance.expected_failures`), ``--json FILE``
writes the results (:mod:`kleene.conformance.results`), ``--seed N`` draws ``--generated``
queries from another seed. Every option here is checked before the first test, and
every file it names is checked against the run's inputs (:mod:`kleene.data.outputs`).
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from kleene.conformance.backends import import_folder
from kleene.conformance.cases import CaseFile, case_id, iter_tests
from kleene.conformance.expected_failures import check_known, load
from kleene.conformance.generated import DEFAULT_SEED
from kleene.conformance.report import slow_warning, unexpected_passes
from kleene.conformance.results import json_text, results_document, write_json
from kleene.conformance.runner import Report, selected_tests
from kleene.conformance.selection import Selection, parse_features, parse_languages
from kleene.data.outputs import check_writable, refuse_inputs
from kleene.reference.errors import KleeneError
from kleene.reference.languages import LANGUAGES

#: The ``--json`` target that is standard output (the text report then goes to stderr).
STDOUT = "-"

#: The options of this module, for the runs that take none of them.
OPTIONS = ("--languages", "--features", "--expected-failures", "--json", "--seed")


def add_product_options(parser: argparse.ArgumentParser) -> None:
    """Declare ``--languages``, ``--features``, ``--expected-failures``, ``--json`` and
    ``--seed``."""
    parser.add_argument("--languages", metavar="LANG,...",
                        help="run only the tests of these languages "
                             f"({', '.join(LANGUAGES)})")
    parser.add_argument("--features", metavar="FEATURE,...",
                        help="run only the tests that need one of these features "
                             "(operator:prev, ses:next, ...: docs/backends.md, Capabilities)")
    parser.add_argument("--expected-failures", metavar="FILE",
                        help="the tests the backend is known to fail, each with its reason "
                             "(text: ID REASON per line; or a JSON list of {id, reason}): "
                             "one that fails does not fail the run, one that passes does")
    parser.add_argument("--json", metavar="FILE",
                        help="write the results as JSON to FILE (-: standard output, the "
                             "text report then goes to standard error)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help=f"the Hypothesis seed of --generated (default {DEFAULT_SEED}: "
                             "every run draws the same queries)")


def given(args: argparse.Namespace) -> list[str]:
    """The options of this module that ``args`` sets."""
    return [option for option in OPTIONS
            if getattr(args, option[2:].replace("-", "_"), None) is not None]


@dataclass
class Product:
    """What the options ask of a run."""

    selection: Selection
    seed: int
    expected: dict[str, str] = field(default_factory=dict)
    json: str | None = None


def product_of(args: argparse.Namespace, files: Sequence[CaseFile],
               sources: Sequence[str]) -> Product:
    """The options checked before any test: the names of ``--languages`` and
    ``--features``, the selection not empty, every id of ``--expected-failures`` a test,
    ``--json FILE`` none of the run's inputs (``sources``) and writable."""
    if args.seed is not None and not args.generated:
        raise KleeneError("--seed draws the queries of --generated N; give --generated")
    selection = Selection(args.select or None,
                          parse_languages(args.languages) if args.languages else None,
                          parse_features(args.features) if args.features else None)
    if (args.languages or args.features) and not selected_tests(files, selection) and not (
            args.generated and any(map(selection.keeps_generated, LANGUAGES))):
        raise KleeneError("--languages/--features keep no test of the case files")
    product = Product(selection, DEFAULT_SEED if args.seed is None else args.seed)
    inputs = list(sources)
    if args.expected_failures is not None:
        product.expected = load(Path(args.expected_failures))
        known = {case_id(case, test) for case, test in iter_tests(files)}
        check_known(product.expected, known | {f"generated/{name}" for name in LANGUAGES},
                    Path(args.expected_failures))
        inputs.append(args.expected_failures)
    if args.json is not None and args.json != STDOUT:
        refuse_inputs(args.json, inputs, option="--json")
        check_writable(args.json, option="--json")
        product.json = args.json
    elif args.json == STDOUT:
        product.json = STDOUT
    return product


def rerun_command(spec: str, *, spark: bool, generated: int, seed: int
                  ) -> Callable[[str], str]:
    """The command that reruns a test against backend ``spec`` in a fresh shell:
    ``PYTHONPATH=...`` first where the backend's module needs it
    (:func:`kleene.conformance.backends.import_folder`), ``--generated N --seed S`` for a
    generated batch."""
    folder = import_folder(spec)
    prefix = f"PYTHONPATH={shlex.quote(folder)} " if folder else ""

    def rerun(ident: str) -> str:
        drawn = (f" --generated {generated} --seed {seed}"
                 if ident.startswith("generated/") else "")
        return (f"{prefix}kleene conform --backend {shlex.quote(spec)}{' --spark' * spark}"
                f"{drawn} --case {shlex.quote(ident)}")

    return rerun


def before_summary(report: Report, out: TextIO, *, expected_file: str | None) -> None:
    """After the failures, before the summary: the unexpected passes (to remove from the
    expected-failures file) and the slow-test warning."""
    passed = unexpected_passes(report)
    if passed:
        print(f"\n━━ unexpectedly passed: remove them from {expected_file}\n", file=out)
        for r in passed:
            print(f"  {r.id}", file=out)
    warning = slow_warning(report)
    if warning:
        print(f"\n{warning}", file=out)


def write_results(report: Report, product: Product, out: TextIO, *, spec: str) -> None:
    """``--json``: the results to the file (said on ``out``) or to standard output."""
    if product.json is None:
        return
    document = results_document(report, spec=spec)
    if product.json == STDOUT:
        print(json_text(document), end="", flush=True)
    else:
        print(f"JSON results: {write_json(document, product.json)}", file=out)
