"""Command-line values checked before anything reaches the database: agent ids by the one rule every
front end applies, and integers within the range of the columns they are stored in or compared with."""

from __future__ import annotations

import sys
from typing import Any

import click

from summarizer.domain.agent_ids import agent_id_problem
from summarizer.domain.limits import BIGINT_MAX, INT32_MAX


class AgentIdType(click.ParamType):  # type: ignore[type-arg]  # generic in click 8.2+, not 8.1
    name = "agent"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        problem = agent_id_problem(value)
        if problem is not None:
            self.fail(problem, param, ctx)
        return str(value)


class FreeTextType(click.ParamType):  # type: ignore[type-arg]  # generic in click 8.2+, not 8.1
    """Words a person types (a pin, a question, instructions): a value that starts with a dash and reads
    as words ("- keep the API stable", "-5 degrees") is taken as the text, not as options."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        return str(value)


def reads_as_text(token: str) -> bool:
    """Whether a token that starts with `-` is words rather than an option: it holds a space, or no letter
    follows the dash (`-5`, `->`, `- item`)."""
    return any(c.isspace() for c in token) or (not token[1:2].isalpha() and token[1:2] != "-")


def text_or_stdin(text: str, what: str) -> str:
    """`text`, or for '-' what stdin holds, which must be UTF-8: one line naming the first bad byte."""
    if text != "-":
        return text
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.ClickException(
            f"{what} on stdin is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


__all__ = [
    "AGENT_ID",
    "BIGINT_MAX",
    "COUNT",
    "FREE_TEXT",
    "INT32_MAX",
    "ROW_ID",
    "TOKENS",
    "VERSION",
    "reads_as_text",
    "text_or_stdin",
]

AGENT_ID = AgentIdType()
FREE_TEXT = FreeTextType()
VERSION = click.IntRange(1, INT32_MAX)
COUNT = click.IntRange(1, INT32_MAX)
TOKENS = click.IntRange(0, INT32_MAX)
ROW_ID = click.IntRange(1, BIGINT_MAX)
