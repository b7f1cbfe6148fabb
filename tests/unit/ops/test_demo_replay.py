"""How the demo moves the bundled sample to the present: whole days, in UTC, ending at or before now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from summarizer.cli.commands_demo import by_day, rebased
from summarizer.cli.commands_ops import duration_text
from summarizer.domain.messages import NewMessage
from summarizer.ingest import read_records
from summarizer.samples import sample_path

Records = list[tuple[str, NewMessage]]


def _sample() -> Records:
    return [(r.agent_id, r.message) for r in read_records(sample_path(), "canonical", None, 1_048_576)]


@pytest.mark.parametrize("hour", [0, 9, 13, 23])
def test_the_replay_ends_at_the_given_moment_in_utc_and_keeps_every_gap(hour: int) -> None:
    records = _sample()
    end = datetime(2026, 11, 23, hour, 30, tzinfo=UTC)
    moved = rebased(records, end)
    stamps = [m.created_at for _, m in moved if m.created_at is not None]
    assert max(stamps) == end
    assert all(stamp.utcoffset() == timedelta(0) for stamp in stamps)
    originals = [m.created_at for _, m in records if m.created_at is not None]
    assert {new - old for new, old in zip(stamps, originals, strict=True)} == {end - max(originals)}


@pytest.mark.parametrize("hour", [0, 9, 23])
def test_each_replayed_day_is_labelled_with_the_utc_day_of_its_messages(hour: int) -> None:
    days = by_day(rebased(_sample(), datetime(2026, 11, 23, hour, tzinfo=UTC)))
    assert len(days) >= 12
    for day, chunk in days:
        assert {m.created_at.astimezone(UTC).date() for _, m in chunk if m.created_at} == {day}


def test_durations_below_a_second_are_shown_in_milliseconds() -> None:
    assert duration_text(None) == "n/a"
    assert duration_text(42.4) == "42 ms"
    assert duration_text(2500) == "2.5s"
