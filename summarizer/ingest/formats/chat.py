"""What the chat formats (OpenAI, Anthropic, OpenAI Responses) share: how their messages are told apart
and how a file of them is read, a top-level system prompt included."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest.anthropic_format import BLOCK_TYPES
from summarizer.ingest.containers import Item, Layout, iter_chat_items
from summarizer.ingest.formats.base import Reader, Reading
from summarizer.ingest.lines import LineReader
from summarizer.ingest.problems import Problem
from summarizer.ingest.records import IngestRecord

Parse = Callable[[Any, str | None, str], list[IngestRecord]]
"""A value, the default agent and where it is: its records."""

RESPONSES_ITEM_TYPES = frozenset(
    {"function_call", "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output"}
)
ANTHROPIC_BLOCK_TYPES = frozenset({*BLOCK_TYPES, "search_result", "container_upload"})
"""Messages API content blocks (those the reader takes and two it does not); any `*_tool_result` block
(web search, web fetch, code execution, MCP) is one too."""


def anthropic_response(obj: Mapping[str, Any]) -> bool:
    """A Messages API response (`{id, type: "message", role, content, stop_reason, ...}`), told apart from a
    Responses `message` item, whose blocks are typed `input_text` / `output_text` and which has no
    `stop_reason`."""
    if obj.get("type") != "message" or "role" not in obj:
        return False
    if "stop_reason" in obj:
        return True
    content = obj.get("content")
    if not isinstance(content, list) or not content:
        return False
    types = {str(b.get("type")) for b in content if isinstance(b, Mapping)}
    return bool(types) and all(t in ANTHROPIC_BLOCK_TYPES or t.endswith("_tool_result") for t in types)


def anthropic_blocks(messages: list[Mapping[str, Any]]) -> bool:
    """Whether chat messages are Anthropic's: one carries tool_use/tool_result/thinking blocks before any
    carries OpenAI's tool calls."""
    for message in messages:
        if "tool_calls" in message or message.get("role") == "tool":
            return False
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, Mapping) and b.get("type") in ("tool_use", "tool_result", "thinking")
            for b in content
        ):
            return True
    return False


def chat_shape(value: Any, *, anthropic: bool) -> str | None:
    """Why `value` is a chat input of Anthropic's flavour (`anthropic`) or OpenAI's: an array of chat
    messages, a document with `messages`, or one message a line; None when it is neither or the other."""
    if isinstance(value, list):
        first = value[0] if value else None
        if isinstance(first, Mapping) and "role" in first:
            listed = [m for m in value if isinstance(m, Mapping)]
            return "an array of chat messages" if anthropic_blocks(listed) == anthropic else None
        return None
    if not isinstance(value, Mapping):
        return None
    messages = value.get("messages")
    if isinstance(messages, list):
        if isinstance(value.get("system"), (str, list)):
            return "Anthropic Messages (a top-level system and messages)" if anthropic else None
        flavour = anthropic_blocks([m for m in messages if isinstance(m, Mapping)])
        return "a chat document (messages)" if flavour == anthropic else None
    if "role" in value:
        return "chat messages, one per line" if anthropic_blocks([value]) == anthropic else None
    return None


def chat_reader(layout: Layout, parse: Parse, parse_system: Parse | None = None) -> Reader:
    """A reader of chat items in `layout`; a top-level system prompt (`parse_system`), which has no
    `agent` of its own, is held back until the first message names the agent (unless --agent did)."""

    def item_records(item: Item, agent: str | None) -> list[IngestRecord]:
        try:
            if item.system and parse_system is not None:
                return parse_system(item.value["system"], agent, item.where)
            return parse(item.value, agent, item.where)
        except Problem as problem:
            raise InvalidMessage(problem.reason, item.where) from None

    def read(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
        guard, default_agent = reading.guard, reading.agent
        system: Item | None = None
        for item in iter_chat_items(lines, reading.max_bytes, layout, guard.on_bad):
            if item.system:
                system = item
                continue
            records = guard(item, lambda i: item_records(i, default_agent))
            if system is not None and records:
                named = default_agent or records[0].agent_id
                yield from guard(system, partial(item_records, agent=named))
                system = None
            yield from records
        if system is not None:
            yield from guard(system, lambda i: item_records(i, default_agent))

    return read
