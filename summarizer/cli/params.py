"""Command-line values checked before anything reaches the database: agent ids by the one rule every
front end applies, and integers within the range of the columns they are stored in or compared with."""

from __future__ import annotations

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


__all__ = ["AGENT_ID", "BIGINT_MAX", "COUNT", "INT32_MAX", "ROW_ID", "TOKENS", "VERSION"]

AGENT_ID = AgentIdType()
VERSION = click.IntRange(1, INT32_MAX)
COUNT = click.IntRange(1, INT32_MAX)
TOKENS = click.IntRange(0, INT32_MAX)
ROW_ID = click.IntRange(1, BIGINT_MAX)
