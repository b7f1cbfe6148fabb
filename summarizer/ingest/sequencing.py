"""Rules that look at the records of one agent in order, after each item has been parsed on its own.

- Timestamps that go back (Claude Code writes a compaction summary with an older time than the line
  before it; merged exports interleave) are raised to the previous message's time and counted, or, with
  `strict_time`, refused as the store would refuse them.
- A tool call id used twice in one exchange is refused: a result could not say which call it answers
  (skipped and counted when reading tolerantly).
- A tool result whose call is not earlier in its exchange (the call is not in the file) is kept as `tool`
  activity with the same text and counted when reading tolerantly; the store would refuse it as a result.
- Messages without a host id get one derived from their content, their timestamp when they have one, and
  the id of the message before them in the agent's stream, so the same input imported again derives the
  same ids and the store skips them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.ingest.records import IngestRecord

DERIVED_PREFIX = "~"
MAX_WARNINGS = 50
"""How many warnings one read keeps word for word (the counts cover the rest)."""


@dataclass(slots=True)
class ReadNotes:
    """What the reader changed on the way through, for the ingest report."""

    clamped_times: int = 0
    derived_ids: int = 0
    partial_lines: int = 0
    """An unterminated last line that is not JSON yet (the log is still being written): skipped."""
    detected: str = ""
    """The format `auto` detected, and why."""
    sidechains_skipped: int = 0
    """Claude Code sub-agent events left out (`--sidechains agent` keeps them)."""
    unpaired_calls: int = 0
    """Tool calls no result answered before their exchange ended (or the input did)."""
    orphan_results: int = 0
    """Tool results whose call was not earlier in their exchange, kept as `tool` activity."""
    skipped: int = 0
    """Lines or items left out because they could not be read (tolerant reading)."""
    warnings: list[str] = field(default_factory=list)
    """What was skipped or kept as text, each as `FILE:LINE: what` (the first MAX_WARNINGS of them)."""

    def warn(self, where: str | None, what: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(f"{where}: {what}" if where else what)


@dataclass(slots=True)
class _AgentStream:
    last_time: datetime | None = None
    last_id: str = ""
    calls: set[str] = field(default_factory=set)
    exchange_calls: set[str] | None = field(default_factory=set)
    """Every call id of the running exchange; None when unknown (a place kept by an older version)."""
    seen: dict[str, tuple[object, ...]] = field(default_factory=dict)


AgentStreams = dict[str, _AgentStream]
"""Each agent's place in the input: what the next message's time, id and tool calls continue from."""


def sequence(
    records: Iterable[IngestRecord],
    notes: ReadNotes,
    *,
    strict_time: bool,
    derive_ids: bool,
    streams: AgentStreams | None = None,
    strict: bool = False,
) -> Iterator[IngestRecord]:
    """`streams` carries the agents' places over from an earlier read of the same input (a followed log
    read from an offset) and is updated as records pass. With `strict`, a repeated call id is an error and
    a result without its call passes through for the store to refuse."""
    streams = {} if streams is None else streams
    for record in _counting_unpaired(records, streams, notes):
        stream = streams.setdefault(record.agent_id, _AgentStream())
        message = record.message
        if _resent(stream, message):
            yield record  # the same message twice: the store keeps one
            continue
        message = _timed(stream, message, notes, strict_time)
        if not strict:
            message = _orphan_kept(stream, message, notes)
        try:
            _check_call_id(stream, message.kind, message.tool_call_id, message.starts_exchange, message.where)
        except InvalidMessage as exc:
            if strict:
                raise
            notes.skipped += 1
            notes.warn(exc.where, f"{exc.reason}; skipped")
            continue
        message = _identified(stream, message, notes, derive_ids)
        yield record if message is record.message else IngestRecord(record.agent_id, message)


def _counting_unpaired(
    records: Iterable[IngestRecord], streams: AgentStreams, notes: ReadNotes
) -> Iterator[IngestRecord]:
    """The records, counting the calls still open when a new exchange starts and at the end."""
    for record in records:
        stream = streams.get(record.agent_id)
        if stream is not None and record.message.starts_exchange:
            notes.unpaired_calls += len(stream.calls)
        yield record
    notes.unpaired_calls += sum(len(stream.calls) for stream in streams.values())


def derive_missing_ids(records: Iterable[IngestRecord], notes: ReadNotes) -> Iterator[IngestRecord]:
    """The id rule of `sequence` alone, for input whose timestamps and tool calls the store checks itself
    (the HTTP API's request body): the same messages get the same ids by either path."""
    streams: dict[str, _AgentStream] = {}
    for record in records:
        stream = streams.setdefault(record.agent_id, _AgentStream())
        if _resent(stream, record.message):
            yield record
            continue
        message = _identified(stream, record.message, notes, True)
        yield record if message is record.message else IngestRecord(record.agent_id, message)


def _resent(stream: _AgentStream, message: NewMessage) -> bool:
    return message.host_id is not None and stream.seen.get(message.host_id) == message.identity()


def _timed(stream: _AgentStream, message: NewMessage, notes: ReadNotes, strict_time: bool) -> NewMessage:
    if (
        message.created_at is not None
        and stream.last_time is not None
        and message.created_at < stream.last_time
    ):
        if strict_time:
            raise InvalidMessage(
                f"created_at {message.created_at.isoformat()} is before the previous message's "
                f"{stream.last_time.isoformat()} (timestamps must not decrease; without --strict-time "
                "it would be raised to the previous one)",
                message.where,
            )
        message = replace(message, created_at=stream.last_time)
        notes.clamped_times += 1
    if message.created_at is not None:
        stream.last_time = message.created_at
    return message


def _identified(stream: _AgentStream, message: NewMessage, notes: ReadNotes, derive: bool) -> NewMessage:
    if message.host_id is None and not derive:
        return message
    identity = message.identity()
    if message.host_id is None:
        message = message.with_host_id(derive_id(stream.last_id, identity, message.created_at))
        notes.derived_ids += 1
    assert message.host_id is not None
    stream.last_id = message.host_id
    stream.seen[message.host_id] = identity
    return message


def _orphan_kept(stream: _AgentStream, message: NewMessage, notes: ReadNotes) -> NewMessage:
    """A result whose call is not earlier in its exchange, as `tool` activity (same text, call id and
    error flag); the exchange's calls are tracked here as the store tracks them."""
    if message.starts_exchange:
        stream.exchange_calls = set()
    known = stream.exchange_calls
    if known is None or message.tool_call_id is None:
        return message
    if message.kind is Kind.TOOL_CALL:
        known.add(message.tool_call_id)
    elif message.kind is Kind.TOOL_RESULT and message.tool_call_id not in known:
        notes.orphan_results += 1
        notes.warn(
            message.where,
            f"tool result for call {message.tool_call_id!r}, which is not earlier in its exchange; "
            "kept as tool activity",
        )
        return replace(message, kind=Kind.TOOL)
    return message


def _check_call_id(
    stream: _AgentStream, kind: Kind, call_id: str | None, starts_exchange: bool, where: str | None
) -> None:
    """A call id may not be used again while its call waits for a result; once answered, the same id is a
    new call (tau-bench trajectories and SWE-agent replays reuse ids this way)."""
    if starts_exchange:
        stream.calls.clear()
    if call_id is None:
        return
    if kind is Kind.TOOL_RESULT:
        stream.calls.discard(call_id)
        return
    if kind is not Kind.TOOL_CALL:
        return
    if call_id in stream.calls:
        raise InvalidMessage(
            f"tool call id {call_id!r} is used twice in one exchange before the first call was answered",
            where,
        )
    stream.calls.add(call_id)


def derive_id(previous: str, identity: tuple[object, ...], created_at: datetime | None) -> str:
    """A stable id: the hash of the message's content (`identity`), its timestamp when it has one, and the
    id before it in the agent's stream."""
    parts: list[object] = [previous, *identity]
    if created_at is not None:
        parts.append(created_at.astimezone(UTC).isoformat())
    return DERIVED_PREFIX + hashlib.sha256(_HASHED_JSON.encode(parts).encode("utf-8")).hexdigest()[:32]


_HASHED_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def streams_json(streams: AgentStreams) -> dict[str, dict[str, object]]:
    """The places to keep beside an offset (the `seen` ids only guard one read against its own repeats)."""
    return {
        agent: {
            "last_time": stream.last_time.isoformat() if stream.last_time else None,
            "last_id": stream.last_id,
            "calls": sorted(stream.calls),
            **(
                {"exchange_calls": sorted(stream.exchange_calls)} if stream.exchange_calls is not None else {}
            ),
        }
        for agent, stream in streams.items()
    }


def streams_from_json(value: object) -> AgentStreams:
    streams: AgentStreams = {}
    if not isinstance(value, dict):
        return streams
    for agent, kept in value.items():
        if isinstance(agent, str) and isinstance(kept, dict):
            last_time = kept.get("last_time")
            exchange_calls = kept.get("exchange_calls")
            streams[agent] = _AgentStream(
                last_time=datetime.fromisoformat(last_time) if isinstance(last_time, str) else None,
                last_id=str(kept.get("last_id") or ""),
                calls={str(c) for c in kept.get("calls") or ()},
                exchange_calls={str(c) for c in exchange_calls} if isinstance(exchange_calls, list) else None,
            )
    return streams
