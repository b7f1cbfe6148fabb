"""Agent ids typed as they are shown, even when they start with a dash.

Claude Code names a project's agent after its folder (`/home/me/app` -> `-home-me-app`), so
`summarizer context -home-me-app` must read the id, not options `-h`, `-o`, ... Click alone reads any
token starting with `-` as options. `AgentIdCommand` looks at the command line first: a token that is
none of the command's options, standing where an AGENT argument is expected, is passed to click as that
argument (after `--`, with the options before it). The same holds for a free-text argument (a pin, a
question, instructions) whose dash token reads as words (`"- keep the API stable"`, `-5`). Known options,
their values, `--` and a lone `-` (stdin) keep their meaning, and an unknown option anywhere else is still
refused by click as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from summarizer.cli.params import AgentIdType, FreeTextType, reads_as_text

__all__ = ["AgentIdCommand", "AgentIdGroup", "agent_arguments", "dash_ids_as_arguments"]


def _values_taken(option: click.Option) -> int:
    """How many following tokens an option consumes as its value."""
    if option.is_flag or option.count:
        return 0
    return max(option.nargs, 1)


def _known_option(token: str, options: dict[str, click.Option]) -> tuple[bool, int]:
    """Whether `token` is one of the options (as click would read it), and how many following tokens
    it consumes as values."""
    if token.startswith("--"):
        name, equals, _ = token.partition("=")
        option = options.get(name)
        if option is None:
            return False, 0
        return True, 0 if equals else _values_taken(option)
    option = options.get(token)
    if option is not None:
        return True, _values_taken(option)
    # A cluster of short options (`-vq`) or a short option with its value attached (`-n5`).
    for position, char in enumerate(token[1:], start=1):
        option = options.get(f"-{char}")
        if option is None:
            return False, 0
        if _values_taken(option):
            return True, 0 if position < len(token) - 1 else _values_taken(option)
    return True, 0


def agent_arguments(command: click.Command) -> list[click.Argument]:
    """The command's positional arguments that take an agent id."""
    return [p for p in command.params if isinstance(p, click.Argument) and isinstance(p.type, AgentIdType)]


def dash_ids_as_arguments(command: click.Command, ctx: click.Context, args: Sequence[str]) -> list[str]:
    """`args` with every unknown dash token standing at an AGENT argument's place given to click as
    that argument; unchanged when there is none."""
    params = command.get_params(ctx)
    options = {
        name: p for p in params if isinstance(p, click.Option) for name in (*p.opts, *p.secondary_opts)
    }
    positions = [p for p in params if isinstance(p, click.Argument)]
    before: list[str] = []
    positional: list[str] = []
    moved = False
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if token == "--":
            positional.extend(args[index:])
            break
        if not token.startswith("-") or token == "-":
            positional.append(token)
            continue
        known, values = _known_option(token, options)
        if known:
            before.extend([token, *args[index : index + values]])
            index += values
            continue
        place = len(positional)
        kind = positions[place].type if place < len(positions) else None
        if isinstance(kind, AgentIdType) or (isinstance(kind, FreeTextType) and reads_as_text(token)):
            positional.append(token)
            moved = True
            continue
        before.append(token)  # click names the unknown option
    if not moved:
        return list(args)
    return [*before, "--", *positional]


class AgentIdCommand(click.Command):
    """A command whose AGENT arguments accept ids starting with `-` as typed."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, dash_ids_as_arguments(self, ctx, args))


class AgentIdGroup(click.Group):
    """A group whose subcommands are `AgentIdCommand`s."""

    command_class = AgentIdCommand
