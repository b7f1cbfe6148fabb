"""Codex CLI rollouts (`~/.codex/sessions/**/rollout-*.jsonl`), as the tool writes them.

Each line is `{timestamp, type, payload}`. `session_meta` opens the file (its `payload.id` is the session,
the agent when `--agent` names none); `response_item` lines carry OpenAI Responses items (messages,
function and custom tool calls and their outputs, reasoning) and are the conversation; `event_msg` lines
repeat it for the terminal UI (the typed prompt, the agent's message, token counts) and `turn_context`
lines describe the turn's settings, so both are skipped, except that a `user_message` event tells a prompt
the user typed from context the tool injected as a user message (`<environment_context>`, AGENTS.md
instructions, ...): such injected text is stored as `system` (preamble), never as an exchange's opening.
A `user_message` event that no user item carries (Codex Desktop writes prompts only as events) is the
prompt itself, at the event's time. A `tool_search_call` item (the model looking up tools that are loaded
only when asked for, by `arguments` such as a query) is a `tool_search` call, and the
`tool_search_output` that answers it (`call_id`; an output without one answers the last search) its
result: the names of the tools it found. Reasoning is left out (it is usually encrypted), as are git
`ghost_snapshot` items; response items of a type this version does not know are skipped and counted, and
so are lines of a top-level `type` it does not know (a later version's), each type named once per file.
A function output written as a JSON string `{"output": ..., "metadata": {"exit_code": N}}` is stored as
its output text, a non-zero exit code marking it an error and named after the text. A `compacted` line
(the tool's own compaction) is a `clear` followed by its summary as `system`. Every message takes its
line's timestamp.

Rollouts of the versions before these line types (to about 0.34) open with a bare header `{id,
timestamp, ...}` (`instructions`, `git`, later `cwd`, `originator`, `cli_version`) and hold bare Responses
items, with `{"record_type": "state"}` lines between turns: they are read the same way, the header's id
as the session and its timestamp as the time of every item that carries none, state lines skipped.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.ingest.fields import read_created_at, reject_nul
from summarizer.ingest.jsontext import loads_json
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.responses_format import ITEM_TYPES, parse_responses_item
from summarizer.ingest.unknown_types import count_unknown

LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
)
"""How text the tool sends as a user message, without the user typing it, begins."""
OLDER_ITEM_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "reasoning",
        "web_search_call",
    }
)
"""The Responses items an older rollout holds bare, one a line."""
SKIPPED_ITEMS = frozenset({"ghost_snapshot"})
TOOL_SEARCH_ITEMS = frozenset({"tool_search_call", "tool_search_output"})
"""The model's searches for tools loaded on demand, and what each found: read as a call and its result."""
TOOL_SEARCH = "tool_search"
"""Response items that are the tool's bookkeeping (a git snapshot of the work tree), not conversation."""


def is_older_session_line(obj: Mapping[str, Any]) -> bool:
    """The first line of a rollout written before the `{timestamp, type, payload}` lines."""
    return (
        isinstance(obj.get("id"), str)
        and isinstance(obj.get("timestamp"), str)
        and not any(key in obj for key in ("type", "kind", "role", "content", "messages", "payload"))
    )


@dataclass
class CodexRollout:
    """A stateful reader of one rollout: user items wait for the next line to learn whether the user typed
    them (a `user_message` event follows) or the tool injected them."""

    default_agent: str | None
    session: str | None = None
    typed_prompts_logged: bool = False
    typed_ahead: str | None = None
    """A `user_message` event's text that came before its user item (nothing was held then)."""
    held: list[tuple[IngestRecord, bool]] = field(default_factory=list)
    """Records waiting for a held user item's verdict, in file order; True marks a user item."""
    started: str | None = None
    """The session's timestamp in the older layout (whose items carry none)."""
    typed_at: tuple[str | None, str] = (None, "")
    """The timestamp and position of the `user_message` event whose text is `typed_ahead`."""
    unknown_items: Counter[str] = field(default_factory=Counter)
    """Response items of types this version does not know, skipped, by type."""
    first_unknown: dict[str, str] = field(default_factory=dict)
    """Where each unknown item type was first met."""
    unknown_lines: Counter[str] = field(default_factory=Counter)
    """Lines of a top-level `type` this version does not know, skipped, by type."""
    first_unknown_line: dict[str, str] = field(default_factory=dict)
    """Where each unknown line type was first met."""
    open_searches: list[str] = field(default_factory=list)
    """Call ids of tool searches no output answered yet (an output may name none)."""

    @property
    def pending(self) -> bool:
        """Whether records wait for a later line: held user items, or a `user_message` event whose item
        may still come (a reader that resumes from a saved place should not stop here)."""
        return bool(self.held) or self.typed_ahead is not None

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        kind = obj.get("type")
        if kind is None and "record_type" in obj:
            return []  # the older layout's state line
        if kind is None and is_older_session_line(obj):
            self.session = obj["id"] if obj["id"].strip() else self.session
            self.started = obj["timestamp"]
            return []
        if not isinstance(kind, str):
            raise Problem(f"a rollout line needs 'type' as a string, got {json_type(kind)}")
        if kind not in LINE_TYPES:
            if kind in OLDER_ITEM_TYPES and "payload" not in obj:  # a bare Responses item (older layout)
                reject_nul(obj)
                bare = {k: v for k, v in obj.items() if not (k == "id" and v is None) and k != "timestamp"}
                stamp = obj["timestamp"] if isinstance(obj.get("timestamp"), str) else self.started
                return self._item(bare, stamp, where)
            count_unknown(self.unknown_lines, self.first_unknown_line, kind, where)  # a newer version's
            return []
        payload = obj.get("payload")
        if not isinstance(payload, Mapping):
            raise Problem(f"a {kind} line needs 'payload' as an object, got {json_type(payload)}")
        reject_nul(payload)
        stamp = obj["timestamp"] if isinstance(obj.get("timestamp"), str) else None
        if kind == "session_meta":
            session = payload.get("id")
            if isinstance(session, str) and session.strip():
                self.session = session
            return []
        if kind == "event_msg":
            return self._event(payload, stamp, where)
        if kind == "compacted":
            return [*self._typed_only(), *self._compacted(payload, stamp, where)]
        if kind == "turn_context":
            return []
        return self._item(payload, stamp, where)

    def _event(self, payload: Mapping[str, Any], stamp: str | None, where: str) -> list[IngestRecord]:
        if payload.get("type") != "user_message":
            return []
        self.typed_prompts_logged = True
        earlier = self._typed_only()  # an earlier event whose item never came
        text = payload.get("message")
        typed = text.strip() if isinstance(text, str) and text.strip() else None
        if self._carried(typed):
            return [*earlier, *self._release(typed=True)]
        self.typed_ahead, self.typed_at = typed, (stamp, where)  # its item may follow, or never come
        return [*earlier, *self._release(typed=False)]

    def _carried(self, typed: str | None) -> bool:
        """Whether the last held user item is the prompt of a `user_message` event: the same text, or
        (the item holding images as well) text that does not look injected."""
        users = [record.message.content for record, user in self.held if user]
        if not users:
            return False
        last = users[-1].strip()
        return last == typed or typed is None or not last.startswith(INJECTED_PREFIXES)

    def _typed_only(self) -> list[IngestRecord]:
        """The pending `user_message` event as the prompt, when no user item carried its text."""
        text, self.typed_ahead = self.typed_ahead, None
        if text is None:
            return []
        stamp, where = self.typed_at
        held, self.held = self._release(typed=False), []
        prompt = self._record(Kind.USER, text, read_created_at(stamp) if stamp else None, where)
        return [*held, prompt]

    def _compacted(self, payload: Mapping[str, Any], stamp: str | None, where: str) -> list[IngestRecord]:
        created_at = read_created_at(stamp) if stamp else None
        out = [*self._release(typed=False), self._record(Kind.CLEAR, "/compact", created_at, where)]
        summary = payload.get("message")
        if isinstance(summary, str) and summary:
            out.append(self._record(Kind.SYSTEM, summary, created_at, where))
        return out

    def _item(self, payload: Mapping[str, Any], stamp: str | None, where: str) -> list[IngestRecord]:
        item_type = payload.get("type", "message" if "role" in payload else None)
        if item_type is not None and not isinstance(item_type, str):
            raise Problem(f"payload.type must be a string, got {json_type(item_type)}")
        if item_type in SKIPPED_ITEMS:
            return []
        if item_type in TOOL_SEARCH_ITEMS:
            payload = self._tool_search(payload, where)
            item_type = payload["type"]
        if isinstance(item_type, str) and item_type not in ITEM_TYPES:
            count_unknown(self.unknown_items, self.first_unknown, item_type, where)
            return []
        payload, exit_code = _output_unwrapped(_raw_arguments_kept(payload))
        item = {**payload, "agent": self._agent(), **({"created_at": stamp} if stamp else {})}
        records = parse_responses_item(item, None, where)
        if exit_code:
            records = [_failed(r, exit_code) for r in records]
        role = payload.get("role") if payload.get("type") == "message" else None
        typed_ahead = self.typed_ahead is not None and any(
            r.message.content.strip() == self.typed_ahead for r in records
        )
        if role == "user" and typed_ahead:
            self.typed_ahead = None
            return self._release(typed=False) + records
        if role == "user" or (self.held and role in ("developer", "system")):
            self.held.extend((record, role == "user") for record in records)
            return []
        if role in ("developer", "system"):
            return self._release(typed=False) + records
        return self._typed_only() + self._release(typed=False) + records

    def _tool_search(self, payload: Mapping[str, Any], where: str) -> dict[str, Any]:
        """A tool search as the function call it is, or its output as that call's output."""
        call_id = payload.get("call_id")
        if payload.get("type") == "tool_search_call":
            if not isinstance(call_id, str) or not call_id:
                item_id = payload.get("id")
                call_id = (
                    item_id
                    if isinstance(item_id, str) and item_id
                    else f"{TOOL_SEARCH}-{where.rpartition(':')[2]}"
                )
            self.open_searches.append(call_id)
            arguments = payload.get("arguments", {})
            text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
            return {"type": "function_call", "call_id": call_id, "name": TOOL_SEARCH, "arguments": text}
        if not isinstance(call_id, str) or not call_id:
            call_id = self.open_searches[-1] if self.open_searches else TOOL_SEARCH
        if call_id in self.open_searches:
            self.open_searches.remove(call_id)
        return {"type": "function_call_output", "call_id": call_id, "output": _tools_found(payload)}

    def finish(self) -> list[IngestRecord]:
        """What is still held at the end of the file."""
        return self._typed_only() + self._release(typed=False)

    def _release(self, *, typed: bool) -> list[IngestRecord]:
        """The held records in file order, each user item with its verdict. With `typed` (a `user_message`
        event came), the last user item is the typed prompt and the others were injected. Without (the
        model answered first), in a file that logs typed prompts none was typed; in one that does not (an
        older version), the last that does not look injected is the prompt."""
        held, self.held = self.held, []
        candidates = [i for i, (_, user) in enumerate(held) if user]
        prompt: int | None = None
        if typed and candidates:
            prompt = candidates[-1]
        elif not typed and not self.typed_prompts_logged:
            plain = [
                i for i in candidates if not held[i][0].message.content.lstrip().startswith(INJECTED_PREFIXES)
            ]
            prompt = plain[-1] if plain else None
        return [
            record if not user or index == prompt else _as_system(record)
            for index, (record, user) in enumerate(held)
        ]

    def _agent(self) -> str:
        agent = self.default_agent or self.session
        if agent is None:
            raise Problem("no agent: the rollout has no session_meta line with an id before it; pass --agent")
        return agent

    def _record(self, kind: Kind, content: str, created_at: Any, where: str) -> IngestRecord:
        message = NewMessage(kind=kind, content=content, created_at=created_at, where=where)
        return IngestRecord(agent_id=self._agent(), message=message)


def _tools_found(payload: Mapping[str, Any]) -> str:
    """What a tool search found: the tools' names, one a line (a namespace's as `namespace.tool`)."""
    tools = payload.get("tools")
    if not isinstance(tools, list):
        raise Problem(f"a tool_search_output needs 'tools' as an array, got {json_type(tools)}")
    names: list[str] = []
    for tool in tools:
        name = tool.get("name") if isinstance(tool, Mapping) else None
        inner = tool.get("tools") if isinstance(tool, Mapping) else None
        if isinstance(inner, list) and inner:
            prefix = f"{name}." if isinstance(name, str) and name else ""
            names.extend(f"{prefix}{t.get('name')}" for t in inner if isinstance(t, Mapping))
        elif isinstance(name, str) and name:
            names.append(name)
    status = payload.get("status")
    text = "\n".join(names) if names else "(no tools found)"
    return text if status in (None, "completed") else f"{text}\n[{status}]"


def _raw_arguments_kept(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """A function call whose `arguments` are not JSON (the log keeps what the model emitted) keeps them
    as its input text, as a custom tool call's, instead of refusing the whole log."""
    arguments = payload.get("arguments")
    if payload.get("type") != "function_call" or not isinstance(arguments, str):
        return payload
    try:
        loads_json(arguments)
    except ValueError:
        return {**payload, "type": "custom_tool_call", "input": arguments}
    return payload


def _output_unwrapped(payload: Mapping[str, Any]) -> tuple[Mapping[str, Any], int]:
    """A function output that is a JSON string `{"output": TEXT, "metadata": {"exit_code": N}}` as TEXT,
    and N (0 when there is none)."""
    output = payload.get("output")
    if payload.get("type") != "function_call_output" or not isinstance(output, str):
        return payload, 0
    if not output.startswith("{"):
        return payload, 0
    try:
        value = loads_json(output)
    except ValueError:
        return payload, 0
    if not isinstance(value, dict) or not isinstance(value.get("output"), str):
        return payload, 0
    metadata = value.get("metadata")
    code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    exit_code = code if isinstance(code, int) and not isinstance(code, bool) else 0
    return {**payload, "output": value["output"]}, exit_code


def _failed(record: IngestRecord, exit_code: int) -> IngestRecord:
    m = record.message
    if m.kind is not Kind.TOOL_RESULT:
        return record
    content = f"{m.content}\n[exit code {exit_code}]" if m.content else f"[exit code {exit_code}]"
    return IngestRecord(record.agent_id, replace(m, content=content, is_error=True))


def _as_system(record: IngestRecord) -> IngestRecord:
    m = record.message
    message = NewMessage(
        kind=Kind.SYSTEM, content=m.content, created_at=m.created_at, host_id=m.host_id, where=m.where
    )
    return IngestRecord(agent_id=record.agent_id, message=message)
