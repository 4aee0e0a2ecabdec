"""The pytest plug-in: ``pytest --kleene-backend=BACKEND`` runs the conformance cases
inside a backend's own test suite (registered as the ``pytest11`` entry point
``kleene``; without the option it does nothing).

Each ``matches`` test of the case files becomes one pytest item named by its
case id: it passes, fails with the copy-paste reproduction of ``kleene
conform``, or is skipped with the reason (the features the backend does not
claim). ``--kleene-generated=N`` adds one item per language running N
Hypothesis-drawn queries, shrunk on failure; ``--kleene-timeout`` is the
per-case limit. BACKEND takes every form ``kleene conform --backend`` takes.
"""

from __future__ import annotations

from typing import Any

import pytest

_BACKEND = pytest.StashKey[Any]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kleene", "Kleene conformance cases")
    group.addoption("--kleene-backend", metavar="BACKEND", default=None,
                    help="run the Kleene conformance cases against BACKEND (an engine name, "
                         "module:factory, entry point or cmd:COMMAND)")
    group.addoption("--kleene-timeout", type=float, default=30.0, metavar="SECONDS",
                    help="per-case time limit of the Kleene cases (default 30)")
    group.addoption("--kleene-generated", type=int, default=0, metavar="N",
                    help="add N Hypothesis-drawn queries per language")


def pytest_configure(config: pytest.Config) -> None:
    spec = config.getoption("--kleene-backend", default=None)
    if not spec:
        return
    # lazy: every pytest run loads this plug-in; Kleene only with --kleene-backend
    from kleene.conformance.backends import find_backend
    from kleene.reference.errors import KleeneError

    try:
        config.stash[_BACKEND] = find_backend(spec, timeout=config.getoption("--kleene-timeout"))
    except KleeneError as err:
        raise pytest.UsageError(f"--kleene-backend: {err}") from None


def pytest_unconfigure(config: pytest.Config) -> None:
    backend = config.stash.get(_BACKEND, None)
    if backend is not None:
        backend.close()


def pytest_report_header(config: pytest.Config) -> str | None:
    backend = config.stash.get(_BACKEND, None)
    if backend is None:
        return None
    # lazy: every pytest run loads this plug-in; Kleene only with --kleene-backend
    from kleene.conformance.report import header
    from kleene.conformance.runner import new_report

    return "kleene " + header(new_report(backend))


class KleeneFailure(AssertionError):
    """A conformance failure; its message is the reproduction."""


class KleeneCase(pytest.Item):
    """One conformance test (or one language's generated queries)."""

    def __init__(self, *, case: Any = None, test: Any = None, language: str = "",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case, self.test, self.language = case, test, language

    def runtest(self) -> None:
        # lazy: every pytest run loads this plug-in; Kleene only with --kleene-backend
        from kleene.conformance.runner import FAIL, SKIP, run_test

        backend = self.config.stash[_BACKEND]
        timeout = self.config.getoption("--kleene-timeout")
        if self.case is not None:
            result = run_test(backend, self.case, self.test, timeout=timeout)
        else:
            # lazy: Hypothesis only for the generated cases
            from kleene.conformance.generated import check_language

            result = check_language(backend, self.language,
                                    self.config.getoption("--kleene-generated"), timeout=timeout)
        if result.status == SKIP:
            pytest.skip(result.reason)
        if result.status == FAIL:
            raise KleeneFailure(result.reproduction or result.reason)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, KleeneFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"kleene case {self.name}"


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    if config.stash.get(_BACKEND, None) is None:
        return
    # lazy: every pytest run loads this plug-in; Kleene only with --kleene-backend
    from kleene.conformance.cases import case_id, iter_tests, load_case_files
    from kleene.reference.languages import LANGUAGES

    for case, test in iter_tests(load_case_files()):
        if test.check == "matches":
            items.append(KleeneCase.from_parent(session, name=f"kleene/{case_id(case, test)}",
                                                case=case, test=test))
    if config.getoption("--kleene-generated") > 0:
        for language in LANGUAGES:
            items.append(KleeneCase.from_parent(session, name=f"kleene/generated/{language}",
                                                language=language))
