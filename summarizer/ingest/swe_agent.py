"""SWE-agent trajectories (`*.traj`): one JSON document `{environment, trajectory, history, info}`.

The `history` is the conversation the model saw, and is what is imported. The system prompt and the
demonstrations (`is_demo`) are preamble (`system`); the first user message (the issue to solve) opens the
exchange. An assistant message is the model's reasoning (`assistant`) followed by its action: with
function calling, each of its `tool_calls` (id, name, JSON arguments) is a `tool_call` and each `tool`
message answers the calls its `tool_call_ids` name; in the older layout the `action` text is the call
(named after its first word, the whole command as input) and the user message that follows it is its
observation (`tool_result`). The agent is the file's name (its instance id) unless `--agent` names one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.containers import Item, Layout
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import Extras, reject_nul
from summarizer.ingest.jsontext import loads_json
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord

LAYOUT = Layout(array_keys=("history",))
ROLES = frozenset({"system", "user", "assistant", "tool"})


class Trajectory:
    def __init__(self, default_agent: str | None, label: str) -> None:
        stem = PurePath(label).stem if label and label != "-" else ""
        self.agent = default_agent or stem or None
        self.pending: list[str] = []
        """Calls of the last action (older layout) that wait for their observation."""
        self.calls = 0

    def feed(self, item: Item) -> list[IngestRecord]:
        message = item.value
        reject_nul(message)
        role = message.get("role")
        if not isinstance(role, str) or role not in ROLES:
            raise Problem(
                f"a history message needs 'role' (one of: {', '.join(sorted(ROLES))}), got {role!r}"
            )
        if self.agent is None:
            raise Problem("no agent: the trajectory is read from stdin; pass --agent")
        extras = Extras(agent_id=self.agent, created_at=None, host_id=None, tokens=None)
        return finish(self._drafts(message, str(role)), extras, item.where)

    def _drafts(self, message: Mapping[str, Any], role: str) -> list[Draft]:
        text = _text(message.get("content"))
        if role == "system" or message.get("is_demo") is True:
            return [Draft(Kind.SYSTEM, text)]
        if role == "tool":
            ids = message.get("tool_call_ids")
            if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
                raise Problem("a tool message needs 'tool_call_ids' as a list of strings")
            return [Draft(Kind.TOOL_RESULT, text, tool_call_id=i) for i in ids]
        if role == "user":
            if self.pending:  # the older layout: the observation of the last action
                drafts = [Draft(Kind.TOOL_RESULT, text, tool_call_id=i) for i in self.pending]
                self.pending = []
                return drafts
            return [Draft(Kind.USER, text)]  # the issue to solve (or a later instruction)
        return self._action(message, text)

    def _action(self, message: Mapping[str, Any], text: str) -> list[Draft]:
        drafts = [Draft(Kind.ASSISTANT, text)] if text else []
        calls = message.get("tool_calls")
        if isinstance(calls, list) and calls:
            for index, call in enumerate(calls):
                drafts.append(_function_call(call, index))
            return drafts
        action = message.get("action")
        if isinstance(action, str) and action.strip():
            self.calls += 1
            call_id = f"action-{self.calls}"
            command = action.strip()
            name = command.split()[0]
            drafts.append(
                Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input={"command": command})
            )
            self.pending = [call_id]
        return drafts


def _function_call(call: object, index: int) -> Draft:
    if not isinstance(call, Mapping):
        raise Problem(f"tool_calls[{index}] must be an object, got {json_type(call)}")
    function = call.get("function")
    call_id = call.get("id")
    if not isinstance(function, Mapping) or not isinstance(call_id, str) or not call_id:
        raise Problem(f"tool_calls[{index}] needs 'id' and 'function'")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise Problem(f"tool_calls[{index}].function needs 'name'")
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError):  # otherwise kept as the text the model wrote
            arguments = loads_json(arguments) if arguments.strip() else {}
    return Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=arguments)


def _text(content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [p.get("text") if isinstance(p, Mapping) else p for p in content]
        return "\n".join(p for p in parts if isinstance(p, str))
    raise Problem(f"content must be a string or a list of parts, got {json_type(content)}")
