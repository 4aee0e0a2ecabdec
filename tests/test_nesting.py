"""Deeply nested patterns: a documented limit (reference/syntax.py ``MAX_NESTING``)
with a one-line file:line:col error, never a ``RecursionError`` (issue 11)."""

from __future__ import annotations

import pytest

from kleene.reference.errors import PatternSyntaxError
from kleene.reference.events import Stream
from kleene.reference.languages import language_named
from kleene.reference.query import Query
from kleene.reference.syntax import MAX_NESTING


def _texts(n: int) -> dict[str, str]:
    return {
        "ses": "PATTERN <{a}> WHERE " + "(" * n + "a.x = 1" + ")" * n + " WITHIN 5",
        "operator": "PATTERN SEQ(A a) WHERE " + "NOT " * n + "a.x = 1 WITHIN 5",
        "sremo": "(" * n + "{~.x = 1}" + ")" * n,
        "wayeb": "!(" * n + "A" + ")" * n,
    }


@pytest.mark.parametrize("language", ["ses", "operator", "sremo", "wayeb"])
@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 5_000])
def test_too_deep_is_one_syntax_error(language: str, depth: int) -> None:
    text = _texts(depth)[language]
    with pytest.raises(PatternSyntaxError) as info:
        language_named(language).parse(text, "deep.pat")
    head = str(info.value).splitlines()[0]
    assert head.startswith("deep.pat:1:")
    assert f"nesting deeper than {MAX_NESTING} levels" in head


@pytest.mark.parametrize("language", ["ses", "operator", "sremo"])
def test_at_the_limit_parses_prints_and_matches(language: str) -> None:
    lang = language_named(language)
    depth = MAX_NESTING - 2 if language != "operator" else MAX_NESTING - 1
    pattern = lang.parse(_texts(depth)[language], "ok.pat")
    assert lang.format(pattern)
    stream = Stream.from_rows([{"ts": 0, "type": "A", "x": 1}])
    Query.of(pattern, policy=lang.default_policy).reference(stream)
