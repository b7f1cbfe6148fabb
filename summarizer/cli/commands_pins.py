"""`summarizer pin | unpin | pins`: text kept word for word at the head of an agent's summary."""

from __future__ import annotations

import json
import os

import click

from summarizer.cli.dash_ids import AgentIdCommand
from summarizer.cli.params import AGENT_ID, FREE_TEXT, text_or_stdin
from summarizer.cli.runtime import open_runtime
from summarizer.views import pins_document, pins_text


def cli_actor() -> str:
    """Who a command's change is recorded as: the shell's user."""
    return f"cli:{os.environ.get('USER') or os.environ.get('USERNAME') or 'unknown'}"


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
@click.argument("text", type=FREE_TEXT)
@click.option(
    "--name", help="The pin's name (default: the next free pin-N); an existing pin of that name is replaced."
)
def pin(agent_id: str, text: str, name: str | None) -> None:
    """Keep TEXT word for word at the head of AGENT_ID's summary ('-' reads it from stdin)."""
    text = text_or_stdin(text, "the pin text")
    rt = open_runtime()
    made = rt.summarizer.pin(agent_id, text, name=name, by=cli_actor())
    room = rt.summarizer.steering.room(agent_id)
    click.echo(f"pinned {made.name!r} for agent {agent_id} ({room:,} token(s) left for pins)")


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
@click.argument("name")
def unpin(agent_id: str, name: str) -> None:
    """Remove the pin NAME from AGENT_ID's summary (a new summary version)."""
    rt = open_runtime()
    gone = rt.summarizer.unpin(agent_id, name, by=cli_actor())
    click.echo(f"unpinned {gone.name!r} from agent {agent_id}")


@click.command(cls=AgentIdCommand)
@click.argument("agent_id", type=AGENT_ID)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def pins(agent_id: str, as_json: bool) -> None:
    """List AGENT_ID's pins, the "Now" pin first, with their text as it is kept."""
    rt = open_runtime()
    steering = rt.summarizer.steering
    if as_json:
        click.echo(json.dumps(pins_document(steering, agent_id), indent=2, ensure_ascii=False))
        return
    click.echo(pins_text(steering.pins(agent_id), steering.room(agent_id)))
