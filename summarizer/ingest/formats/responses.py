"""`--format responses`: OpenAI Responses API items, as JSON Lines, an array, a request body or a response."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.containers import Layout
from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.formats.chat import RESPONSES_ITEM_TYPES, anthropic_response, chat_reader
from summarizer.ingest.responses_format import parse_responses_instructions, parse_responses_item


def _detect(value: Any) -> str | None:
    if not isinstance(value, Mapping) or anthropic_response(value):
        return None
    kind = value.get("type")
    if str(kind) in RESPONSES_ITEM_TYPES or (kind == "message" and "role" in value):
        return f"OpenAI Responses items (type {kind!r})"
    if "input" in value or "output" in value or "instructions" in value:
        return "an OpenAI Responses object (input/output)"
    return None


FORMAT = LogFormat(
    name="responses",
    title="OpenAI Responses",
    read=chat_reader(
        Layout(array_keys=("input", "output"), system_key="instructions", string_input=True),
        parse_responses_item,
        parse_responses_instructions,
    ),
    detect=_detect,
    settles=RESPONSES_ITEM_TYPES,
)
