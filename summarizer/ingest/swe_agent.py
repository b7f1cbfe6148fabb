"""SWE-agent trajectories (`*.traj`): one JSON document `{environment, trajectory, history, info}`.

The `history` is the conversation the model saw, and is what is imported. The system prompt and the
demonstrations (`is_demo`) are preamble (`system`); the first user message (the issue to solve) opens the
exchange. An assistant message is the model's reasoning (`assistant`) followed by its action: with
function calling, each of its `tool_calls` (id, name, JSON arguments) is a `tool_call` and each `tool`
message answers the calls its `tool_call_ids` name; in the older layout the `action` text is the call
(named after its first word, the whole command as input) and the user message that follows it is its
observation (`tool_result`). The agent is the file's name (its instance id) unless `--agent` names one.

The `trajectory` (one step per action: `thought`, `action`, `observation`) holds the last step whole, where
`history` often lacks it (the function-calling layout leaves out the final `submit`) or lacks its
observation (the older layout never shows the patch `submit` returns). So the last step is read from the
trajectory: it follows the history message that completes the step before it, and history's own copy of
it, if any, is passed over. Its call is named after the action's first word, with the whole action as
input; a blank observation is no result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.containers import Item, Layout
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import Extras, reject_nul
from summarizer.ingest.path_agents import stdin_agent
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.tool_calls import function_call

LAYOUT = Layout(array_keys=("history",), system_key="trajectory")
"""`history` gives the messages; the `trajectory` comes first, as one item, for its last step."""
ROLES = frozenset({"system", "user", "assistant", "tool"})


class Trajectory:
    def __init__(self, default_agent: str | None, label: str) -> None:
        stem = PurePath(label).stem if label and label != "-" else ""
        self.agent = default_agent or stem or None
        self.pending: list[str] = []
        """Calls of the last action (older layout) that wait for their observation."""
        self.calls = 0
        self.last_step: tuple[Mapping[str, Any], int, str] | None = None
        """The trajectory's last step, its number (1-based) and where it is, until it is recorded."""
        self.steps = 0
        """Actions of history so far (demonstrations aside)."""
        self.open_calls: set[str] = set()
        """Calls of the latest function-calling action that wait for their `tool` message."""
        self.finished = False
        """The last step is recorded: what history holds after it is its copy."""

    def feed(self, item: Item) -> list[IngestRecord]:
        if item.system:
            self._keep_last_step(item.value.get("system"), item.where)
            return []
        if self.finished:
            return []
        message = item.value
        reject_nul(message)
        role = message.get("role")
        if not isinstance(role, str) or role not in ROLES:
            raise Problem(
                f"a history message needs 'role' (one of: {', '.join(sorted(ROLES))}), got {role!r}"
            )
        extras = Extras(
            agent_id=stdin_agent(self.agent, "the trajectory"), created_at=None, host_id=None, tokens=None
        )
        records = finish(self._drafts(message, str(role)), extras, item.where)
        if self.last_step is not None and self._completes_step(message, self.last_step[1] - 1):
            step, number, where = self.last_step
            self.last_step, self.finished = None, True
            records.extend(finish(self._step_drafts(step, number), extras, where))
        return records

    def _keep_last_step(self, steps: object, where: str) -> None:
        if not isinstance(steps, list):
            raise Problem(f"'trajectory' must be a list of steps, got {json_type(steps)}")
        if not steps:
            return
        last = steps[-1]
        if not isinstance(last, Mapping):
            raise Problem(f"trajectory[{len(steps) - 1}] must be an object, got {json_type(last)}")
        reject_nul(last)
        self.last_step = (last, len(steps), f"{where}[{len(steps) - 1}]")

    def _completes_step(self, message: Mapping[str, Any], number: int) -> bool:
        """Whether `message`, just read, completes action `number` of history (0: the issue to solve)."""
        if self.steps != number or message.get("is_demo") is True:
            return False
        role = message.get("role")
        if number == 0:
            return role == "user"
        if role == "assistant":  # an action nothing answers
            return not self.pending and not self.open_calls
        return role in ("user", "tool") and not self.pending and not self.open_calls

    def _step_drafts(self, step: Mapping[str, Any], number: int) -> list[Draft]:
        """The last trajectory step: its thought, its action as a call, its observation as the result."""
        thought, action, observation = (_text(step.get(key)) for key in ("thought", "action", "observation"))
        drafts = [Draft(Kind.ASSISTANT, thought)] if thought.strip() else []
        command = action.strip()
        if command:
            call_id = f"action-{number}"
            drafts.append(
                Draft(
                    Kind.TOOL_CALL,
                    "",
                    tool_call_id=call_id,
                    name=command.split()[0],
                    input={"command": command},
                )
            )
            if observation.strip():
                drafts.append(Draft(Kind.TOOL_RESULT, observation, tool_call_id=call_id))
        return drafts

    def _drafts(self, message: Mapping[str, Any], role: str) -> list[Draft]:
        text = _text(message.get("content"))
        if role == "system" or message.get("is_demo") is True:
            return [Draft(Kind.SYSTEM, text)]
        if role == "tool":
            ids = message.get("tool_call_ids")
            if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
                raise Problem("a tool message needs 'tool_call_ids' as a list of strings")
            self.open_calls.difference_update(ids)
            return [Draft(Kind.TOOL_RESULT, text, tool_call_id=i) for i in ids]
        if role == "user":
            if self.pending:  # the older layout: the observation of the last action
                drafts = [Draft(Kind.TOOL_RESULT, text, tool_call_id=i) for i in self.pending]
                self.pending = []
                return drafts
            return [Draft(Kind.USER, text)]  # the issue to solve (or a later instruction)
        return self._action(message, text)

    def _action(self, message: Mapping[str, Any], text: str) -> list[Draft]:
        self.steps += 1
        drafts = [Draft(Kind.ASSISTANT, text)] if text else []
        calls = message.get("tool_calls")
        if isinstance(calls, list) and calls:
            for index, call in enumerate(calls):
                call_id, name, arguments = function_call(call, index)
                drafts.append(Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=arguments))
            self.open_calls = {d.tool_call_id for d in drafts if d.tool_call_id is not None}
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


def _text(content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [p.get("text") if isinstance(p, Mapping) else p for p in content]
        return "\n".join(p for p in parts if isinstance(p, str))
    raise Problem(f"content must be a string or a list of parts, got {json_type(content)}")
