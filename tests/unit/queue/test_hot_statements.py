"""The statements every update runs stay within what psycopg caches, so it does not re-parse them each time.

psycopg converts `%(name)s` placeholders to `$n` once per distinct query, but only for queries of at most
MAX_CACHED_STATEMENT_LENGTH characters and MAX_CACHED_STATEMENT_PARAMS parameters; past either limit the
conversion runs on every execution (measured: about a sixth of a worker's CPU for the commit statement).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from psycopg import _queries
from sqlalchemy.dialects.postgresql import psycopg

from summarizer.storage.postgres.commit import ONE_STATEMENT_HOT
from summarizer.storage.postgres.store import CLAIM_AND_READ, EVICTED_BATCH_HOT
from summarizer.storage.sql.statements.constants import inline
from summarizer.storage.sql.statements.driver_statements import DriverStatement

DIALECT: Any = psycopg.dialect()  # type: ignore[no-untyped-call]
HOT: dict[str, DriverStatement] = {
    "claim-one-agent": CLAIM_AND_READ[True],
    "claim-any-agent": CLAIM_AND_READ[False],
    "batch": EVICTED_BATCH_HOT,
    "commit-first-version": ONE_STATEMENT_HOT[True],
    "commit-next-version": ONE_STATEMENT_HOT[False],
}


@pytest.mark.parametrize("name", sorted(HOT))
def test_a_hot_statement_fits_psycopgs_query_cache(name: str) -> None:
    assert len(HOT[name].names) <= _queries.MAX_CACHED_STATEMENT_PARAMS
    assert len(HOT[name].sql) <= _queries.MAX_CACHED_STATEMENT_LENGTH
    assert set(re.findall(r"%\((\w+)\)s", HOT[name].sql)) == HOT[name].names


def test_inline_constants_render_as_sql_text_and_refuse_anything_but_plain_words() -> None:
    rendered = [str(inline(v).compile(dialect=DIALECT)) for v in (0, 7, "pending", None, True)]
    assert rendered == ["0", "7", "'pending'", "NULL", "true"]
    with pytest.raises(ValueError, match="plain words"):
        inline("x'; DROP TABLE agents; --")
