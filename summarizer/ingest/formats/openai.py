"""`--format openai`: Chat Completions messages, as JSON Lines, a JSON array or a request body."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.containers import Layout
from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.formats.chat import chat_reader, chat_shape
from summarizer.ingest.openai_format import parse_openai


def _detect(value: Any) -> str | None:
    return chat_shape(value, anthropic=False)


def _untyped(obj: Mapping[str, Any]) -> bool:
    """A chat line without a `type` may open an OpenAI Responses input too: the later lines decide."""
    return "type" not in obj


FORMAT = LogFormat(
    name="openai",
    title="OpenAI Chat Completions",
    read=chat_reader(Layout(), parse_openai),
    detect=_detect,
    provisional=_untyped,
)
