"""`summarizer ingest | history | context | agent`: the conversation store from the shell, and what steers
an agent's summary (`agent instructions | now | show`)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from summarizer.cli.dash_ids import AgentIdCommand, AgentIdGroup
from summarizer.cli.params import AGENT_ID, FREE_TEXT, INT32_MAX, TOKENS, text_or_stdin
from summarizer.cli.runtime import open_runtime
from summarizer.ingest.formats.registry import choices, format_named
from summarizer.views import history_json, history_text, message_json

if TYPE_CHECKING:
    from summarizer.domain.agent_source import AgentSource
    from summarizer.ingest import ReadNotes
    from summarizer.settings import Settings

FORMATS = ("auto", *choices())
"""`--format`: auto, then every format's name (ingest/formats/registry.py)."""


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
    "--strict",
    is_flag=True,
    help="All or nothing: the first line or item that cannot be read stops the run and nothing is stored.",
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
    sources: tuple[str, ...], agent_id: str | None, fmt: str, strict: bool, strict_time: bool, sidechains: str
) -> None:
    """Record messages from FILES (JSON Lines or JSON; - for stdin).

    Every file is read before anything is stored. A line or item that cannot be read (not JSON, a type
    the reader does not know, a broken field) is skipped, and a tool result whose call is not in the file
    is kept as tool activity: each is named on stderr as FILE:LINE: what. A file from which nothing could
    be read is an error (the other files are still stored; exit status 2). With --strict the first such
    line stops the run with FILE:LINE: reason and exit status 2, and nothing is stored. An unterminated
    last line that is not JSON yet (a log still being written) is skipped and counted. A file with no
    message is named; a run that finds no message at all exits 1.
    """
    from summarizer.domain.agent_source import INGEST, recorded_by, recorded_from
    from summarizer.domain.errors import InvalidMessage
    from summarizer.ingest import ReadNotes, ReadOptions, Sidechains
    from summarizer.ingest.reader import read_records

    rt = open_runtime()
    options = ReadOptions(strict=strict, strict_time=strict_time, sidechains=Sidechains(sidechains))
    parsed = []
    files: dict[str, AgentSource] = {}
    clamped = 0
    failed = 0
    for source in sources:
        notes = ReadNotes()
        try:
            records = read_records(source, fmt, agent_id, rt.settings.max_message_bytes, options, notes)
        except InvalidMessage as exc:
            if strict or len(sources) == 1:
                raise InvalidMessage(exc.reason + _other_format(source, fmt), exc.where) from None
            click.echo(f"error: {exc}{_other_format(source, fmt)}; nothing stored from it", err=True)
            failed += 1
            continue
        if not records and notes.skipped:
            _report_unreadable(source, fmt, notes)
            failed += 1
            continue
        hint = "" if records else _other_format(source, fmt)
        _report_read(source, len(sources) > 1, notes, fmt, found=bool(records), hint=hint)
        clamped += notes.clamped_times
        parsed.extend(records)
        came_from = _file_source(source, notes.detected.partition(" ")[0] or fmt)
        files.update({r.agent_id: came_from for r in records if r.agent_id not in files})
    if not parsed:
        raise SystemExit(2 if failed else 1)
    with recorded_by(INGEST), recorded_from(files):
        report = rt.summarizer.record_many([(r.agent_id, r.message) for r in parsed])
    raised = f"; {clamped} timestamp(s) raised to the previous message's" if clamped else ""
    click.echo(
        f"stored {report.stored} message(s), skipped {report.skipped} already stored, "
        f"evicted {report.evicted_exchanges} exchange(s); agents: {len(report.agents)}; "
        f"summary updates queued for: {', '.join(report.queued_agents) or 'none'}{raised}"
    )
    if failed:
        raise SystemExit(2)


def _file_source(source: str, fmt: str) -> AgentSource:
    """An ingested file as its agents remember it: its absolute path (none for stdin) and format."""
    from summarizer.domain.agent_source import INGEST, AgentSource

    return AgentSource(INGEST, None if source == "-" else os.path.abspath(source), fmt)


def _report_unreadable(source: str, fmt: str, notes: ReadNotes) -> None:
    """A file every line or item of which was skipped: its first problem as the error."""
    first = notes.warnings[0].removesuffix("; skipped") if notes.warnings else source
    click.echo(
        f"{first}{_other_format(source, fmt)}; nothing could be read from {source} "
        f"({notes.skipped} line(s) or item(s) skipped, --strict stops at the first)",
        err=True,
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
    if notes.skipped:
        click.echo(f"{head}skipped {notes.skipped} line(s) or item(s) that could not be read", err=True)
    if notes.orphan_results:
        click.echo(
            f"{head}kept {notes.orphan_results} tool result(s) whose call is not in the input as tool activity",
            err=True,
        )
    for warning in notes.warnings:
        click.echo(f"warning: {warning}", err=True)
    if len(notes.warnings) < notes.skipped + notes.orphan_results:
        click.echo(f"warning: {source}: only the first {len(notes.warnings)} problems are named", err=True)
    if not found:
        read_as = fmt if fmt != "auto" else notes.detected.split(" ", 1)[0]
        if not hint and read_as:
            hint = format_named(read_as).nothing_found
        click.echo(f"error: no message found in {source}{hint}; nothing stored from it", err=True)


@click.command(cls=AgentIdCommand)
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


@click.command(cls=AgentIdCommand)
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


@click.group(cls=AgentIdGroup)
def agent() -> None:
    """Create agents, fork them, set their window budgets and summary instructions."""


@agent.command("create")
@click.argument("agent_id", type=AGENT_ID)
@click.option("--budget", type=TOKENS, help="Window budget in tokens (0: never evict).")
@click.option(
    "--parent",
    type=AGENT_ID,
    help="Fork from this agent: inherits its budget override, summary instructions and Now choice.",
)
def agent_create(agent_id: str, budget: int | None, parent: str | None) -> None:
    """Create AGENT_ID (a no-op when it exists)."""
    from summarizer.domain.agent_source import CLI, recorded_by

    rt = open_runtime()
    with recorded_by(CLI):
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


@agent.command("instructions")
@click.argument("agent_id", type=AGENT_ID)
@click.argument("text", required=False, type=FREE_TEXT)
@click.option("--clear", is_flag=True, help="Remove the agent's summary instructions.")
def agent_instructions(agent_id: str, text: str | None, clear: bool) -> None:
    """Add TEXT to what the model is asked when it summarizes AGENT_ID ('-' reads it from stdin)."""
    if clear == (text is not None):
        raise click.UsageError("give either TEXT or --clear")
    if text is not None:
        text = text_or_stdin(text, "the summary instructions")
    rt = open_runtime()
    rt.summarizer.set_instructions(agent_id, None if clear else text)
    click.echo(f"agent {agent_id} summary instructions {'cleared' if clear else 'set'}")
    notice = offline_notice(rt.settings)
    if notice and not clear:
        click.echo(f"note: {notice}", err=True)


@agent.command("now")
@click.argument("agent_id", type=AGENT_ID)
@click.argument("state", type=click.Choice(["on", "off", "default"]))
def agent_now(agent_id: str, state: str) -> None:
    """Turn AGENT_ID's "Now" pin (latest request, open todos) on, off, or back to SUMMARIZER_NOW_ITEM."""
    rt = open_runtime()
    rt.summarizer.steering.set_now_item(agent_id, None if state == "default" else state == "on")
    click.echo(f"agent {agent_id} Now pin: {state} (from its next update)")


@agent.command("show")
@click.argument("agent_id", type=AGENT_ID)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def agent_show(agent_id: str, as_json: bool) -> None:
    """What steers AGENT_ID's summary: its instructions, its "Now" pin, its pins."""
    rt = open_runtime()
    steering = rt.summarizer.agent_steering(agent_id)
    found = rt.summarizer.pins(agent_id)
    room = rt.summarizer.steering.room(agent_id)
    now = {None: f"default ({rt.settings.now_item})", True: "on", False: "off"}[steering.now_item]
    notice = offline_notice(rt.settings) if steering.instructions else None
    if as_json:
        doc = {
            "agent_id": agent_id,
            "instructions": steering.instructions,
            "instructions_notice": notice,
            "now_item": steering.now_item,
            "now_item_default": rt.settings.now_item,
            "pins": [p.name for p in found],
            "pins_room_tokens": room,
        }
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    click.echo(f"agent {agent_id}")
    click.echo(f"  summary instructions: {steering.instructions if steering.instructions else '(none)'}")
    if notice:
        click.echo(f"  note: {notice}")
    click.echo(f"  Now pin: {now}")
    names = ", ".join(p.name for p in found) or "(none)"
    click.echo(f"  pins: {names} ({room:,} token(s) left for pins)")


def offline_notice(settings: Settings) -> str | None:
    """What an operator must know about instructions and the offline summarizer, or None."""
    from summarizer.composition.llm import chosen_llm
    from summarizer.settings import LLMChoice

    if chosen_llm(settings) is LLMChoice.OFFLINE:
        return (
            "the offline summarizer (SUMMARIZER_LLM unset without ANTHROPIC_API_KEY, or offline) does not "
            "follow summary instructions; a model does"
        )
    if settings.llm_fallback is LLMChoice.OFFLINE:
        return "updates the offline fallback folds do not follow summary instructions"
    return None
