"""aider chat histories (`.aider.chat.history.md` in the root of each project aider ran in), as aider
writes them.

aider appends Markdown to the file as the chat goes: `# aider chat started at YYYY-MM-DD HH:MM:SS` opens
each run (a session), each line the user typed is written as `#### LINE` (two trailing spaces), the
model's reply as plain text between blank lines, and each note aider prints itself (its version and
model, "Applied edit to ...", "Commit ...", a shell command and its confirmation, errors) as one
`> NOTE` line (two trailing spaces; a note of several lines has its `>` on the first line only, and a
model reply always opens after a blank line, so a line right under a note continues it: the lines of a
suggested shell command aider shows before asking to run it, padded to one width, a command continued
with `\\` among them).

- A session start is a `clear` marker: aider begins each run with an empty chat (the earlier runs leave
  the model's context), and its time, taken as UTC (aider writes local time without a zone), is the time
  of every message of the session.
- A typed prompt is a `user` message, lines joined. A slash command is a `command` marker (`/clear` and
  `/reset` a `clear`), except `/ask`, `/code`, `/architect` and `/context`, which send their text to the
  model and so are prompts. An empty prompt (`<blank>`) is left out; an answer to one of aider's yes/no
  questions that a version logged as a typed line is one of aider's notes (below).
- A reply is an `assistant` message; reasoning aider inlines as `<thinking-content-...>` blocks is left
  out, as other readers leave thoughts out.
- aider's notes after the session's first prompt are `system` text of the running exchange (they do not
  make a finished exchange look unfinished, as `tool` activity would). Notes before it (the startup
  banner, warnings, what commands typed before it printed, the work of a run driven by `AI!` comments
  in the code rather than typed prompts) are `mark` metadata: they are not conversation and would
  otherwise pile up in the preamble, which is never evicted. A note of several lines runs, blank lines
  included, to the line that ends with the two spaces.

The file names no session, so the agent is the project: the name of the folder holding the file (what
`watch --per project` uses too), unless `--agent` names one. Messages carry no id: each gets one derived
from its content, time and the message before it, so a history read again as it grows stores only what
was added. A `#### ` line or a `> ` line without the two trailing spaces, inside a reply, is the model's
own Markdown (a heading, a quote) and stays in the reply. Text before the first session line is not
aider's and is skipped (counted in the report); a last line still being written (no line break yet) is
left for the next read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.ingest.containers import Item
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import Extras
from summarizer.ingest.lines import LineReader, over_limit_reason
from summarizer.ingest.path_agents import folder_agent
from summarizer.ingest.problems import Problem
from summarizer.ingest.records import IngestRecord

HISTORY_NAME = ".aider.chat.history.md"
SESSION_PREFIX = "# aider chat started at "
_SESSION = re.compile(r"# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s*$")
_THINKING = re.compile(r"<thinking-content-[0-9a-f]+>.*?</thinking-content-[0-9a-f]+>", re.DOTALL)
DETECT_LINES = 400
"""How many lines detection looks through for a session line (a history may open with other text)."""
MODEL_COMMANDS = frozenset({"/ask", "/code", "/architect", "/context"})
"""Slash commands that send their text to the model: prompts."""
CLEARING_COMMANDS = frozenset({"/clear", "/reset"})
BLANK_PROMPT = "<blank>"
_CONFIRMATION = re.compile(r"\(Y\)es/\(N\)o.*\]: *\S*$")
"""An answer to one of aider's yes/no questions, which some versions log as a typed line."""
_BREAK = "  "
"""The two trailing spaces (a Markdown line break) aider ends each prompt line and each note with."""


def looks_like_aider(text: str) -> bool:
    """Whether `text` (the start of an input) holds an aider session line among its first lines."""
    return any(line.startswith(SESSION_PREFIX) for line in text.splitlines()[:DETECT_LINES])


@dataclass(slots=True)
class _Block:
    kind: str
    """"session", "prompt", "reply", "note", "outside" (text before the first session line) or
    "unreadable" (a line that is not UTF-8 text)."""
    line: int
    lines: list[str] = field(default_factory=list)
    size: int = 0
    open: bool = False
    """A note whose last line so far lacks the trailing break: its next lines, blank ones included,
    continue it up to the line that ends with the break."""

    def add(self, text: str, limit: int) -> None:
        self.size += len(text.encode("utf-8")) + (1 if self.lines or self.size else 0)  # with its line break
        if self.size <= limit:  # an oversized block is measured, not kept
            self.lines.append(text)


def aider_items(reader: LineReader, limit: int) -> Iterator[Item]:
    """The history's blocks in order, each an item `{block, text, size}` at its first line."""
    current: _Block | None = None
    seen_session = False
    measured = False
    while True:
        try:
            line = reader.read_line(limit)
        except InvalidMessage as exc:  # a raw NUL or bad UTF-8: that line is named and left out
            yield Item({"block": "unreadable", "text": exc.reason, "size": 0}, exc.where or reader.label)
            continue
        if line is None:
            break
        measured = line.text is None
        if line.text is None:  # a line over the size limit: measured, not kept, and its block refused
            if current is None:
                current = _Block("reply" if seen_session else "outside", line.number)
            current.size += line.size + (1 if current.size else 0)
            continue
        text = line.text
        header = _SESSION.match(text)
        if header is not None:
            yield from _flushed(reader, current)
            current = None
            seen_session = True
            yield Item({"block": "session", "text": header.group(1), "size": 0}, reader.where(line.number))
        elif not seen_session:
            if text.strip() and current is None:
                current = _Block("outside", line.number)
            if current is not None:
                current.add(text, limit)
        else:
            following = _block_of(current, line.number, text, limit)
            if following is not current:
                yield from _flushed(reader, current)
            current = following
    if reader.unterminated and not measured and current is not None:  # its last line is being written
        reader.partial_lines += 1
        return
    yield from _flushed(reader, current)


def _block_of(current: _Block | None, number: int, text: str, limit: int) -> _Block | None:
    """The block line `number` belongs to, with the line added: `current`, a new block (which closes
    `current`), or None for a blank line between blocks."""
    ends_break = text.endswith(_BREAK)
    kind = current.kind if current is not None else None
    block: _Block | None
    if current is not None and current.open:  # a note of several lines runs to its trailing break
        block, current.open = current, not ends_break
    elif text.startswith("####") and ends_break:
        block = current if current is not None and kind == "prompt" else _Block("prompt", number)
        text = text[5:]
    elif text.startswith(">") and (ends_break or kind != "reply"):
        block = _Block("note", number, open=not ends_break)
        text = text[2:] if text.startswith("> ") else text[1:]
    elif not text.strip() and kind != "reply":
        return None
    elif kind == "note" and current is not None:  # a note's next line: a reply opens after a blank line
        block = current
    else:  # a `####` or `>` line without the break inside a reply is the model's own Markdown
        block = current if current is not None and kind == "reply" else _Block("reply", number)
    block.add(text, limit)
    return block


def _flushed(reader: LineReader, block: _Block | None) -> Iterator[Item]:
    if block is None:
        return
    if block.kind == "reply":
        text = "\n".join(block.lines).strip()
    else:
        text = "\n".join(line.rstrip() for line in block.lines).strip()
    yield Item({"block": block.kind, "text": text, "size": block.size}, reader.where(block.line))


class AiderHistory:
    """A reader of one history's blocks: which session they belong to, and whether it has had a prompt."""

    def __init__(self, default_agent: str | None, limit: int) -> None:
        self.default_agent = default_agent
        self.limit = limit
        self.agent: str | None = default_agent
        self.started: datetime | None = None
        self.prompted = False

    def feed(self, item: Item) -> list[IngestRecord]:
        block, text, size = item.value["block"], item.value["text"], item.value["size"]
        if block == "unreadable":
            raise Problem(f"{text}; the line is left out")
        if block == "outside":
            raise Problem(f"text before the first {SESSION_PREFIX.strip()!r} line belongs to no session")
        if block == "session":
            try:
                self.started = datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
            except ValueError:
                raise Problem(f"the run's start {text!r} is not a date and time") from None
            self.prompted = False
            return self._records(Draft(Kind.CLEAR, f"aider chat started at {text}"), item.where)
        if size > self.limit:
            raise Problem(over_limit_reason(size, self.limit))
        if block == "prompt":
            return self._records(self._prompt(text), item.where)
        if block == "reply":
            reply = _THINKING.sub("", text).strip()
            return self._records(Draft(Kind.ASSISTANT, reply) if reply else None, item.where)
        return self._records(self._note(text), item.where)

    def _note(self, text: str) -> Draft | None:
        if not text:
            return None
        return Draft(Kind.SYSTEM if self.prompted else Kind.MARK, text)

    def _prompt(self, text: str) -> Draft | None:
        if not text or text == BLANK_PROMPT:
            return None
        if "\n" not in text and _CONFIRMATION.search(text):
            return self._note(text)
        if text.startswith("!"):  # aider's shorthand for /run
            return Draft(Kind.COMMAND, text)
        if text.startswith("/"):
            name = text.split(maxsplit=1)[0].lower()
            if name in CLEARING_COMMANDS:
                return Draft(Kind.CLEAR, text)
            if name not in MODEL_COMMANDS:
                return Draft(Kind.COMMAND, text)
        self.prompted = True
        return Draft(Kind.USER, text)

    def _records(self, draft: Draft | None, where: str) -> list[IngestRecord]:
        if draft is None:
            return []
        if self.agent is None:
            self.agent = folder_agent(where, "an aider chat history names no session")
        extras = Extras(agent_id=self.agent, created_at=self.started, host_id=None, tokens=None)
        return finish([draft], extras, where)
