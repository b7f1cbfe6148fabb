"""The manifest of real agent logs (manifest.toml beside this file): what each file holds, read once."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.corpus.counts import KINDS
from tests.support.corpora import corpus_path

MANIFEST = Path(__file__).with_name("manifest.toml")
FOLDERS = ("agent-logs-1", "agent-logs-2", "agent-logs-3", "project-fixtures")
"""The corpora folders of agent logs (locomo holds conversations between people, not agent logs)."""
NOT_LOGS = frozenset({"README.md", "SOURCES.md"})


@dataclass(frozen=True)
class Entry:
    path: str
    layout: str
    format: str
    counts: dict[str, int]
    oddities: str
    agent: str | None = None
    known_gap: str | None = None
    watch_gap: str | None = None
    """Where `watch` alone is wrong today."""

    @property
    def file(self) -> Path:
        return corpus_path(self.path)

    @property
    def nothing(self) -> bool:
        """The file holds no message of the four kinds counted."""
        return not any(self.counts.values())


def _entry(raw: dict[str, Any]) -> Entry:
    return Entry(
        path=raw["path"],
        layout=raw["layout"],
        format=raw["format"],
        counts={kind: int(raw[kind]) for kind in KINDS},
        oddities=raw["oddities"],
        agent=raw.get("agent"),
        known_gap=raw.get("known_gap"),
        watch_gap=raw.get("watch_gap"),
    )


@cache
def entries() -> tuple[Entry, ...]:
    with MANIFEST.open("rb") as stream:
        return tuple(_entry(raw) for raw in tomllib.load(stream)["file"])


def params(entries_: tuple[Entry, ...] | list[Entry], *, watching: bool = False) -> list[Any]:
    """One parameter per file, an expected failure (strict) where the manifest names a known gap (of
    `watch` too, when `watching`)."""
    cases = []
    for e in entries_:
        gap = e.known_gap or (e.watch_gap if watching else None)
        marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
        cases.append(pytest.param(e, id=e.path, marks=marks))
    return cases


def logs_in_corpora(root: Path) -> set[str]:
    """Every agent-log file under the corpora folders, as a manifest path."""
    return {
        str(p.relative_to(root))
        for folder in FOLDERS
        for p in (root / folder).rglob("*")
        if p.is_file() and p.name not in NOT_LOGS
    }
