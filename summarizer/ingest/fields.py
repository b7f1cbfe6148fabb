"""Field checks shared by every input format: types, NUL bytes and the optional per-message extras.

The extras (`agent`, `created_at`, `id`, `tokens`) mean the same in every format, so a host can add them to
OpenAI or Anthropic messages and get exactly the canonical rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from summarizer.ingest.problems import Problem, json_type

EXTRA_KEYS: tuple[str, ...] = ("agent", "created_at", "id", "tokens")
MAX_TOKENS = 2**31 - 1  # the tokens column is a 32-bit integer on every database


@dataclass(frozen=True, slots=True)
class Extras:
    """The per-message fields that are about bookkeeping rather than conversation."""

    agent_id: str
    created_at: datetime | None
    host_id: str | None
    tokens: int | None


def read_extras(obj: Mapping[str, Any], default_agent: str | None) -> Extras:
    return Extras(
        agent_id=read_agent(obj, default_agent),
        created_at=read_created_at(obj["created_at"]) if "created_at" in obj else None,
        host_id=read_host_id(obj["id"]) if "id" in obj else None,
        tokens=read_tokens(obj["tokens"]) if "tokens" in obj else None,
    )


def read_agent(obj: Mapping[str, Any], default_agent: str | None) -> str:
    if "agent" not in obj:
        if default_agent is None:
            raise Problem("no agent: give 'agent' on the message or --agent")
        return default_agent
    value = obj["agent"]
    if not isinstance(value, str):
        raise Problem(f"agent must be a string, got {json_type(value)}")
    if not value.strip():
        raise Problem("agent must not be empty")
    return value


def read_created_at(value: object) -> datetime:
    if not isinstance(value, str):
        raise Problem(f"created_at must be a string, got {json_type(value)}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise Problem(f"created_at {value!r} is not an ISO-8601 timestamp") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise Problem(f"created_at {value!r} has no time zone")
    try:
        parsed.astimezone(UTC)
    except OverflowError:
        raise Problem(f"created_at {value!r} is outside the supported range once moved to UTC") from None
    return parsed


def epoch_time(stamp: float, field: str, *, millis: bool = False) -> datetime:
    """`stamp`, seconds since the epoch (milliseconds with `millis`), as a UTC time; a Problem naming `field`
    when it is out of range."""
    try:
        return datetime.fromtimestamp(stamp / 1000 if millis else stamp, UTC)
    except (OverflowError, OSError, ValueError):
        raise Problem(f"{field} {stamp!r} is out of range") from None


def optional_epoch_millis(value: object, field: str, expected: str) -> datetime | None:
    """`value` (the message's `field`), milliseconds since the epoch, as a UTC time; None when it is null,
    a Problem saying it must be `expected` when it is no number."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Problem(f"{field} must be {expected}, got {json_type(value)}")
    return epoch_time(value, field, millis=True)


def read_host_id(value: object) -> str:
    if isinstance(value, str):
        if not value:
            raise Problem("id must not be empty")
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise Problem(f"id must be a string or an integer, got {json_type(value)}")


def read_tokens(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        detail = f" {value!r}" if isinstance(value, float) else ""
        raise Problem(f"tokens must be an integer, got {json_type(value)}{detail}")
    if value < 0:
        raise Problem(f"tokens must be >= 0, got {value}")
    if value > MAX_TOKENS:
        raise Problem(f"tokens must be <= {MAX_TOKENS}, got {value}")
    return value


def required_str(obj: Mapping[str, Any], key: str, *, allow_empty: bool = True, path: str = "") -> str:
    """`obj[key]` as a string; `path` prefixes the key in reasons for values nested inside a message."""
    label = f"{path}{key}"
    if key not in obj:
        raise Problem(f"missing '{label}'")
    value = obj[key]
    if not isinstance(value, str):
        raise Problem(f"{label} must be a string, got {json_type(value)}")
    if not allow_empty and not value:
        raise Problem(f"{label} must not be empty")
    return value


def required_role(obj: Mapping[str, Any], roles: tuple[str, ...]) -> str:
    """`obj["role"]`, one of `roles`."""
    role = required_str(obj, "role")
    if role not in roles:
        raise Problem(f"unknown role {role!r} (expected one of: {', '.join(roles)})")
    return role


def optional_str(obj: Mapping[str, Any], key: str, *, path: str = "") -> str:
    """`obj[key]` as a string, "" when it is missing or null."""
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Problem(f"{path}{key} must be a string, got {json_type(value)}")
    return value


def required_list(obj: Mapping[str, Any], key: str, what: str) -> list[Any]:
    """`obj[key]`, an array (`what` says of what, in reasons)."""
    value = obj.get(key)
    if not isinstance(value, list):
        detail = "missing" if value is None else f"a {json_type(value)}"
        raise Problem(f"'{key}' must be {what}, but it is {detail}")
    return value


def optional_bool(obj: Mapping[str, Any], key: str, *, path: str = "") -> bool | None:
    if key not in obj:
        return None
    value = obj[key]
    if not isinstance(value, bool):
        raise Problem(f"{path}{key} must be true or false, got {json_type(value)}")
    return value


def object_entries(values: list[Any], field: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Each entry of the array `values` with its index, an object; a Problem naming `field[index]` at the
    first entry that is not."""
    for index, value in enumerate(values):
        if not isinstance(value, Mapping):
            raise Problem(f"{field}[{index}] must be an object, got {json_type(value)}")
        yield index, value


def expect_object(value: object, label: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise Problem(f"{label} must be a JSON object, got {json_type(value)}")
    return value


def _text_problem(text: str) -> str | None:
    """What makes `text` unstorable: a NUL byte, or a lone surrogate (`"\\ud800"`), which is no character
    and cannot be encoded as UTF-8."""
    if "\x00" in text:
        return "NUL byte"
    if _SURROGATE.search(text):
        return "unpaired surrogate escape"
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


def reject_nul(value: object, path: str = "") -> None:
    """Problem naming the first string (value or key) that holds a NUL byte or a lone surrogate, anywhere
    in `value`. Every string is checked at once first; only a value that holds a problem is walked again
    to name where (the walk that builds paths cost more than the rest of parsing a message)."""
    if _text_problem("\x01".join(_strings(value))) is not None:
        _locate_problem(value, path)


def _strings(value: object) -> list[str]:
    """Every string in `value`: values and keys, in no particular order."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            found.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _locate_problem(value: object, path: str) -> None:
    stack: list[tuple[object, str]] = [(value, path)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            problem = _text_problem(item)
            if problem:
                raise Problem(f"{problem} in {path or 'the value'}")
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                problem = _text_problem(key)
                if problem:
                    raise Problem(f"{problem} in a key of {path or 'the message'}")
                stack.append((child, f"{path}.{key}" if path else key))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{index}]") for index, child in reversed(list(enumerate(item))))


def joined_parts(
    content: object, text_parts: Mapping[str, str], placeholders: Mapping[str, str], field: str = "content"
) -> str:
    """A message's `content` (or another `field`) as one string: a string as it is, an array of content
    parts joined with newlines. A part whose type is in `text_parts` gives the string under the key it
    names; one whose type is in `placeholders` stands in as that placeholder; any other type is a Problem."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise Problem(f"{field} must be a string or an array of content parts, got {json_type(content)}")
    return "\n".join(
        _part_text(part, f"{field}[{index}]", text_parts, placeholders) for index, part in enumerate(content)
    )


def _part_text(
    value: object, label: str, text_parts: Mapping[str, str], placeholders: Mapping[str, str]
) -> str:
    part = expect_object(value, label)
    kind = required_str(part, "type", path=f"{label}.")
    if kind in text_parts:
        return required_str(part, text_parts[kind], path=f"{label}.")
    if kind in placeholders:
        return placeholders[kind]
    allowed = [*text_parts, *placeholders]
    raise Problem(f"{label}.type {kind!r} is not supported here (expected one of: {', '.join(allowed)})")
