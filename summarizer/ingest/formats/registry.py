"""Every input format, in the order `--format auto` tries them.

Adding a format is a module of this package exporting its `FORMAT` (a `LogFormat`, see base.py) and one
line in FORMATS below, at the place detection should try it: a format whose signature is loose (a few
common keys) comes after those it could be taken for. Everything else (`ingest --format`, detection,
`watch`, its default folders, the hooks) reads this list.
"""

from __future__ import annotations

from summarizer.ingest.formats import (
    aider,
    anthropic,
    canonical,
    claude_code,
    cline,
    codex,
    copilot,
    gemini_cli,
    mini_swe_agent,
    openai,
    opencode,
    openhands,
    openhands_v1,
    responses,
    sharegpt,
    swe_agent,
    tau_bench,
    vscode_chat,
)
from summarizer.ingest.formats.base import LogFormat

FORMATS: tuple[LogFormat, ...] = (
    codex.FORMAT,
    mini_swe_agent.FORMAT,  # info and messages: before opencode (info and messages too) and the chat formats
    opencode.FORMAT,
    swe_agent.FORMAT,
    gemini_cli.FORMAT,
    copilot.FORMAT,
    claude_code.FORMAT,  # any typed event with a session id: after the agents' logs with a stricter signature
    openhands.FORMAT,
    openhands_v1.FORMAT,  # kind and source: before canonical (kind and content)
    vscode_chat.FORMAT,  # requests and requesterUsername, or a log's first entry (kind 0): before canonical
    canonical.FORMAT,
    sharegpt.FORMAT,
    cline.FORMAT,  # chat messages with Cline's texts: before the chat formats
    responses.FORMAT,
    anthropic.FORMAT,
    tau_bench.FORMAT,  # task results holding chat messages: before openai
    openai.FORMAT,  # any chat message: last
    aider.FORMAT,
)

_SHOWN_FIRST = (
    canonical.FORMAT,
    openai.FORMAT,
    anthropic.FORMAT,
    responses.FORMAT,
    sharegpt.FORMAT,
    claude_code.FORMAT,
    codex.FORMAT,
    gemini_cli.FORMAT,
    swe_agent.FORMAT,
    openhands.FORMAT,
    opencode.FORMAT,
    cline.FORMAT,
    aider.FORMAT,
    copilot.FORMAT,
)
LISTED: tuple[LogFormat, ...] = (*_SHOWN_FIRST, *(f for f in FORMATS if f not in _SHOWN_FIRST))
"""The formats as users see them listed (`--format` choices, help, the agents' folders): the chat
formats, then the agents' logs; a format not in _SHOWN_FIRST comes after, in detection order."""

_BY_NAME = {name: f for f in FORMATS for name in (f.name, *f.aliases)}


class UnknownFormatName(KeyError):
    """No format has this name."""


def format_named(name: str) -> LogFormat:
    """The format `name` (a name or an alias) names."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownFormatName(name) from None


def names() -> tuple[str, ...]:
    """Every format's name, listed."""
    return tuple(f.name for f in LISTED)


def choices() -> tuple[str, ...]:
    """What `--format` takes besides `auto`: every name and alias, listed."""
    return tuple(n for f in LISTED for n in (f.name, *f.aliases))


def followed() -> tuple[LogFormat, ...]:
    """The logs `watch` follows line by line."""
    return tuple(f for f in LISTED if f.follow is not None)


def documents() -> tuple[LogFormat, ...]:
    """The logs `watch` reads whole when they change."""
    return tuple(f for f in LISTED if f.document)


def hooked() -> dict[str, str]:
    """`summarizer hook NAME` for each format with a hook: its command, as "module:attribute"."""
    return {f.name: f.hook for f in LISTED if f.hook is not None}
