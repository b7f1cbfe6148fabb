"""`summarizer ingest | history | context | agent`: the conversation store from the shell."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from summarizer.cli.params import AGENT_ID, INT32_MAX, TOKENS
from summarizer.cli.runtime import open_runtime
from summarizer.views import history_json, history_text, message_json

if TYPE_CHECKING:
    from summarizer.ingest import ReadNotes

FORMATS = (
    "auto",
    "canonical",
    "openai",
    "anthropic",
    "responses",
    "sharegpt",
    "claude-code",
    "codex",
    "gemini-cli",
    "swe-agent",
    "openhands",
    "opencode",
    "cline",
)


@click.command()
@click.argument("sources", nargs=-1, required=True, type=click.Path(allow_dash=True, dir_okay=False))
@click.option("--agent", "agent_id", type=AGENT_ID, help="Agent id for lines that name none.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="auto",
    show_default=True,
    help="auto: detected from each file's content (the report says which).",
)
@click.option(
    "--strict-time",
    is_flag=True,
    help="Refuse a timestamp older than the one before it (default: raise it to that one and count it).",
)
@click.option(
    "--sidechains",
    type=click.Choice(["skip", "agent"]),
    default="skip",
    show_default=True,
    help="claude-code: leave sub-agent events out, or keep them as agent AGENT/sidechain-ID.",
)
def ingest(
    sources: tuple[str, ...], agent_id: str | None, fmt: str, strict_time: bool, sidechains: str
) -> None:
    """Record messages from FILES (JSON Lines or JSON; - for stdin), all or nothing.

    Every file is read before anything is stored: the first bad line stops the run with FILE:LINE: reason
    and exit status 2, and nothing is stored. An unterminated last line that is not JSON yet (a log still
    being written) is skipped and counted. A file with no message is named; a run that finds no message
    at all exits 1.
    """
    from summarizer.domain.errors import InvalidMessage
    from summarizer.ingest import ReadNotes, ReadOptions, Sidechains
    from summarizer.ingest.reader import read_records

    rt = open_runtime()
    options = ReadOptions(strict_time=strict_time, sidechains=Sidechains(sidechains))
    parsed = []
    clamped = 0
    for source in sources:
        notes = ReadNotes()
        try:
            records = read_records(source, fmt, agent_id, rt.settings.max_message_bytes, options, notes)
        except InvalidMessage as exc:
            raise InvalidMessage(exc.reason + _other_format(source, fmt), exc.where) from None
        hint = "" if records else _other_format(source, fmt)
        _report_read(source, len(sources) > 1, notes, fmt, found=bool(records), hint=hint)
        clamped += notes.clamped_times
        parsed.extend(records)
    if not parsed:
        raise SystemExit(1)
    report = rt.summarizer.record_many([(r.agent_id, r.message) for r in parsed])
    raised = f"; {clamped} timestamp(s) raised to the previous message's" if clamped else ""
    click.echo(
        f"stored {report.stored} message(s), skipped {report.skipped} already stored, "
        f"evicted {report.evicted_exchanges} exchange(s); agents: {len(report.agents)}; "
        f"summary updates queued for: {', '.join(report.queued_agents) or 'none'}{raised}"
    )


def _other_format(source: str, fmt: str) -> str:
    """When an explicit --format found nothing or failed: the format the file's content looks like, if
    another one (stdin cannot be read again)."""
    if fmt == "auto" or source == "-":
        return ""
    from summarizer.ingest.detect import HEAD_BYTES, UndetectedFormat, detect

    try:
        with open(source, "rb") as stream:
            found = detect(stream.read(HEAD_BYTES), source)
    except (OSError, UndetectedFormat):
        return ""
    if found.format == fmt:
        return ""
    return f"; the file looks like {found.format} ({found.reason}): pass --format {found.format} or leave --format out"


def _report_read(
    source: str, several: bool, notes: ReadNotes, fmt: str, *, found: bool, hint: str = ""
) -> None:
    """What reading one file found beyond its messages (prefixed with the file's name when there are several)."""
    head = f"{source}: " if several else ""
    if notes.detected:
        click.echo(f"{head}format: {notes.detected}")
    if notes.partial_lines:
        click.echo(
            f"{head}skipped an unterminated last line that is not JSON yet (a log still being written)"
        )
    if notes.sidechains_skipped:
        click.echo(
            f"{head}skipped {notes.sidechains_skipped} sub-agent (sidechain) event(s); --sidechains agent keeps them"
        )
    if notes.unpaired_calls:
        click.echo(f"{head}{notes.unpaired_calls} tool call(s) got no result in the input")
    if not found:
        if not hint and (fmt == "claude-code" or notes.detected.startswith("claude-code")):
            hint = " (sub-agent events are skipped: --sidechains agent keeps them)"
        click.echo(f"error: no message found in {source}{hint}; nothing stored from it", err=True)


@click.command()
@click.argument("agent_id", type=AGENT_ID)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def history(agent_id: str, as_json: bool) -> None:
    """The sliding-window view: evicted exchanges, then the ones the LLM sees; where each evicted exchange
    went (with --json: each exchange's `provenance`, as `summarizer provenance --json` gives it)."""
    from summarizer.cli.commands_provenance import ledger_lines

    rt = open_runtime()
    view = rt.summarizer.history(agent_id)
    if as_json:
        click.echo(json.dumps(history_json(view, rt.provenance().ledger(agent_id)), indent=2))
    else:
        click.echo(history_text(view, datetime.now(UTC)))
        went = ledger_lines(rt.provenance().ledger(agent_id))
        if went:
            click.echo("\nWhere the evicted exchanges went:")
            click.echo("\n".join(went))


@click.command()
@click.argument("agent_id", type=AGENT_ID)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def context(agent_id: str, as_json: bool) -> None:
    """What a host sends to its LLM: the summary, then the preamble and in-window messages."""
    rt = open_runtime()
    ctx = rt.summarizer.get_context(agent_id)
    if as_json:
        payload = {
            "agent_id": ctx.agent_id,
            "summary": ctx.summary,
            "summary_version": ctx.summary_version,
            "messages": [message_json(m) for m in ctx.messages],
        }
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    click.echo(ctx.summary)
    click.echo("")
    for m in ctx.messages:
        detail = f" {m.name}({json.dumps(m.input, ensure_ascii=False)})" if m.name else ""
        click.echo(f"[{m.kind.value}]{detail} {m.content}")


@click.group()
def agent() -> None:
    """Create agents, fork them, set their window budgets."""


@agent.command("create")
@click.argument("agent_id", type=AGENT_ID)
@click.option("--budget", type=TOKENS, help="Window budget in tokens (0: never evict).")
@click.option("--parent", type=AGENT_ID, help="Fork from this agent: inherits its budget override.")
def agent_create(agent_id: str, budget: int | None, parent: str | None) -> None:
    """Create AGENT_ID (a no-op when it exists)."""
    rt = open_runtime()
    rt.summarizer.create_agent(agent_id, budget=budget, parent=parent)
    click.echo(f"agent {agent_id} ready")


@agent.command("budget")
@click.argument("agent_id", type=AGENT_ID)
@click.argument("tokens")
def agent_budget(agent_id: str, tokens: str) -> None:
    """Set AGENT_ID's window budget to TOKENS, or 'default' to follow SUMMARIZER_WINDOW_TOKENS."""
    if tokens == "default":
        budget = None
    elif tokens.isdigit() and int(tokens) <= INT32_MAX:
        budget = int(tokens)
    else:
        raise click.BadParameter(
            f"expected a whole number of tokens or 'default' (at most {INT32_MAX:,}), got {tokens!r}"
        )
    rt = open_runtime()
    rt.summarizer.set_budget(agent_id, budget)
    click.echo(f"agent {agent_id} budget: {tokens}")
