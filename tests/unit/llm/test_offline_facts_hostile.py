"""The offline summarizer reads every evicted exchange, tool output included: a long run of the characters
its artifact patterns start with (a minified file, `a.a.a.`, `1.1.1.`) must cost one pass, not its length
squared (200 KB took 84 s, a worker stalled on one exchange)."""

from __future__ import annotations

import pytest

from summarizer.llm.offline.facts import artifacts_in, facts_of_text


@pytest.mark.timeout(60)
@pytest.mark.parametrize("filler", ["a.", "a-", "1.", "A-", "a@", "x==", "1,"])
def test_a_long_run_of_artifact_characters_is_read_in_one_pass(filler: str) -> None:
    text = filler * (200_000 // len(filler))
    facts_of_text(text)
    assert artifacts_in(f"{text} see src/auth/refresh.py and PyJWT 2.8.0")[-2:] == [
        "src/auth/refresh.py",
        "PyJWT 2.8.0",
    ]


def test_artifacts_are_still_found_where_they_start() -> None:
    found = artifacts_in(
        "Pinned pyjwt==2.8.0 (Python 3.12), mail ops@example.com, waited 30 seconds and 1,500 tokens; "
        "GET /v1/agents and src/auth/refresh.py"
    )
    for expected in (
        "pyjwt==2.8.0",
        "Python 3.12",
        "ops@example.com",
        "30 seconds",
        "1,500 tokens",
        "GET /v1/agents",
        "src/auth/refresh.py",
    ):
        assert expected in found
