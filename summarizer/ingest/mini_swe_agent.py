"""mini-swe-agent trajectories (`*.traj.json`): one JSON document `{info, messages, trajectory_format}`.

`info` holds the run's `exit_status` and `submission` (the patch it submitted); `messages` is the
conversation the model saw, each `{role, content, extra?}`, and is what is imported.

- `system` is the system prompt; the first `user` message (the task) opens the exchange. A later user
  message that answers no call (the tool's reply to a reply it could not use, a timeout notice, a
  command typed in interactive mode) continues the exchange.
- An `assistant` message is the model's text followed by its actions. With tool calling its
  `tool_calls` (`id`, `function.name`, JSON `function.arguments`) are the calls and each `tool`
  message (`tool_call_id`) answers one. Without (the text-based layout of the first versions), the
  command in its one ```bash block (or `extra.actions`) is a `bash` call and the user message that follows
  is its output. A Responses-API run saves the response itself (`output` items: `message`,
  `function_call`) and `function_call_output` items answer its calls.
- The run ends with an `exit` message (`extra.exit_status`, `extra.submission`; the first versions end
  with a user message holding the submission instead). It answers the calls still waiting (the submit
  command's output is the submission), and is the last record: the submitted patch as the agent's last
  words (`assistant`), or a `mark` naming the exit status when nothing was submitted.
- Reasoning is left out, as other readers leave thoughts out; an item of a role or type this reader does
  not know is skipped and counted.

Each message takes `extra.timestamp` (seconds since the epoch) when it has one. The agent is `--agent`,
else the file's name without `.traj.json` (the instance id, in a batch run).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.containers import Item, Layout, iter_chat_items
from summarizer.ingest.drafts import Draft, finish_with_agent
from summarizer.ingest.fields import epoch_time, object_entries, reject_nul
from summarizer.ingest.lines import LineReader
from summarizer.ingest.path_agents import agent_from_name
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.tool_calls import decoded_arguments, function_call
from summarizer.ingest.unknown_types import count_unknown

if TYPE_CHECKING:
    from summarizer.ingest.formats.base import Reading

LAYOUT = Layout(array_keys=("messages",))
FORMAT_PREFIX = "mini-swe-agent"
SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
"""What the command that submits the work prints first (the first versions' marker, then today's)."""
OBSERVATION_PREFIX = "<returncode>"
"""How the default template opens a command's output; a submission is not one."""
_BASH_BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)
SUFFIXES = (".traj.json", ".json", ".traj")


def detect_mini_swe_agent(value: Any) -> str | None:
    """Why a decoded document is a mini-swe-agent run: its `trajectory_format`, or `info` with an
    `exit_status` or `mini_version` beside a `messages` array; None when it is not."""
    if not isinstance(value, Mapping):
        return None
    kind = value.get("trajectory_format")
    if isinstance(kind, str):
        return (
            f"a mini-swe-agent trajectory (trajectory_format {kind!r})"
            if kind.startswith(FORMAT_PREFIX)
            else None
        )
    info = value.get("info")
    messages = value.get("messages")
    has_run = isinstance(info, Mapping) and ("exit_status" in info or "mini_version" in info)
    if has_run and isinstance(messages, list):
        return "a mini-swe-agent trajectory (info with its exit status, and messages)"
    return None


def large_mini_swe_agent(path: Path, head: bytes) -> bool:
    """Whether a document larger than the part detection reads is a mini-swe-agent run: its name
    (`*.traj.json`), or the version key written near the top of `info`, or its format name."""
    start = head[:65536].decode("utf-8", errors="replace")
    return (
        path.name.endswith(".traj.json")
        or '"mini_version"' in start
        or f'"trajectory_format": "{FORMAT_PREFIX}' in start
    )


def read_mini_swe_agent(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    """Every record of a whole trajectory, then the roles and item types it skipped, named."""
    trajectory = MiniSweTrajectory(reading.agent, lines.label)
    for item in iter_chat_items(lines, reading.max_bytes, LAYOUT, reading.guard.on_bad):
        yield from reading.guard(item, trajectory.feed)
    reading.guard.unknown_kinds(trajectory.unknown_types, "message(s) of unknown", trajectory.first_unknown)


class MiniSweTrajectory:
    """A reader of one trajectory's messages, in order."""

    def __init__(self, default_agent: str | None, label: str) -> None:
        self.agent = default_agent or _agent_of(label)
        self.pending: list[tuple[str, str]] = []
        """(call id, command) of the last assistant message's calls that no output answered yet."""
        self.calls = 0
        self.opened = False
        self.unknown_types: Counter[str] = Counter()
        """Messages of roles (or items of types) this reader does not know, skipped, by name."""
        self.first_unknown: dict[str, str] = {}

    def feed(self, item: Item) -> list[IngestRecord]:
        message = item.value
        reject_nul(message)
        drafts = self._drafts(message, item.where)
        return finish_with_agent(drafts, item.where, self.agent, "the trajectory", lambda: _time(message))

    def _drafts(self, message: Mapping[str, Any], where: str) -> list[Draft]:
        role = message.get("role")
        kind = message.get("type")
        if role is None and (kind == "function_call_output" or isinstance(message.get("output"), list)):
            return self._function_output(message) if kind else self._response(message)
        if not isinstance(role, str):
            raise Problem(f"a message needs 'role' as a string, got {json_type(role)}")
        text = _text(message.get("content"), "content")
        if role == "system":
            return [Draft(Kind.SYSTEM, text)]
        if role == "assistant":
            return self._assistant(message, text)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise Problem("a tool message needs 'tool_call_id' as a string")
            self.pending = [p for p in self.pending if p[0] != call_id]
            return [Draft(Kind.TOOL_RESULT, text, tool_call_id=call_id, is_error=_failed(message))]
        if role == "user":
            return self._user(message, text)
        if role == "exit":
            return self._exit(message, text)
        count_unknown(self.unknown_types, self.first_unknown, f"role {role}", where)
        return []

    def _user(self, message: Mapping[str, Any], text: str) -> list[Draft]:
        if self.pending:  # the text-based layout: the output of the last action
            call_id, command = self.pending.pop(0)
            if any(m in command for m in SUBMIT_MARKERS) and not text.lstrip().startswith(OBSERVATION_PREFIX):
                return [*self._answered(call_id, "Submitted"), *self._last_words("Submitted", text)]
            drafts = [Draft(Kind.TOOL_RESULT, text, tool_call_id=call_id, is_error=_failed(message))]
            return drafts + self._unanswered()
        opens = not self.opened
        self.opened = True
        return [Draft(Kind.USER, text, continues_exchange=not opens)]

    def _assistant(self, message: Mapping[str, Any], text: str) -> list[Draft]:
        drafts = [Draft(Kind.ASSISTANT, text)] if text.strip() else []
        calls = message.get("tool_calls")
        if isinstance(calls, list) and calls:
            for index, call in enumerate(calls):
                call_id, name, arguments = function_call(call, index)
                drafts.append(self._call(call_id, name, arguments))
            return drafts
        for command in _commands(message, text):
            self.calls += 1
            drafts.append(self._call(f"action-{self.calls}", "bash", {"command": command}))
        return drafts

    def _response(self, response: Mapping[str, Any]) -> list[Draft]:
        """A Responses-API run's saved response: its message text and function calls."""
        drafts: list[Draft] = []
        for index, item in object_entries(response["output"], "output"):
            kind = item.get("type")
            if kind == "message":
                text = _text(item.get("content"), f"output[{index}].content")
                drafts.extend([Draft(Kind.ASSISTANT, text)] if text.strip() else [])
            elif kind == "function_call":
                call_id = item.get("call_id") or item.get("id")
                name = item.get("name")
                if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
                    raise Problem(f"output[{index}] needs 'call_id' and 'name' as strings")
                drafts.append(self._call(call_id, name, decoded_arguments(item.get("arguments"))))
        return drafts

    def _function_output(self, message: Mapping[str, Any]) -> list[Draft]:
        call_id = message.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            raise Problem("a function_call_output needs 'call_id' as a string")
        self.pending = [p for p in self.pending if p[0] != call_id]
        text = _text(message.get("output"), "output")
        return [Draft(Kind.TOOL_RESULT, text, tool_call_id=call_id, is_error=_failed(message))]

    def _exit(self, message: Mapping[str, Any], text: str) -> list[Draft]:
        extra = message.get("extra")
        extra = extra if isinstance(extra, Mapping) else {}
        status = extra.get("exit_status")
        status = status if isinstance(status, str) and status else "exit"
        submission = extra.get("submission")
        said = submission if isinstance(submission, str) and submission.strip() else text
        return [*self._answered(None, status), *self._last_words(status, said)]

    def _answered(self, call_id: str | None, status: str) -> list[Draft]:
        """Results for the calls the run's end leaves waiting (`call_id` first, when given)."""
        waiting = ([call_id] if call_id else []) + [c for c, _ in self.pending if c != call_id]
        self.pending = []
        failed = status != "Submitted"
        return [Draft(Kind.TOOL_RESULT, f"[{status}]", tool_call_id=c, is_error=failed) for c in waiting]

    def _last_words(self, status: str, text: str) -> list[Draft]:
        if status == "Submitted" and text.strip():
            return [Draft(Kind.ASSISTANT, text)]
        detail = text.strip()
        return [Draft(Kind.MARK, f"exit: {status}" + (f": {detail}" if detail and detail != status else ""))]

    def _unanswered(self) -> list[Draft]:
        """Text-based calls after the first of one message (there should be none): never run."""
        waiting, self.pending = self.pending, []
        return [Draft(Kind.TOOL_RESULT, "[not executed]", tool_call_id=c, is_error=True) for c, _ in waiting]

    def _call(self, call_id: str, name: str, arguments: Any) -> Draft:
        command = arguments.get("command") if isinstance(arguments, Mapping) else None
        self.pending.append((call_id, command if isinstance(command, str) else ""))
        return Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=arguments)


def _commands(message: Mapping[str, Any], text: str) -> list[str]:
    """The commands of a text-based reply: `extra.actions`, else its one ```bash block."""
    extra = message.get("extra")
    actions = extra.get("actions") if isinstance(extra, Mapping) else None
    if isinstance(actions, list):
        found = [a.get("command") for a in actions if isinstance(a, Mapping)]
        return [c for c in found if isinstance(c, str) and c.strip()]
    blocks = [b.strip() for b in _BASH_BLOCK.findall(text)]
    return blocks if len(blocks) == 1 else []  # mini-swe-agent runs exactly one, and answers others


def _failed(message: Mapping[str, Any]) -> bool:
    extra = message.get("extra")
    code = extra.get("returncode") if isinstance(extra, Mapping) else None
    return isinstance(code, int) and not isinstance(code, bool) and code != 0


def _text(content: object, field: str) -> str:
    """A string as it is; content parts (`text`, `input_text`, `output_text`) joined, an image as `[image]`."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise Problem(f"{field} must be a string or an array of parts, got {json_type(content)}")
    texts = []
    for _, part in object_entries(content, field):
        if isinstance(part.get("text"), str):
            texts.append(str(part["text"]))
        elif str(part.get("type", "")).endswith("image") or part.get("type") == "image_url":
            texts.append("[image]")
    return "\n".join(texts)


def _time(message: Mapping[str, Any]) -> datetime | None:
    extra = message.get("extra")
    stamp = extra.get("timestamp") if isinstance(extra, Mapping) else None
    if isinstance(stamp, bool) or not isinstance(stamp, int | float):
        return None
    return epoch_time(stamp, "extra.timestamp")


def _agent_of(label: str) -> str | None:
    if not label or label == "-":
        return None
    name = PurePath(label).name
    for suffix in SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return agent_from_name(name[: -len(suffix)])
    return agent_from_name(name)
