"""A context (summary, preamble, window) as the request bodies of the raw provider SDKs.

Each form keeps tool-call pairs intact: a call goes out only with its result, in the order each API wants
(Anthropic: `tool_use` blocks in an assistant turn, their `tool_result` blocks at the head of the next user
turn; Chat Completions: an assistant message with `tool_calls`, then one `tool` message per call;
Responses: `function_call` then `function_call_output` items). A call still waiting for its result is
left out: every API refuses a request that holds an unanswered call. The summary goes where each API
takes standing instructions: Anthropic's `system`, a system message after the preamble in Chat
Completions, the Responses `instructions`. Metadata kinds are never sent. Provider-side tool activity
(`tool` messages) has no replayable form and goes as a short assistant note.

Plain dicts only, shaped as the SDKs' own request types (the tests validate them against those types):
the core never imports a provider SDK.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from summarizer.domain.kinds import Kind, is_conversation
from summarizer.domain.messages import StoredMessage
from summarizer.engine.render import NO_SUMMARY_YET

JSONDict = dict[str, Any]


def _sendable(messages: Sequence[StoredMessage]) -> list[StoredMessage]:
    """Conversation messages, without tool calls that have no result yet (or ever)."""
    answered = {m.tool_call_id for m in messages if m.kind is Kind.TOOL_RESULT and m.tool_call_id}
    return [
        m
        for m in messages
        if is_conversation(m.kind) and (m.kind is not Kind.TOOL_CALL or m.tool_call_id in answered)
    ]


def _split(messages: Sequence[StoredMessage]) -> tuple[list[str], list[StoredMessage]]:
    """The preamble's system texts, and everything from the first other message on."""
    sendable = _sendable(messages)
    preamble: list[str] = []
    for index, message in enumerate(sendable):
        if message.kind is not Kind.SYSTEM or message.exchange_id is not None:
            return preamble, sendable[index:]
        preamble.append(message.content)
    return preamble, []


def _summary(summary: str) -> list[str]:
    return [summary] if summary.strip() and summary != NO_SUMMARY_YET else []


def tool_note(message: StoredMessage) -> str:
    """Provider-side tool activity, as the assistant's note of it."""
    detail = f": {message.content}" if message.content else ""
    failed = " (failed)" if message.is_error else ""
    return f"[{message.name or 'tool'}{failed}{detail}]"


def _arguments(value: Any) -> str:
    return json.dumps({} if value is None else value, ensure_ascii=False)


# ----- Anthropic Messages API ----------------------------------------------------------------------------


def to_anthropic(summary: str, messages: Sequence[StoredMessage]) -> JSONDict:
    """`system` and `messages` for `anthropic.Anthropic().messages.create(**body, model=..., max_tokens=...)`.
    The Messages API has no system role inside `messages`: system messages in the window join `system`."""
    preamble, window = _split(messages)
    system = preamble + [m.content for m in window if m.kind is Kind.SYSTEM] + _summary(summary)
    turns: list[JSONDict] = []
    results_of: int | None = None  # the exchange whose tool results the last (user) turn holds
    for message in window:
        last = turns[-1] if turns else None
        kind = message.kind
        if kind is Kind.USER and last is not None and results_of == message.exchange_id:
            last["content"].append({"type": "text", "text": message.content})  # text after its results
            results_of = None
        elif kind is Kind.USER:
            turns.append({"role": "user", "content": message.content})
        elif kind is Kind.TOOL_RESULT:
            block: JSONDict = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": message.content,
            }
            if message.is_error is not None:
                block["is_error"] = message.is_error
            if last is not None and results_of == message.exchange_id:
                last["content"].append(block)
            else:
                turns.append({"role": "user", "content": [block]})
                results_of = message.exchange_id
            continue
        elif kind is Kind.TOOL_CALL:
            tool_input = message.input if isinstance(message.input, dict) else {"input": message.input}
            use = {"type": "tool_use", "id": message.tool_call_id, "name": message.name, "input": tool_input}
            if last is not None and last["role"] == "assistant":
                last["content"].append(use)
            else:
                turns.append({"role": "assistant", "content": [use]})
        elif kind is Kind.TOOL or (kind is Kind.ASSISTANT and message.content):  # the API refuses empty text
            # Text starts a turn of its own, so that reading the request back keeps each text where it
            # was (a reader joins one turn's texts); the API joins consecutive turns of one role.
            text = message.content if kind is Kind.ASSISTANT else tool_note(message)
            turns.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
        if kind is not Kind.SYSTEM:
            results_of = None
    body: JSONDict = {"messages": turns}
    if system:
        body["system"] = "\n\n".join(system)
    return body


# ----- OpenAI Chat Completions ---------------------------------------------------------------------------


def to_openai_chat(summary: str, messages: Sequence[StoredMessage]) -> list[JSONDict]:
    """`messages` for `openai.OpenAI().chat.completions.create(messages=..., model=...)`: the preamble's
    system messages, the summary as one more system message, then the window."""
    preamble, window = _split(messages)
    out: list[JSONDict] = [{"role": "system", "content": text} for text in preamble + _summary(summary)]
    for message in window:
        kind = message.kind
        last = out[-1] if out else None
        if kind is Kind.SYSTEM:
            out.append({"role": "system", "content": message.content})
        elif kind is Kind.USER:
            out.append({"role": "user", "content": message.content})
        elif kind is Kind.TOOL_RESULT:
            out.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content})
        elif kind is Kind.TOOL_CALL:
            call = {
                "id": message.tool_call_id,
                "type": "function",
                "function": {"name": message.name, "arguments": _arguments(message.input)},
            }
            if last is not None and last["role"] == "assistant" and "tool_calls" in last:
                last["tool_calls"].append(call)
            elif last is not None and last["role"] == "assistant":
                last["tool_calls"] = [call]
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        else:
            text = message.content if kind is Kind.ASSISTANT else tool_note(message)
            out.append({"role": "assistant", "content": text})
    return out


# ----- OpenAI Responses ----------------------------------------------------------------------------------


def to_responses(summary: str, messages: Sequence[StoredMessage]) -> JSONDict:
    """`instructions` and `input` for `openai.OpenAI().responses.create(**body, model=...)`: the preamble
    and the summary as the instructions, the window as input items."""
    preamble, window = _split(messages)
    items: list[JSONDict] = []
    for message in window:
        kind = message.kind
        if kind is Kind.SYSTEM:
            items.append({"type": "message", "role": "developer", "content": message.content})
        elif kind is Kind.USER:
            items.append({"type": "message", "role": "user", "content": message.content})
        elif kind is Kind.TOOL_CALL:
            items.append(
                {
                    "type": "function_call",
                    "call_id": message.tool_call_id,
                    "name": message.name,
                    "arguments": _arguments(message.input),
                }
            )
        elif kind is Kind.TOOL_RESULT:
            items.append(
                {"type": "function_call_output", "call_id": message.tool_call_id, "output": message.content}
            )
        else:
            text = message.content if kind is Kind.ASSISTANT else tool_note(message)
            items.append({"type": "message", "role": "assistant", "content": text})
    body: JSONDict = {"input": items}
    instructions = preamble + _summary(summary)
    if instructions:
        body["instructions"] = "\n\n".join(instructions)
    return body
