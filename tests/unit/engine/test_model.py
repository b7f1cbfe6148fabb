from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from summarizer.engine.model import ITEM_KEYS, Importance, Summary, SummaryItem, Tier, make_item_id
from tests.unit.engine.helpers import NOW, item


def test_item_dict_has_exactly_the_storage_keys_and_is_json_safe() -> None:
    data = item((12, 13, 15), tier=Tier.WEEK, importance=Importance.LOW).to_dict()
    assert set(data) == ITEM_KEYS
    assert json.loads(json.dumps(data)) == data
    assert data["exchange_ids"] == [12, 13, 15]
    assert data["started_at"].endswith("+00:00")


def test_summary_round_trips_through_json() -> None:
    summary = Summary(
        agent_id="agent-1",
        version=7,
        items=(item((1,)), item((2, 3), tier=Tier.YESTERDAY, text="Ünïcødé ✓ 漢字")),
        covered_through_exchange_id=3,
        token_count=123,
        updated_at=NOW,
        last_aged_on=date(2025, 3, 12),
    )
    assert Summary.from_dict(json.loads(json.dumps(summary.to_dict()))) == summary


def test_naive_datetimes_are_read_as_utc() -> None:
    naive = datetime(2025, 3, 12, 10, 0)
    entry = item().to_dict() | {"started_at": naive.isoformat(), "ended_at": naive.isoformat()}
    loaded = SummaryItem.from_dict(entry)
    assert loaded.ended_at.utcoffset() == timedelta(0)
    assert loaded.ended_at == naive.replace(tzinfo=UTC)


def test_item_from_dict_names_missing_keys() -> None:
    entry = item().to_dict()
    del entry["importance"]
    with pytest.raises(ValueError, match="importance"):
        SummaryItem.from_dict(entry)


def test_item_ids_are_deterministic_and_unique() -> None:
    taken: set[str] = set()
    assert make_item_id([12], taken) == "x12"
    assert make_item_id([15, 12, 13], taken) == "x12-15"
    assert make_item_id([12], taken) == "x12.2"
    assert make_item_id([12], taken) == "x12.3"
    assert taken == {"x12", "x12-15", "x12.2", "x12.3"}
