"""What one input format is, in one value: `LogFormat`.

A format is its `--format` name, how `--format auto` recognises it, how `ingest` reads a whole file of it,
and, for the coding agents' logs, how `watch` follows it, where the agent keeps its logs and its hook.
Each format is one module of this package exporting one `FORMAT`; `registry` lists them.

A reader gets the input's lines and a `Reading`: the default agent, the size limit, the options and the
guard every item goes through (an item that cannot be read is an error under `strict`, otherwise skipped,
counted and named).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest.claude_code import Sidechains
from summarizer.ingest.containers import Item, Layout, OnBadLine, iter_chat_items, iter_jsonl
from summarizer.ingest.fields import reject_nul
from summarizer.ingest.lines import LineReader
from summarizer.ingest.problems import Problem
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.sequencing import ReadNotes


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How to read: `strict_time` refuses timestamps that go back instead of raising them; `derive_ids`
    gives messages without an id a stable one (see `sequencing`); `sidechains` says what happens to a
    Claude Code sub-agent's events; `strict` makes any line or item that cannot be read an error."""

    strict_time: bool = False
    derive_ids: bool = True
    sidechains: Sidechains = Sidechains.SKIP
    strict: bool = False


class Guard:
    """Where an unreadable line or item goes: an error (`strict`), or skipped, counted and named."""

    def __init__(self, strict: bool, notes: ReadNotes) -> None:
        self.strict = strict
        self.notes = notes
        self.on_bad: OnBadLine | None = None if strict else self._skip

    def __call__(self, item: Item, parse: Callable[[Item], list[IngestRecord]]) -> list[IngestRecord]:
        try:
            return parse(item)
        except Problem as problem:
            if self.strict:
                raise InvalidMessage(problem.reason, item.where) from None
            self._skip(InvalidMessage(problem.reason, item.where))
        except InvalidMessage as exc:
            if self.strict:
                raise
            self._skip(exc)
        return []

    def _skip(self, exc: InvalidMessage) -> None:
        self.notes.skipped += 1
        self.notes.warn(exc.where, f"{exc.reason}; skipped")

    def unknown(self, where: str, count: int, what: str) -> None:
        """Lines or items of a type the reader does not know (`what`, "... skipped"): an error under
        `strict`, otherwise named, and `count` of them added to the skipped ones."""
        if self.strict:
            reason = what.removesuffix(" skipped")
            raise InvalidMessage(f"{reason} (--strict reads no type it does not know)", where)
        self.notes.skipped += count
        self.notes.warn(where, what)

    def unknown_kinds(self, counts: Mapping[str, int], what: str, where: str | Mapping[str, str]) -> None:
        """`unknown` for each kind a read skipped, in order of name: "N WHAT 'kind' skipped" at `where`,
        the input's label or each kind's first place."""
        for kind, count in sorted(counts.items()):
            self.unknown(
                where if isinstance(where, str) else where[kind], count, f"{count} {what} {kind!r} skipped"
            )


@dataclass(frozen=True, slots=True)
class Reading:
    """What a whole-file reader reads with, besides the lines."""

    agent: str | None
    """The default agent (`--agent`), for lines that name none."""
    max_bytes: int
    options: ReadOptions
    guard: Guard


class LineParser(Protocol):
    """A followed log's parser: fed its objects line by line, able to say what it holds back (a checkpoint
    is only where nothing is) and to save and resume its state with the file's position."""

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]: ...

    @property
    def pending(self) -> bool: ...

    def state(self) -> dict[str, Any]: ...

    def unknown(self) -> tuple[int, list[str]]:
        """Lines of this read skipped for a type the reader does not know, and what to say of them
        (`FILE:LINE: what`, each type once per file)."""
        ...


class SettledLines:
    """The part of a followed log's parser that holds nothing back after a line and skips no type
    (`LineParser.pending` and `LineParser.unknown`); a parser that does, says so itself."""

    @property
    def pending(self) -> bool:
        return False

    def unknown(self) -> tuple[int, list[str]]:
        return 0, []


class AgentHome(NamedTuple):
    """Where an agent keeps its logs: under the folder `variable` names, or `folder` in the user's home
    when it is unset or empty, the folder `logs`."""

    variable: str | None
    folder: str
    logs: str


Reader = Callable[[LineReader, Reading], Iterator[IngestRecord]]
"""Every record of a whole input (`ingest`, and `watch` for a document log)."""
Detector = Callable[[Any], str | None]
"""One JSON value of an input (a line's object, or the whole document): why it is this format, or None."""
TextDetector = Callable[[str], str | None]
"""The start of an input as text: why it is this format, or None."""
LineParserFactory = Callable[[str | None, Mapping[str, Any]], LineParser]
"""A followed log's parser for the default agent, resumed from the state kept with the file's position."""


@dataclass(frozen=True, slots=True)
class LogFormat:
    """One input format. Only `name`, `title` and `read` are required; a format `--format auto` can tell
    has `detect` or `detect_text`."""

    name: str
    """The `--format` value."""
    title: str
    """How users name it ("Claude Code")."""
    read: Reader
    detect: Detector | None = None
    detect_text: TextDetector | None = None
    """For an input that is not JSON (a Markdown history), from its text."""
    detect_opening: TextDetector | None = None
    """From the start of a first line longer than the part detection reads (a pasted image)."""
    aliases: tuple[str, ...] = ()
    """Other `--format` values that mean this format."""
    bookkeeping: frozenset[str] = frozenset()
    """Line types that carry no conversation: detection passes over them (a line with a `payload` or a
    `role` always counts), and an input of them alone, so far, is this format."""
    near_miss: Detector | None = None
    """What an object no format matches has of this format (the nearest miss named, with this `--format`)."""
    provisional: Callable[[Mapping[str, Any]], bool] | None = None
    """Whether a line this format matched leaves the input's format open: the later lines then decide, the
    first whose type a format `settles` (an untyped chat line may open an OpenAI Responses input)."""
    settles: frozenset[str] = frozenset()
    """Line types that settle a provisional match (see `provisional`)."""
    follow: LineParserFactory | None = None
    """The parser `watch` feeds each new line of a followed log (None: not followed line by line)."""
    document: bool = False
    """`watch` reads the file whole when it changes (a document the agent rewrites, or Markdown)."""
    large_document: Callable[[Path, bytes], bool] | None = None
    """Whether a document larger than the part read is this format, from its name or its first bytes
    (so a log over the size limit is refused with a warning rather than passed over)."""
    home: AgentHome | None = None
    """The agent's own log folder, which `watch` follows when no folder is named and the hooks may read."""
    more_folders: Callable[[], list[Path]] | None = None
    """More folders `watch` follows when none is named, those that exist."""
    more_folders_shown: str = ""
    """`more_folders` as a user reads them."""
    folder_note: str = ""
    """Where to find the logs of an agent with no folder of its own."""
    log_names: frozenset[str] = frozenset()
    """Names of its log files that are neither `*.jsonl` nor `*.json` (a Markdown history)."""
    session_files: Callable[[str], bool] | None = None
    """Whether a file name is one of its logs kept outside any project's folder (filed by date, or in a
    task folder): `watch --per project` records such a log as its own session."""
    nothing_found: str = ""
    """What `ingest` adds when a file of this format held no message (" (why)")."""
    hook: str | None = None
    """The `summarizer hook NAME` command, as "module:attribute"."""

    @property
    def detectable(self) -> bool:
        return self.detect is not None or self.detect_text is not None


_LINE_TYPE = re.compile(r'"type"\s*:\s*"([^"]{1,64})"')


def opening_type(start: str) -> str | None:
    """The first `"type": "..."` at the start of a line read only in part."""
    found = _LINE_TYPE.search(start)
    return found.group(1) if found is not None else None


def home_folder(home: AgentHome, environ: Mapping[str, str], user_home: Path) -> Path:
    """The logs folder of `home`, whether or not it exists."""
    moved = environ.get(home.variable, "") if home.variable else ""
    return (Path(moved) if moved else user_home / home.folder) / home.logs


LineFeed = Callable[[Mapping[str, Any], str], list[IngestRecord]]
"""A line's object and where it is: its records (what a `LineParser` is fed)."""


def fed_lines(lines: LineReader, reading: Reading, feed: LineFeed) -> Iterator[IngestRecord]:
    """The records of a JSON Lines input, each line's object fed to `feed` through the reading's guard."""
    for item in iter_jsonl(lines, reading.max_bytes, reading.guard.on_bad):
        yield from reading.guard(item, lambda i: feed(i.value, i.where))


ItemReader = Callable[[Item], list[IngestRecord]]
ConversationParse = Callable[[Mapping[str, Any], str, str], list[IngestRecord]]
"""An item holding one conversation, its agent and where it is: its records."""


def conversations_reader(
    parse: ConversationParse, default_agent: str, name: Callable[[Mapping[str, Any], int], str]
) -> Reader:
    """A reader of a bare array (or JSON Lines) of items that each hold a whole conversation, each its own
    agent `AGENT/NAME`: AGENT is --agent or `default_agent`, `name` names the item from its value and its
    1-based position in the input."""

    def read(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
        items = iter_chat_items(lines, reading.max_bytes, Layout(array_keys=()), reading.guard.on_bad)
        for position, item in enumerate(items, start=1):

            def parse_item(i: Item, position: int = position) -> list[IngestRecord]:
                reject_nul(i.value)
                agent = f"{reading.agent or default_agent}/{name(i.value, position)}"
                return parse(i.value, agent, i.where)

            yield from reading.guard(item, parse_item)

    return read


def items_reader(layout: Layout, reader_of: Callable[[str | None, str], ItemReader]) -> Reader:
    """A reader of a log saved as one document (or JSON Lines of its items): each item in `layout` fed to
    the reader `reader_of` makes for the default agent and the input's label."""

    def read(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
        feed = reader_of(reading.agent, lines.label)
        for item in iter_chat_items(lines, reading.max_bytes, layout, reading.guard.on_bad):
            yield from reading.guard(item, feed)

    return read
