"""Recall: the exchanges of an agent's whole stored history that best answer a question.

The summary is lossy by design; every exchange it left out is still stored. A search ranks the agent's
exchanges (evicted or in the window) by the question's words and the time it names
(`domain/recall_rank.py`, the same ranking on every database) and returns a page of
them, each with where it stands in the provenance ledger (summarized in which item, dropped why, waiting,
in the window) and a snippet of its best matching messages (credentials in it masked: a snippet is
quoted into an agent's context). Front ends: `summarizer recall`,
`GET /v1/agents/{id}/recall`, `Summarizer.recall`, the MCP tool `recall` and the operator's page.
"""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TypedDict

from summarizer.domain.errors import UnknownAgent
from summarizer.domain.messages import StoredMessage
from summarizer.domain.recall import (
    MAX_LIMIT,
    TERM_CAP,
    InvalidQuery,
    Ranked,
    RecallFilter,
    RecallHit,
    RecallPage,
    Snippet,
    check_kinds,
    query_terms,
    snippet,
    utc_filter,
)
from summarizer.domain.recall_forms import fold_forms, other_forms
from summarizer.domain.recall_rank import rank_page
from summarizer.domain.recall_time import TimePhrase, read_time
from summarizer.domain.secrets import redact
from summarizer.service.ledger import LedgerEntry, ledger_entries
from summarizer.storage.port import RecallDetails, RecallStore

SNIPPETS_PER_HIT = 2
MAX_OFFSET = 10_000


class RecallOptions(TypedDict, total=False):
    """The keyword options of `Recall.search` (the filters and the page; their defaults are its own), for
    a facade in front of it that passes them on unchanged."""

    since: datetime | None
    until: datetime | None
    kinds: Sequence[str]
    limit: int
    offset: int


class Recall:
    def __init__(self, store: RecallStore, *, term_cap: int = TERM_CAP) -> None:
        self.store = store
        self._cap = term_cap

    def search(
        self,
        agent_id: str,
        query: str,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        kinds: Sequence[str] = (),
        limit: int = 5,
        offset: int = 0,
    ) -> RecallPage:
        """One page of the agent's exchanges that match `query`, best first. `UnknownAgent` for an agent
        never seen; `InvalidQuery` for a question with no searchable word or bad filters."""
        terms = query_terms(query)
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidQuery(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
        if not 0 <= offset <= MAX_OFFSET:
            raise InvalidQuery(f"offset must be between 0 and {MAX_OFFSET}, got {offset}")
        since = None if since is None else utc_filter(since, "since")  # naive: refused; aware: in UTC
        until = None if until is None else utc_filter(until, "until")
        if since is not None and until is not None and since >= until:
            raise InvalidQuery("the time range is empty: `since` must be before `until`")
        phrase = read_time(query)
        filters = RecallFilter(since=since, until=until, kinds=check_kinds(kinds), timed=phrase is not None)
        with _no_cycle_collection():  # the matches are freed when `_ranked` returns
            total, page, capped = self._ranked(agent_id, terms, filters, phrase, offset, limit)
        hits: tuple[RecallHit, ...] = ()
        if page:
            seqs = [seq for r in page for seq in r.seqs[:SNIPPETS_PER_HIT]]
            shown = self.store.recall_details(agent_id, [r.exchange_id for r in page], seqs)
            hits = tuple(_hit(r, shown, _ledger(shown)) for r in page if r.exchange_id in shown.exchanges)
        return RecallPage(
            agent_id=agent_id,
            query=query,
            terms=terms,
            total=total,
            capped=capped,
            offset=offset,
            limit=limit,
            hits=hits,
        )

    def _ranked(
        self,
        agent_id: str,
        terms: tuple[str, ...],
        filters: RecallFilter,
        phrase: TimePhrase | None,
        offset: int,
        limit: int,
    ) -> tuple[int, list[Ranked], bool]:
        """The store's matches, ranked: how many exchanges match, the page, and whether a word was capped."""
        forms = other_forms(terms)
        found = self.store.term_hits(agent_id, terms + forms, filters, self._cap)
        if found is None:
            raise UnknownAgent(agent_id)
        if forms:
            found = fold_forms(found, terms, self._cap)
        span = phrase.span(found.latest) if phrase is not None and found.latest is not None else None
        total, page = rank_page(found, offset, limit, span)
        return total, page, any(len(hits) >= self._cap for hits in found.hits.values())


class _CollectorPause:
    """Reading and ranking a question's matches makes tens of thousands of short-lived rows, tuples and
    floats, none in a reference cycle; while they live, Python's cycle collector runs over and over, now
    and then through every object of the process (on a 10k-message agent, about half of a common-word
    query's p95). The collector is process-wide and searches run in several threads at once: it is paused
    when the first search starts (unless it was already off) and resumed when the last one ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._searches = 0
        self._paused = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._searches == 0 and gc.isenabled():
                gc.disable()
                self._paused = True
            self._searches += 1
        try:
            yield
        finally:
            with self._lock:
                self._searches -= 1
                if self._searches == 0 and self._paused:
                    self._paused = False
                    gc.enable()


_no_cycle_collection = _CollectorPause()


def _ledger(shown: RecallDetails) -> dict[int, LedgerEntry]:
    return {entry.id: entry for entry in ledger_entries(shown.facts)}


def _hit(ranked: Ranked, shown: RecallDetails, ledger: dict[int, LedgerEntry]) -> RecallHit:
    title, started_at, ended_at = shown.exchanges[ranked.exchange_id]
    entry = ledger.get(ranked.exchange_id)
    snippets = tuple(
        Snippet(
            seq,
            shown.messages[seq].kind.value,
            redact(snippet(_searchable(shown.messages[seq]), ranked.terms)),
        )
        for seq in ranked.seqs[:SNIPPETS_PER_HIT]
        if seq in shown.messages
    )
    return RecallHit(
        exchange_id=ranked.exchange_id,
        score=ranked.score,
        started_at=started_at,
        ended_at=ended_at,
        title=redact(title),
        state=entry.state if entry else "unknown",
        matched=ranked.terms,
        snippets=snippets,
        item_id=entry.item_id if entry else None,
        version=entry.version if entry else None,
        reason=entry.reason if entry else None,
        detail=entry.detail if entry else None,
    )


def _searchable(message: StoredMessage) -> str:
    """The text a message is found by: its content, and a tool call's name and input."""
    parts = [message.content]
    if message.name:
        parts.append(message.name)
    if message.input is not None:
        parts.append(json.dumps(message.input, ensure_ascii=False, sort_keys=True))
    return " ".join(p for p in parts if p)
