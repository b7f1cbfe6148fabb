"""The OpenAI Agents SDK's `Session`, kept by summarizer: a bounded context forever, folded in the background.

    from summarizer.integrations.openai_agents import SummarizerSession
    result = await Runner.run(agent, "Hello", session=SummarizerSession("support-42"))

Each item the Runner adds is recorded twice over, in one transaction: as the conversation messages the
`responses` ingest format reads from it (what the window counts, evicts and the workers summarize) and,
verbatim (credentials masked, as recording masks them, and base64url-encoded), as a `mark` (metadata:
0 tokens, never sent to a summarizing model) in the same exchange. So
`get_items` hands back the window's items exactly as they were added (ids, call ids, reasoning, order,
fields this package does not read), led by the tiered summary as a developer message. Eviction takes
whole exchanges, and an exchange starts at a user message, so a function call and its output leave the
window together: no function output is ever sent without its call.

`pop_item` and `clear_session` keep the store's rules, under which history is never deleted: a popped
item is hidden behind a `rewind` marker (it stays in the history, and in the summary once its exchange is
evicted), and clearing evicts every exchange with a `clear` marker, as `/clear` does, so what was said is
summarized rather than lost. Items before the first user message are the agent's preamble, which the
store never evicts: they survive `clear_session`.

The store is blocking, so every call runs in a worker thread (`asyncio.to_thread`), off the event loop.
"""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from collections.abc import Sequence
from typing import Any, cast

import structlog
from agents.items import TResponseInputItem
from agents.memory import SessionSettings

from summarizer.api import Summarizer
from summarizer.composition import build_summarizer
from summarizer.domain.agent_ids import check_agent_id
from summarizer.domain.credentials import mask_json
from summarizer.domain.errors import InvalidMessage, UnknownAgent
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage, StoredMessage
from summarizer.engine.render import NO_SUMMARY_YET
from summarizer.ingest.problems import Problem
from summarizer.ingest.raw_sdks import as_json
from summarizer.ingest.responses_format import parse_responses_item

log = structlog.get_logger(__name__)

ITEM_PREFIX = "agents-sdk:item:"
"""Host id prefix of the `mark` that keeps an item verbatim (the rest is a fresh random key)."""
POP_PREFIX = "agents-sdk:pop:"
CLEAR_PREFIX = "agents-sdk:clear:"
# Keys the ingest readers take as bookkeeping (agent, host id, time, token figure): an item's own `id`
# is not unique across providers (the SDK's Chat Completions bridge gives every item the same one).
_BOOKKEEPING = ("id", "agent", "created_at", "tokens")


def item_messages(item: dict[str, Any], key: str, where: str = "item") -> list[NewMessage]:
    """One Runner item as messages to record: what the ingest reader finds in it, then the item verbatim.
    An item the reader cannot use (a type it does not know, reasoning) is kept verbatim only. `where`
    places the item in errors the store raises (`items[3]: tool_result ... matches no tool_call`)."""
    readable = {k: v for k, v in item.items() if k not in _BOOKKEEPING}
    try:
        records = parse_responses_item(readable, "-", where)
    except Problem as problem:
        log.warning("agents_session.item_kept_verbatim", type=item.get("type"), reason=problem.reason)
        records = []
    return [r.message for r in records] + [NewMessage(Kind.MARK, encode_item(item), host_id=key)]


def encode_item(item: dict[str, Any]) -> str:
    """The item, its credentials masked, as unpadded base64url JSON: recording masks credentials in a
    message's text, and masking the JSON text itself could break it (a `password=\\"...` inside a string);
    base64url has no character a credential shape needs, so the stored text stays as written here."""
    text = json.dumps(mask_json(item), ensure_ascii=False, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def decode_item(content: str) -> TResponseInputItem:
    padded = content + "=" * (-len(content) % 4)
    return cast("TResponseInputItem", json.loads(base64.urlsafe_b64decode(padded)))


def visible_items(messages: Sequence[StoredMessage]) -> list[tuple[str, TResponseInputItem]]:
    """The window's items as they were added, with their keys, without the popped ones."""
    popped = {
        m.content for m in messages if m.kind is Kind.REWIND and (m.host_id or "").startswith(POP_PREFIX)
    }
    return [
        (m.host_id, decode_item(m.content))
        for m in messages
        if m.kind is Kind.MARK and m.host_id is not None and m.host_id.startswith(ITEM_PREFIX)
        if m.host_id not in popped
    ]


class SummarizerSession:
    """An Agents SDK `Session` whose history is an agent of summarizer (the session id is the agent id).

    `summarizer` defaults to `build_summarizer()`: the database and budget that the
    `SUMMARIZER_*` settings name, the embedded SQLite database without any. Run the summary workers
    (`summarizer worker`) beside the app to fold what leaves the window."""

    def __init__(
        self,
        agent_id: str,
        summarizer: Summarizer | None = None,
        *,
        session_settings: SessionSettings | None = None,
    ) -> None:
        check_agent_id(agent_id, "session id")
        self.session_id = agent_id
        self.session_settings: SessionSettings | None = session_settings or SessionSettings()
        self._summarizer = summarizer

    @property
    def summarizer(self) -> Summarizer:
        if self._summarizer is None:
            self._summarizer = build_summarizer()
        return self._summarizer

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The summary (as a leading developer message), then the window's items as they were added. With
        a limit (or `session_settings.limit`), the latest `limit` items as stored, without the summary: the
        SDK reads the tail that way to check its own writes."""
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        return await asyncio.to_thread(self._get_items, limit)

    def _get_items(self, limit: int | None) -> list[TResponseInputItem]:
        try:
            context = self.summarizer.get_context(self.session_id)
        except UnknownAgent:
            return []
        items = [item for _, item in visible_items(context.messages)]
        if limit is not None:
            return items[-limit:] if limit > 0 else []
        if context.summary.strip() and context.summary != NO_SUMMARY_YET:
            summary: TResponseInputItem = {"role": "developer", "content": context.summary}
            return [summary, *items]
        return items

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Record the items, all or none, in the order given."""
        if items:
            await asyncio.to_thread(self._add_items, items)

    def _add_items(self, items: Sequence[TResponseInputItem]) -> None:
        batch: list[NewMessage] = []
        for index, item in enumerate(items):
            data = as_json(item, "an input item", f"items[{index}]")
            if not isinstance(data, dict):
                raise InvalidMessage(
                    f"expected an input item (an object), got {type(data).__name__}", f"items[{index}]"
                )
            batch.extend(item_messages(data, f"{ITEM_PREFIX}{uuid.uuid4().hex}", f"items[{index}]"))
        self.summarizer.record_batch(self.session_id, batch)

    async def pop_item(self) -> TResponseInputItem | None:
        """Hide the most recent item in the window and return it (None when the window holds none)."""
        return await asyncio.to_thread(self._pop_item)

    def _pop_item(self) -> TResponseInputItem | None:
        try:
            window = self.summarizer.get_context(self.session_id).messages
        except UnknownAgent:
            return None
        visible = visible_items(window)
        if not visible:
            return None
        key, item = visible[-1]
        marker = NewMessage(Kind.REWIND, key, host_id=f"{POP_PREFIX}{uuid.uuid4().hex}")
        self.summarizer.record_batch(self.session_id, [marker])
        return item

    async def clear_session(self) -> None:
        """Evict every exchange, as `/clear` does: the workers fold them into the summary."""
        await asyncio.to_thread(self._clear)

    def _clear(self) -> None:
        try:
            self.summarizer.get_context(self.session_id)
        except UnknownAgent:
            return
        marker = NewMessage(Kind.CLEAR, "clear_session", host_id=f"{CLEAR_PREFIX}{uuid.uuid4().hex}")
        self.summarizer.record_batch(self.session_id, [marker])


__all__ = ["SummarizerSession"]
