"""What a followed log's parser says of the line or item types its reader does not know."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.unknown_types import MAX_UNKNOWN_TYPES, type_name


class UnknownNamed:
    """The unknown types of a followed file, named once per file as Claude Code's are: each type's first
    line and how many of it a read skipped; the types named in earlier reads of the file are kept with its
    position (under `key`) and not named again."""

    def __init__(self, kept: Mapping[str, Any], noun: str, key: str = "unknown_types") -> None:
        named = kept.get(key)
        self._named = [t for t in named if isinstance(t, str)] if isinstance(named, list) else []
        self._noun = noun

    def report(self, counts: Mapping[str, int], first: Mapping[str, str]) -> tuple[int, list[str]]:
        said = [
            f"{where}: {counts[kind]} {self._noun} of unknown type {type_name(kind)!r} skipped"
            for kind, where in first.items()
            if type_name(kind) not in self._named
        ]
        return sum(counts.values()), said

    def state(self, counts: Mapping[str, int]) -> list[str]:
        met = [type_name(kind) for kind in counts]
        return [*self._named, *(t for t in dict.fromkeys(met) if t not in self._named)][:MAX_UNKNOWN_TYPES]
