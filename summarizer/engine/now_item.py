"""The "Now" pin of a coding agent: the user's latest request and the open todo list, word for word.

Built from two messages of the agent's log (the newest user message and the newest todo-list tool call,
window included), never from the model's summary: the request's text and each open step's text are
copied as they were recorded. The todo tools read are Claude Code's `TodoWrite` (`todos`: `content`,
`status`), Codex's `update_plan` (`plan`: `step`, `status`) and Gemini CLI's `write_todos` (`todos`:
`description`, `status`). A step is open unless its status is `completed` or `cancelled`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from summarizer.domain.messages import StoredMessage

TODO_TOOLS: Mapping[str, tuple[str, str]] = {
    "TodoWrite": ("todos", "content"),
    "update_plan": ("plan", "step"),
    "write_todos": ("todos", "description"),
}
"""Tool name -> (the input's list of steps, each step's text field)."""

CLOSED_STATUSES = frozenset({"completed", "cancelled", "canceled"})
REQUEST_HEADING = "Latest request"
TODOS_HEADING = "Open todos"


@dataclass(frozen=True, slots=True)
class TodoStep:
    text: str
    status: str


def todo_steps(name: str | None, tool_input: object) -> list[TodoStep] | None:
    """The steps of a todo-list tool call; None when it is not one this module reads."""
    shape = TODO_TOOLS.get(name or "")
    if shape is None or not isinstance(tool_input, Mapping):
        return None
    steps = tool_input.get(shape[0])
    if not isinstance(steps, Sequence) or isinstance(steps, str):
        return None
    found = []
    for step in steps:
        if isinstance(step, Mapping) and isinstance(step.get(shape[1]), str):
            found.append(TodoStep(step[shape[1]], str(step.get("status") or "pending")))
    return found


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def now_text(request: StoredMessage | None, todos: StoredMessage | None) -> str | None:
    """The "Now" pin's text; None when the log holds neither a request nor a todo list."""
    parts = []
    if request is not None and request.content.strip():
        parts.append(f"{REQUEST_HEADING} ({_when(request.created_at)}):\n{request.content}")
    steps = todo_steps(todos.name, todos.input) if todos is not None else None
    if todos is not None and steps is not None:
        open_steps = [s for s in steps if s.status not in CLOSED_STATUSES]
        lines = [f"- [{s.status}] {s.text}" for s in open_steps] or ["(none: every step is done)"]
        parts.append(f"{TODOS_HEADING} ({todos.name}, {_when(todos.created_at)}):\n" + "\n".join(lines))
    return "\n\n".join(parts) if parts else None
