"""`--format anthropic`: Messages API messages (JSON Lines, an array, a request body) or a response."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.anthropic_format import parse_anthropic, parse_anthropic_system
from summarizer.ingest.containers import Layout
from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.formats.chat import anthropic_response, chat_reader, chat_shape


def _detect(value: Any) -> str | None:
    if isinstance(value, Mapping) and anthropic_response(value):
        return "an Anthropic Messages response (type 'message' with content blocks)"
    return chat_shape(value, anthropic=True)


FORMAT = LogFormat(
    name="anthropic",
    title="Anthropic Messages",
    read=chat_reader(Layout(system_key="system"), parse_anthropic, parse_anthropic_system),
    detect=_detect,
)
