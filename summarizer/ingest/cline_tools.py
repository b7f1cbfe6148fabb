"""Reading Cline's tool use out of its text: the XML tool tags of its classic mode and the result headers.

In its classic mode Cline's model calls a tool by writing it into its answer as XML, one tag per tool with
one tag per parameter (`<read_file>\\n<path>src/a.ts</path>\\n</read_file>`); Cline answers in the next user
message with text that opens with a header naming the tool (`[read_file for 'src/a.ts'] Result:`). With
native tool calls the calls are `tool_use` blocks, but the results still come back as such headed text.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from summarizer.ingest.tags import tag_spans

KNOWN_TOOLS = frozenset(
    {
        "read_file",
        "write_to_file",
        "replace_in_file",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "execute_command",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "ask_followup_question",
        "attempt_completion",
        "new_task",
        "plan_mode_respond",
        "load_mcp_documentation",
        "web_fetch",
    }
)
NOT_TOOLS = frozenset(
    {
        "thinking",
        "task",
        "feedback",
        "answer",
        "user_message",
        "environment_details",
        "file_content",
        "final_file_content",
        "error",
        "explicit_instructions",
        "task_progress",
    }
)
"""Tags Cline and its model write around text that are never tool calls, even with tags nested inside."""

_TAG = re.compile(r"<([a-z][a-z0-9_]*)>")
_SPACE = re.compile(r"\s*")
_ENVIRONMENT = re.compile(r"\s*<environment_details>.*?(?:</environment_details>|\Z)\s*", re.DOTALL)
_RESULT_HEADER = re.compile(r"\s*\[([A-Za-z0-9_.:-]+)(?: for [\s\S]*?)?\] Result:[ \t]*\n?")
"""`[tool] Result:` or `[tool for 'what'] Result:`; what a call was for may run over several lines (a
multi-line shell command)."""
_NOT_EXECUTED = re.compile(r"\s*Tool \[([A-Za-z0-9_.:-]+)\] was not executed because")
_ERROR_LINE = re.compile(r"^\s*\[ERROR\]", re.MULTILINE)
USER_TAGS = ("task", "feedback", "answer", "user_message")
_NOTICES = (
    "[TASK RESUMPTION]",
    "[ERROR]",
    "[NOTE]",
    "[Continue assisting",
    "(The user did not provide a new message",
    "# task_progress",
    "# TODO LIST UPDATE REQUIRED",
    "The user has provided feedback on the results",
)
"""How the texts Cline adds on its own begin (reminders, nags, resumption notes): not a user's turn."""


@dataclass(frozen=True, slots=True)
class ToolTag:
    name: str
    params: dict[str, str]


def split_tool_tags(text: str) -> list[str | ToolTag]:
    """An assistant text as its prose and its tool tags, in order. A tag is a known tool name, or any
    other name whose body opens with a parameter tag; one left unclosed (a reply cut off mid-call) stays
    prose, since Cline never ran it. Closing tags are found through one index of them built up front, so
    a text of many unclosed tags costs its length, not its length times its tags."""
    closings = _Closings(text)
    pieces: list[str | ToolTag] = []
    kept = pos = 0
    while (found := _TAG.search(text, pos)) is not None:
        name = found.group(1)
        if name in NOT_TOOLS:
            close = closings.first(name, found.end())
            pos = found.end() if close < 0 else close + len(name) + 3
            continue
        parsed = _tool_body(text, found.end(), name, closings)
        if parsed is None or (name not in KNOWN_TOOLS and not parsed[0]):
            pos = found.end()
            continue
        pieces.extend([text[kept : found.start()].strip(), ToolTag(name, parsed[0])])
        kept = pos = parsed[1]
    pieces.append(text[kept:].strip())
    return [piece for piece in pieces if piece]


class _Closings:
    """Where each `</name>` of a text stands, by name: all of them, and those that can end a parameter
    (followed, past blanks, by another tag or the end of the text)."""

    _CLOSING = re.compile(r"</([a-z][a-z0-9_]*)>")
    _NEXT = re.compile(r"\s*(?:</?[a-z][a-z0-9_]*>|\Z)")

    def __init__(self, text: str) -> None:
        self.at: dict[str, list[int]] = {}
        self.ending: dict[str, list[int]] = {}
        for found in self._CLOSING.finditer(text):
            self.at.setdefault(found.group(1), []).append(found.start())
            if self._NEXT.match(text, found.end()):
                self.ending.setdefault(found.group(1), []).append(found.start())

    def first(self, name: str, start: int) -> int:
        """The first `</name>` at or after `start`, or -1."""
        return _first(self.at.get(name, []), start)

    def first_ending(self, name: str, start: int) -> int:
        """The first `</name>` at or after `start` that can end a parameter, or -1."""
        return _first(self.ending.get(name, []), start)


def _first(places: list[int], start: int) -> int:
    index = bisect.bisect_left(places, start)
    return places[index] if index < len(places) else -1


def _tool_body(text: str, pos: int, name: str, closings: _Closings) -> tuple[dict[str, str], int] | None:
    """The parameters of the tool tag whose body starts at `pos`, and where its closing tag ends."""
    close = f"</{name}>"
    params: dict[str, str] = {}
    while True:
        space = _SPACE.match(text, pos)
        pos = space.end() if space else pos
        if text.startswith(close, pos):
            return params, pos + len(close)
        opening = _TAG.match(text, pos)
        if opening is None:
            if name not in KNOWN_TOOLS:
                return None
            end = closings.first(name, pos)  # stray text inside a known tool: Cline ignores it too
            return None if end < 0 else (params, end + len(close))
        param = opening.group(1)
        # The parameter's `</param>` is the first followed by another tag or the end (a file's content may
        # hold the same closing tag inside it).
        end = closings.first_ending(param, opening.end())
        if end < 0:
            return None
        value = text[opening.end() : end]
        params[param] = value.strip("\n") if param in ("content", "diff") else value.strip()
        pos = end + len(param) + 3


def without_environment(text: str) -> str:
    """The text with its `<environment_details>` blocks (the editor's state Cline appends) taken out."""
    return _ENVIRONMENT.sub("\n", text).strip() if "<environment_details>" in text else text


def result_header(text: str) -> tuple[str, str] | None:
    """(tool name, what follows the header) when the text opens with Cline's `[tool ...] Result:`."""
    found = _RESULT_HEADER.match(text)
    return None if found is None else (found.group(1), text[found.end() :])


def not_executed(text: str) -> str | None:
    """The tool named by Cline's notice that a second tool in one message was not run."""
    found = _NOT_EXECUTED.match(text)
    return None if found is None else found.group(1)


def failed(text: str) -> bool:
    """A result that reports an error: Cline's `[ERROR]` lines, failed runs and calls it never ran."""
    return (
        bool(_ERROR_LINE.search(text))
        or "The tool execution failed" in text
        or text.startswith("Task was interrupted before this tool call could be completed")
        or not_executed(text) is not None
    )


def user_words(text: str) -> tuple[str, frozenset[str]] | None:
    """What the user wrote, and in which tags, when the text wraps it in Cline's `<task>`, `<feedback>`,
    `<answer>` or `<user_message>` tags (the text around them is Cline's own)."""
    spans = tag_spans(text, USER_TAGS)
    if not spans:
        return None
    return "\n".join(text[s.body_start : s.body_end].strip() for s in spans), frozenset(s.name for s in spans)


def is_notice(text: str) -> bool:
    stripped = text.lstrip()
    return stripped.startswith(_NOTICES) or result_header(text) is not None or not_executed(text) is not None
