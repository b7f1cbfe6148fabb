"""Due rows, dispatch order, requeue and aging, on every backend (the in-memory fake, SQLite, PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from summarizer.domain.queue_states import IDLE, PENDING
from summarizer.engine.model import Tier
from summarizer.service import aging
from tests.contract.harness import ContractStore
from tests.contract.support import Clock, exchange, service


def test_due_lists_fresh_rows_before_retries_and_oldest_first(store: ContractStore) -> None:
    clock = Clock()
    store.evict("late", [exchange(1)], clock() + timedelta(seconds=5))
    store.evict("early", [exchange(1)], clock())
    store.rows["late"].available_at = clock()
    store.rows["early"].available_at = clock() - timedelta(seconds=1)
    store.evict("retrying", [exchange(1)], clock())
    store.rows["retrying"].priority = 1
    store.rows["retrying"].available_at = clock() - timedelta(seconds=9)
    store.evict("backing_off", [exchange(1)], clock())
    store.rows["backing_off"].available_at = clock() + timedelta(seconds=60)
    svc = service(store, clock)
    assert svc.due() == ["early", "late", "retrying"]
    assert svc.due("late") == ["late"]
    assert service(store, clock, dispatch_limit=1).due() == ["early"]


def test_requeue_re_arms_an_idle_agent_and_refuses_an_unknown_one(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(1)], clock())
    svc = service(store, clock)
    svc.run("a")
    assert store.rows["a"].state == IDLE
    assert svc.requeue("a") == IDLE
    assert store.rows["a"].state == PENDING
    assert svc.requeue("nobody") is None


def test_drain_runs_every_due_agent_until_none_is_due(store: ContractStore) -> None:
    clock = Clock()
    for name in ("a", "b", "c"):
        store.evict(name, [exchange(i) for i in (1, 2, 3)], clock())
    report = service(store, clock).drain()
    assert report.by_outcome == {"ok": 3}
    assert all(row.state == IDLE for row in store.rows.values())


def test_aging_moves_yesterdays_items_once_per_day(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(i) for i in (1, 2, 3)], clock())
    svc = service(store, clock)
    svc.run("a")
    clock.advance(24 * 3600 + 60)
    report = svc.age()
    assert report.agents == 1
    assert report.moved > 0
    summary = store.load_summary("a")
    assert summary is not None
    assert {item.tier for item in summary.items} == {Tier.YESTERDAY}
    assert summary.last_aged_on == clock().date()
    assert svc.age().agents == 0  # already aged today


def test_aging_goes_page_by_page_and_each_page_names_the_next(
    store: ContractStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(aging, "AGING_PAGE", 2)
    clock = Clock()
    agents = ["a", "b", "c", "d", "e"]
    for agent_id in agents:
        store.evict(agent_id, [exchange(i) for i in (1, 2, 3)], clock())
    svc = service(store, clock)
    for agent_id in agents:
        svc.run(agent_id)
    clock.advance(24 * 3600 + 60)
    pages = []
    after: str | None = ""
    while after is not None:
        page = svc.age_page(after)
        pages.append(page.agents)
        after = page.next_after
    assert pages == [2, 2, 1]  # no page ages more than AGING_PAGE agents
    assert all(store.load_summary(a).last_aged_on == clock().date() for a in agents)  # type: ignore[union-attr]
    assert svc.age_page("").agents == 0  # aged today already: nothing due
