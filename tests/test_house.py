"""scripts/house.py, the house rules `make lint` checks, on small hand-written trees."""

from __future__ import annotations

from scripts.house import copied_helpers, dead

HELPER = '''
def stream(*types):
    """Events of the given types."""
    return [(i, t) for i, t in enumerate(types)]
'''


def test_a_definition_named_nowhere_else_is_dead() -> None:
    texts = {"reference/a.py": "def used():\n    return 1\n\n\ndef unused():\n    return used()\n",
             "docs/a.md": "`used` is documented\n"}
    assert list(dead(texts)) == ["reference/a.py:5: unused is defined but never used"]


def test_registered_functions_tests_and_hooks_are_not_dead() -> None:
    texts = {"x.py": "import atexit\n\n\n@atexit.register\ndef _clean():\n    pass\n\n\n"
                     "def test_it():\n    pass\n\n\ndef pytest_configure(config):\n    pass\n"}
    assert list(dead(texts)) == []


def test_a_helper_copied_between_test_files_is_found_whatever_its_name() -> None:
    texts = {"tests/test_a.py": HELPER, "tests/test_b.py": HELPER.replace("stream", "events"),
             "tests/test_c.py": HELPER.replace("enumerate(types)", "enumerate(types, 1)")}
    assert list(copied_helpers(texts)) == [
        "tests/test_a.py:2 stream, tests/test_b.py:2 events: one helper copied "
        "(tests/helpers.py)"]


def test_a_helper_reading_its_own_module_is_not_a_copy() -> None:
    body = "EVENTS = {}\n\n\ndef files():\n    return EVENTS\n"
    texts = {"tests/test_a.py": body, "tests/test_b.py": body.replace("{}", "{1: 2}")}
    assert list(copied_helpers(texts)) == []
