"""A search pauses Python's cycle collector while it reads and ranks, and always leaves it as it was."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence

import pytest

from summarizer.domain.errors import UnknownAgent
from summarizer.domain.recall import RecallFilter, TermHits
from summarizer.service.recall import Recall, _no_cycle_collection
from summarizer.storage.values import RecallDetails


class FakeRecallStore:
    """Knows one agent, whose history holds no match; notes whether the collector ran during a read."""

    def __init__(self) -> None:
        self.collector_on_during_read: list[bool] = []

    def term_hits(
        self, agent_id: str, terms: Sequence[str], filters: RecallFilter, cap: int
    ) -> TermHits | None:
        self.collector_on_during_read.append(gc.isenabled())
        if agent_id != "known":
            return None
        return TermHits(messages=3, hits={t: [] for t in terms})

    def recall_details(
        self, agent_id: str, exchange_ids: Sequence[int], seqs: Sequence[int]
    ) -> RecallDetails:
        raise AssertionError("no page to show")


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_is_paused_for_the_read_and_resumed_after() -> None:
    store = FakeRecallStore()
    page = Recall(store).search("known", "grace window")
    assert page.total == 0
    assert store.collector_on_during_read == [False]
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_a_failed_search_resumes_the_collector() -> None:
    with pytest.raises(UnknownAgent):
        Recall(FakeRecallStore()).search("nobody", "grace window")
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_host_stays_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        Recall(FakeRecallStore()).search("known", "grace window")
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


@pytest.mark.usefixtures("collector_on")
def test_overlapping_searches_keep_the_collector_paused_until_the_last_one_ends() -> None:
    first, second = _no_cycle_collection(), _no_cycle_collection()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first search ends while the second still reads
    assert not gc.isenabled(), "the first search to end resumed the collector under the other"
    second.__exit__(None, None, None)
    assert gc.isenabled()
