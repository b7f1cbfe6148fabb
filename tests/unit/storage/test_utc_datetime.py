"""UTCDateTime's own SQLite bind processor writes exactly what SQLAlchemy's generic one does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import DateTime
from sqlalchemy.dialects import sqlite

from summarizer.storage.sql.statements.types import UTCDateTime

_SQLITE = sqlite.dialect()
_FAST = UTCDateTime().dialect_impl(_SQLITE).bind_processor(_SQLITE)
_GENERIC = DateTime(timezone=True).dialect_impl(_SQLITE).bind_processor(_SQLITE)


@given(
    st.datetimes(
        min_value=datetime(1, 1, 2),
        max_value=datetime(9999, 12, 30),
        timezones=st.sampled_from(
            [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
        ),
    )
)
def test_the_sqlite_text_matches_sqlalchemys(value: datetime) -> None:
    assert _FAST is not None
    assert _GENERIC is not None
    assert _FAST(value) == _GENERIC(value.astimezone(UTC).replace(tzinfo=None))


def test_none_stays_null_and_a_naive_time_is_refused() -> None:
    assert _FAST is not None
    assert _FAST(None) is None
    with pytest.raises(ValueError, match="naive datetime"):
        _FAST(datetime(2026, 1, 1))
