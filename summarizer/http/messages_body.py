"""The body of `POST /v1/agents/{agent_id}/messages`: `{"messages": [...]}` in the canonical format.

Each message goes through the same strict JSON decoding and the same canonical parser as
`summarizer ingest`, so a bad message gets the reason the CLI gives, at `messages[N]` instead of
`FILE:LINE`; values the databases cannot store (non-finite numbers, lone surrogates, `tokens` beyond the
column, timestamps that leave the datetime range in UTC) are refused there too. The whole body is
checked before anything is stored. A message without an `id` gets the one `summarizer ingest` derives
for it (its content, its timestamp when it has one, and the id before it in the body), so posting the
same body again stores nothing new.
"""

from __future__ import annotations

from typing import Any

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest.canonical import parse_canonical
from summarizer.ingest.jsontext import DocumentError, compact_size, loads_strict
from summarizer.ingest.lines import over_limit_reason
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.sequencing import ReadNotes, derive_missing_ids

BODY = "body"
BODY_KEYS = ("messages",)


def parse_messages_body(raw: bytes, agent_id: str, max_message_bytes: int) -> list[IngestRecord]:
    """Every message of the body as a record for `agent_id`; InvalidMessage for the first problem."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidMessage(f"invalid UTF-8 at byte {exc.start + 1}", BODY) from None
    try:
        document = loads_strict(text)
    except DocumentError as exc:
        raise InvalidMessage(exc.reason, BODY) from None
    messages = _messages_of(document)
    records = [_record(value, index, agent_id, max_message_bytes) for index, value in enumerate(messages)]
    return list(derive_missing_ids(records, ReadNotes()))


def _messages_of(document: Any) -> list[Any]:
    if not isinstance(document, dict):
        raise InvalidMessage(f"expected a JSON object with 'messages', got {json_type(document)}", BODY)
    for key in document:
        if key not in BODY_KEYS:
            raise InvalidMessage(f"unknown key {key!r} (expected: messages)", BODY)
    if "messages" not in document:
        raise InvalidMessage("missing 'messages' (an array of canonical messages)", BODY)
    messages = document["messages"]
    if not isinstance(messages, list):
        raise InvalidMessage(f"'messages' must be an array, got {json_type(messages)}", BODY)
    return messages


def _record(value: Any, index: int, agent_id: str, limit: int) -> IngestRecord:
    where = f"messages[{index}]"
    if not isinstance(value, dict):
        raise InvalidMessage(f"expected a JSON object, got {json_type(value)}", where)
    try:
        size = compact_size(value)
        if size > limit:
            raise Problem(over_limit_reason(size, limit))
        record = parse_canonical(value, agent_id, where)
    except Problem as problem:
        raise InvalidMessage(problem.reason, where) from None
    if record.agent_id != agent_id:
        raise InvalidMessage(
            f"agent {record.agent_id!r} differs from the agent in the URL ({agent_id!r}); "
            "leave 'agent' out or make it match",
            where,
        )
    return record
