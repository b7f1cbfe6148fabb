"""GitHub Copilot agent transcripts: the JSON Lines events GitHub Copilot CLI writes for each session
(`~/.copilot/session-state/<session>/events.jsonl`, `<session>.jsonl` in earlier versions, and the same
events on stdout with `--output-format json`).

Each line is an event `{type, data, id, timestamp, parentId}` (events that only drive the terminal, such
as streaming deltas, also carry `ephemeral: true`):

- `session.start` names the session (`data.sessionId`): the agent when `--agent` names none. A transcript
  without one (the stdout stream opens with notices) takes its agent from its path: the folder of an
  `events.jsonl`, the name of any other file.
- `user.message` is the user's prompt (`data.content`, as typed; `transformedContent` is what the tool sent
  with it). A user message the tool injected itself (it has a `data.source`, e.g. instructions it
  discovered mid-turn) is `system` text of the running exchange, not a new prompt.
- `assistant.message` is the model's text followed by a `tool_call` for each of its `toolRequests`
  (`toolCallId`, `name`, `arguments`: an object, or a JSON string decoded when it is one).
- `tool.execution_start` is a `tool_call` too when no request announced that call id (a tool the user ran
  or one a version records only here); `tool.execution_complete` is the call's `tool_result`:
  `result.content`, or `error.message` with the error flag when `success` is false. A result whose call
  is not in the file is kept as `tool` activity (see `sequencing`).
- `abort` (the user interrupted the turn) is a `mark` in the exchange it interrupts.
- Reasoning, turn boundaries, usage, streaming deltas and the tool's own notices are left out; an event
  type this reader does not know (the tool adds them often) is skipped and counted.

Each message takes its event's `id` (a part of an assistant message `ID#n`) and `timestamp`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import Extras, optional_str, read_created_at, read_host_id, reject_nul
from summarizer.ingest.jsontext import loads_json
from summarizer.ingest.path_agents import file_agent
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.tool_calls import named_calls
from summarizer.ingest.unknown_types import count_unknown

EVENT_TYPE = re.compile(r"(session|user|assistant|tool|subagent|hook|skill|system|abort)(\.[a-z_]+)*")
"""The shape of a Copilot event type: `session.start`, `tool.execution_complete`, `abort`, ..."""
FOLDER_FILES = frozenset({"events.jsonl"})
"""A transcript named for its session's folder rather than for the session."""
BOOKKEEPING = frozenset(
    {
        "session.resume",
        "session.info",
        "session.warning",
        "session.error",
        "session.idle",
        "session.model_change",
        "session.mcp_servers_loaded",
        "session.mcp_server_status_changed",
        "session.skills_loaded",
        "session.tools_updated",
        "session.background_tasks_changed",
        "session.todos_changed",
        "session.usage_info",
        "session.usage_checkpoint",
        "session.shutdown",
        "assistant.turn_start",
        "assistant.turn_end",
        "assistant.intent",
        "assistant.usage",
        "assistant.message_start",
        "assistant.message_delta",
        "assistant.reasoning",
        "assistant.reasoning_delta",
        "tool.execution_partial_result",
        "tool.execution_progress",
        "tool.user_requested",
        "subagent.started",
        "subagent.completed",
        "subagent.failed",
        "subagent.selected",
        "hook.start",
        "hook.end",
        "system.notification",
        "pending_messages.modified",
        "result",
    }
)
"""Event types that carry no conversation: the tool's notices, turn and usage bookkeeping, streaming."""
MAX_OPEN_CALLS = 1000
"""How many announced, unanswered call ids a reader remembers (kept with a followed file's position)."""


def looks_like_copilot_event(obj: Mapping[str, Any]) -> bool:
    """A Copilot transcript line: a dotted event type (or `abort`) with a `data` object."""
    kind = obj.get("type")
    return (
        isinstance(kind, str)
        and EVENT_TYPE.fullmatch(kind) is not None
        and ("." in kind or kind == "abort")
        and isinstance(obj.get("data"), Mapping)
        and "payload" not in obj
        and "message" not in obj
    )


class CopilotEvents:
    """A stateful reader of one transcript: its session, and the calls announced but not yet answered."""

    def __init__(self, default_agent: str | None) -> None:
        self.default_agent = default_agent
        self.session: str | None = None
        self.announced: list[str] = []
        self.unknown_types: Counter[str] = Counter()
        """Events of types this reader does not know, skipped, by type."""
        self.first_unknown: dict[str, str] = {}
        """Where each unknown event type was first met."""

    def state(self) -> dict[str, Any]:
        """What reading on from here needs (kept with a followed file's position)."""
        return {"session": self.session, "announced": self.announced[-MAX_OPEN_CALLS:]}

    def resume(self, kept: Mapping[str, Any]) -> None:
        session, announced = kept.get("session"), kept.get("announced")
        self.session = session if isinstance(session, str) and session.strip() else None
        if isinstance(announced, list):
            self.announced = [a for a in announced if isinstance(a, str)][-MAX_OPEN_CALLS:]

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise Problem(f"an event needs 'type' as a string, got {json_type(kind)}")
        if kind in BOOKKEEPING:
            return []
        handler = _HANDLERS.get(kind)
        if handler is None:
            count_unknown(self.unknown_types, self.first_unknown, kind, where)
            return []
        data = obj.get("data")
        if not isinstance(data, Mapping):
            raise Problem(f"a {kind} event needs 'data' as an object, got {json_type(data)}")
        reject_nul(data, "data")
        if kind == "session.start":
            session = data.get("sessionId")
            self.session = session if isinstance(session, str) and session.strip() else self.session
            return []
        drafts = handler(self, data)
        if not drafts:
            return []
        return finish(drafts, self._extras(obj, where), where)

    def _user(self, data: Mapping[str, Any]) -> list[Draft]:
        content = optional_str(data, "content", path="data.")
        if not content.strip():
            return []
        injected = data.get("source") not in (None, "user")
        return [Draft(Kind.SYSTEM if injected else Kind.USER, content)]

    def _assistant(self, data: Mapping[str, Any]) -> list[Draft]:
        drafts = []
        text = optional_str(data, "content", path="data.")
        if text.strip():
            drafts.append(Draft(Kind.ASSISTANT, text))
        for request, call_id, name in named_calls(data, "toolRequests", "toolCallId", path="data."):
            drafts.append(self._call(call_id, name, request.get("arguments")))
        return drafts

    def _started(self, data: Mapping[str, Any]) -> list[Draft]:
        call_id, name = data.get("toolCallId"), data.get("toolName")
        if not isinstance(call_id, str) or not call_id:
            raise Problem("a tool.execution_start event needs data.toolCallId as a string")
        if call_id in self.announced:
            return []  # its request already recorded the call
        return [
            self._call(call_id, name if isinstance(name, str) and name else "tool", data.get("arguments"))
        ]

    def _completed(self, data: Mapping[str, Any]) -> list[Draft]:
        call_id = data.get("toolCallId")
        if not isinstance(call_id, str) or not call_id:
            raise Problem("a tool.execution_complete event needs data.toolCallId as a string")
        if call_id in self.announced:
            self.announced.remove(call_id)
        failed = data.get("success") is False
        text = _outcome(data.get("error") if failed else data.get("result"))
        if failed and not text:
            text = _outcome(data.get("result"))
        return [Draft(Kind.TOOL_RESULT, text, tool_call_id=call_id, is_error=failed)]

    def _abort(self, data: Mapping[str, Any]) -> list[Draft]:
        reason = data.get("reason")
        return [Draft(Kind.MARK, f"aborted: {reason}" if isinstance(reason, str) and reason else "aborted")]

    def _call(self, call_id: str, name: str, arguments: object) -> Draft:
        self.announced.append(call_id)
        del self.announced[:-MAX_OPEN_CALLS]
        return Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=_arguments(arguments))

    def _extras(self, obj: Mapping[str, Any], where: str) -> Extras:
        agent = self.default_agent or self.session
        if agent is None:
            agent = file_agent(where, "the transcript has no session.start naming its session", FOLDER_FILES)
        stamp = obj.get("timestamp")
        created_at = read_created_at(stamp) if stamp is not None else None
        host_id = read_host_id(obj["id"]) if obj.get("id") is not None else None
        return Extras(agent_id=agent, created_at=created_at, host_id=host_id, tokens=None)


_HANDLERS: dict[str, Callable[[CopilotEvents, Mapping[str, Any]], list[Draft]]] = {
    "session.start": lambda _reader, _data: [],
    "user.message": CopilotEvents._user,
    "assistant.message": CopilotEvents._assistant,
    "tool.execution_start": CopilotEvents._started,
    "tool.execution_complete": CopilotEvents._completed,
    "abort": CopilotEvents._abort,
}


def _arguments(arguments: object) -> object:
    """A call's arguments: an object as it is; a string decoded when it is JSON (kept as text when not)."""
    if isinstance(arguments, str):
        try:
            return loads_json(arguments)
        except ValueError:
            return arguments
    return arguments


def _outcome(value: object) -> str:
    """A result's or an error's text: its `content` or `message`, a string as it is, else the JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        for key in ("content", "message"):
            if isinstance(value.get(key), str):
                return str(value[key])
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
