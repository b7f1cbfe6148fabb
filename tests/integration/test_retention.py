"""The retention benchmark's replay, shortened, as a regression test: the real host API, window, queue,
update service and engine on embedded SQLite, with the offline summarizer and the 10k-token cap."""

from __future__ import annotations

import pytest

from benchmarks.retention_bench import replay
from summarizer.settings import LLMChoice

pytestmark = pytest.mark.slow


def test_the_offline_summarizer_keeps_nine_in_ten_planted_decisions_over_sixteen_days() -> None:
    result = replay(LLMChoice.OFFLINE, days=16)
    assert result.counted >= 30, "facts from the last 14 days of the replay are counted"
    assert result.share >= 0.9, result.missing
    assert result.summary_tokens <= 10_000
    assert result.max_ellipses <= 1
    assert result.largest_item_exchanges < result.exchanges_cited // 4
