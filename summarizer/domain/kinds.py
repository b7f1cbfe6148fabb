"""Message kinds: which ones an LLM sees and which ones are bookkeeping."""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    TOOL = "tool"
    CLEAR = "clear"
    MARK = "mark"
    REWIND = "rewind"
    AGENT_KILLED = "agent_killed"
    COMMAND = "command"
    FORK = "fork"


CONVERSATION_KINDS: frozenset[Kind] = frozenset(
    {Kind.SYSTEM, Kind.USER, Kind.ASSISTANT, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.TOOL}
)
METADATA_KINDS: frozenset[Kind] = frozenset(Kind) - CONVERSATION_KINDS

KIND_NAMES: tuple[str, ...] = tuple(k.value for k in Kind)


def is_conversation(kind: Kind) -> bool:
    """True for kinds that are sent to an LLM; metadata kinds are stored but never sent."""
    return kind in CONVERSATION_KINDS


def parse_kind(value: str) -> Kind:
    """The Kind named by `value`; ValueError naming the allowed kinds otherwise."""
    try:
        return Kind(value)
    except ValueError:
        raise ValueError(f"unknown kind {value!r} (expected one of: {', '.join(KIND_NAMES)})") from None
