"""An independent reading of real agent logs: how many user prompts, assistant replies, tool calls and tool
results each file holds, counted from each format's published layout with nothing of `summarizer` (this
module and counts_documents.py import only the standard library, and a test checks it).

The layout is named by the manifest, never detected. The rules, per layout:
- claude-code (JSON Lines): `user`/`assistant` lines of the main chain (`isSidechain` false), each uuid once.
  A prompt is a user line of text that is not `isMeta`, not a tool result, not an interrupt note
  (`[Request interrupted…`), not a slash command's own lines (`<command-name>`, `<local-command-stdout>`,
  `<local-command-caveat>`, `<bash-…>`) and not a background task's or shell's `<task-notification>` / `<bash-notification>` (a compaction
  summary, `isCompactSummary`, is the user-role message that opens the compacted context: a prompt); the `isMeta` text a slash command expands to (its parent is the command's
  line) is the prompt that command sends. A prompt typed while the agent was busy (`queue-operation`
  `enqueue` with content) that never comes back as a user line is a prompt too, whatever became of it in
  the queue: taken back (`popAll`, `remove`) before it was sent, it is still words the user typed. A reply is an assistant message (its `message.id`) holding non-blank text,
  written by a model (`<synthetic>` error notes left out). Each `tool_use` block is a call; each
  `tool_result` block answering a call of the file is a result.
- codex (JSON Lines): `response_item` payloads. A prompt is an `event_msg` `user_message` (what was typed;
  a rollout without any such event counts the user `message` items that are not injected context). A reply
  is an assistant `message` with text; `function_call`/`custom_tool_call` are calls and their `…_output`
  items results (`web_search_call` is neither).
- gemini-cli: a session document's `messages` (or, in JSON Lines, each message id's last record): `user`
  messages are prompts, `gemini` messages with text replies, each `toolCalls` entry a call and its result.
- copilot (JSON Lines events): `user.message` (not from `source` instruction discovery) prompts,
  `assistant.message` with content replies, `toolRequests` entries calls, `tool.execution_complete` results.
- aider (Markdown): a run of `#### ` lines is one prompt (one opening with `/` is a command, one answering a
  `(Y)es/(N)o` question neither); a reply is a run of the model's own text (its code blocks included),
  ended by a prompt, a session start or aider's own `> ` output (and its unquoted report of edits that
  failed to match, through "Just reply with fixed versions…"), after which the model's next text (its
  retry of a failed edit, or the answer to an `AI!` comment) is another reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KINDS = ("user", "assistant", "tool_call", "tool_result")


@dataclass
class Counts:
    user: int = 0
    assistant: int = 0
    tool_call: int = 0
    tool_result: int = 0

    def as_dict(self) -> dict[str, int]:
        return {kind: getattr(self, kind) for kind in KINDS}

    def add(self, other: Counts) -> None:
        for kind in KINDS:
            setattr(self, kind, getattr(self, kind) + getattr(other, kind))


def json_lines(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            value = json.loads(line)
            if isinstance(value, dict):
                yield value


def blank(text: object) -> bool:
    return not isinstance(text, str) or not text.strip()


CLAUDE_NOT_PROMPTS = (
    "[Request interrupted",
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<bash-notification>",
)


def _claude_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(texts)
    return ""


class _ClaudeSession:
    """The main chain of one Claude Code session, line by line."""

    def __init__(self) -> None:
        self.counts = Counts()
        self.seen: set[str] = set()
        self.calls: set[str] = set()
        self.replies: set[str] = set()
        self.typed: list[str] = []
        self.queued: list[str] = []
        self.commands: set[str] = set()

    def read(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        if kind == "queue-operation":
            self.queue(line)
        elif kind in ("user", "assistant") and not line.get("isSidechain"):
            uuid = str(line.get("uuid"))
            if uuid not in self.seen:
                self.seen.add(uuid)
                message = line.get("message") or {}
                content = message.get("content")
                blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
                if kind == "assistant":
                    self.assistant(message, blocks, uuid)
                else:
                    self.user(line, content, blocks, uuid)

    def queue(self, line: dict[str, Any]) -> None:
        content = line.get("content")
        if line.get("operation") == "enqueue" and isinstance(content, str):
            self.queued.append(content)

    def assistant(self, message: dict[str, Any], blocks: list[dict[str, Any]], uuid: str) -> None:
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        self.counts.tool_call += len(uses)
        self.calls.update(b.get("id", "") for b in uses)
        has_text = any(b.get("type") == "text" and not blank(b.get("text")) for b in blocks)
        if has_text and message.get("model") != "<synthetic>":
            self.replies.add(message.get("id") or uuid)

    def user(self, line: dict[str, Any], content: object, blocks: list[dict[str, Any]], uuid: str) -> None:
        results = [b for b in blocks if b.get("type") == "tool_result"]
        self.counts.tool_result += sum(1 for b in results if b.get("tool_use_id") in self.calls)
        text = _claude_text(content)
        if results or blank(text):
            return
        if "<command-name>" in text[:200]:
            self.commands.add(uuid)
        if line.get("isMeta"):
            self.counts.user += line.get("parentUuid") in self.commands
        elif not text.lstrip().startswith(CLAUDE_NOT_PROMPTS):
            self.counts.user += 1
            self.typed.append(text.strip())

    def done(self) -> Counts:
        self.counts.assistant = len(self.replies)
        self.counts.user += sum(
            1
            for q in self.queued
            if q.strip() not in self.typed and not q.lstrip().startswith(CLAUDE_NOT_PROMPTS)
        )
        return self.counts


def claude_code(path: Path) -> Counts:
    session = _ClaudeSession()
    for line in json_lines(path):
        session.read(line)
    return session.done()


CODEX_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<INSTRUCTIONS>")


def codex(path: Path) -> Counts:
    counts = Counts()
    events = 0
    user_items = 0
    for line in json_lines(path):
        payload = line.get("payload") or {}
        if line.get("type") == "event_msg" and payload.get("type") == "user_message":
            events += 1
        if line.get("type") != "response_item":
            continue
        item = payload.get("type")
        if item == "message":
            text = "".join(
                part.get("text", "") for part in payload.get("content") or [] if isinstance(part, dict)
            )
            if payload.get("role") == "assistant" and not blank(text):
                counts.assistant += 1
            elif payload.get("role") == "user" and not text.lstrip().startswith(CODEX_INJECTED):
                user_items += 1
        elif item in ("function_call", "custom_tool_call"):
            counts.tool_call += 1
        elif item in ("function_call_output", "custom_tool_call_output"):
            counts.tool_result += 1
    counts.user = events or user_items
    return counts


def _gemini_messages(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".json":
        document = json.loads(path.read_text(encoding="utf-8"))
        return [m for m in document.get("messages", []) if isinstance(m, dict)]
    last: dict[str, dict[str, Any]] = {}
    for record in json_lines(path):
        if "id" in record and "type" in record:
            last[record["id"]] = record
    return list(last.values())


def _gemini_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def gemini_cli(path: Path) -> Counts:
    counts = Counts()
    for message in _gemini_messages(path):
        if message.get("type") == "user":
            counts.user += 1
        elif message.get("type") == "gemini":
            if not blank(_gemini_text(message.get("content"))):
                counts.assistant += 1
            for _call in message.get("toolCalls") or []:
                counts.tool_call += 1
                counts.tool_result += 1
    return counts


def copilot(path: Path) -> Counts:
    counts = Counts()
    for event in json_lines(path):
        data = event.get("data") or {}
        kind = event.get("type")
        if kind == "user.message" and data.get("source") != "instruction-discovery":
            counts.user += 1
        elif kind == "assistant.message":
            counts.assistant += 0 if blank(data.get("content")) else 1
            counts.tool_call += len(data.get("toolRequests") or [])
        elif kind == "tool.execution_complete":
            counts.tool_result += 1
    return counts


AIDER_ANSWER = re.compile(r"\(Y\)es/\(N\)o.*\]: ")
AIDER_REPORT_TAIL = ("# The other ", "Don't re-send them.", "Just reply with fixed versions of the block")
AIDER_FAILED = re.compile(r"> # \d+ SEARCH/REPLACE blocks? failed to match")


def _aider_line(line: str, state: str, counts: Counts) -> str:
    """The state after one line outside a reply's code block: start | prompt | command | failed | output |
    reply."""
    if state == "failed":  # aider's report of edits that did not apply, written unquoted
        return "output" if line.startswith("The SEARCH section must exactly match") else state
    if AIDER_FAILED.match(line):
        return "failed"
    if line.startswith("# aider chat started"):
        return "start"
    if line.startswith("####"):
        if AIDER_ANSWER.search(line):
            return "output"
        if state in ("prompt", "command"):
            return state
        command = line[4:].lstrip().startswith("/")
        counts.user += not command
        return "command" if command else "prompt"
    if line == ">" or line.startswith(("> ", *AIDER_REPORT_TAIL)):
        return "output"
    if line.strip() and state != "reply":
        counts.assistant += 1
        return "reply"
    return state


def aider(path: Path) -> Counts:
    counts = Counts()
    state = "start"
    fenced = False  # inside a reply's code block, where any line is the reply's
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.rstrip()
        if state == "reply" and line.startswith("```"):
            fenced = not fenced
        if not fenced:
            state = _aider_line(line, state, counts)
    return counts


def layouts() -> dict[str, Callable[[Path], Counts]]:
    from tests.corpus import counts_documents

    return {
        "claude-code": claude_code,
        "codex": codex,
        "gemini-cli": gemini_cli,
        "copilot": copilot,
        "aider": aider,
        **counts_documents.LAYOUTS,
    }


def count(path: Path, layout: str) -> Counts:
    return layouts()[layout](path)


if __name__ == "__main__":
    import sys

    print(count(Path(sys.argv[1]), sys.argv[2]).as_dict())
