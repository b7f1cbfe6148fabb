"""The parser a followed read feeds a log's objects to: its format's (`LogFormat.follow`), able to say
what it holds back (a checkpoint is only where nothing is) and to save and resume its state with the
position."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.formats.base import LineParser
from summarizer.ingest.formats.registry import format_named

__all__ = ["LineParser", "line_parser"]


def line_parser(fmt: str, agent: str | None, kept: Mapping[str, Any]) -> LineParser:
    """The parser of a followed log of format `fmt`, resumed from the state `kept` with its position."""
    follow = format_named(fmt).follow
    if follow is None:
        raise ValueError(f"{fmt} is not a log format that can be followed line by line")
    return follow(agent, kept)
