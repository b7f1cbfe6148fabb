"""Credentials in the logs the coding agents' hooks record, on both databases: a Claude Code transcript
(recorded on Stop), a Codex rollout (recorded by `notify`) and a Gemini CLI session (recorded on AfterAgent),
each with the planted set of tests/integration/test_credentials_masked.py in user text, tool input and tool
output, are summarized by `summarizer drain` (offline, and through the fake Anthropic API whose model copies
its prompt); no raw credential is in a SessionStart answer, a summary or the database, and the masked form
is."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from summarizer.service.follow import project_agent_id
from summarizer.storage.backends import connect_database
from summarizer.testing.fake_messages_api import FakeMessagesAPI
from tests.acceptance.cli import run_cli
from tests.e2e.test_credentials_every_edge import database_env  # noqa: F401  (a fixture)
from tests.integration.test_credentials_masked import PLANTED, SECRETS, _database_text, copying_model
from tests.support.planted_transcripts import claude_code_transcript, codex_rollout, gemini_cli_session

pytestmark = pytest.mark.slow

CLAUDE_PROJECT = "-home-me-claude-app"
CODEX_CWD = "/home/me/codex-app"
GEMINI_CWD = "/home/me/gemini-app"
THREAD = "019d3a5e-7c21-7b40-9e3f-5a1b2c3d4e5f"
PLANTED_TEXTS = [planted for planted, _ in PLANTED]


@pytest.fixture(params=["offline", "anthropic"])
def env(request: pytest.FixtureRequest, database_env: dict[str, str]) -> Iterator[dict[str, str]]:  # noqa: F811
    common = database_env | {"SUMMARIZER_WINDOW_TOKENS": "400", "SUMMARIZER_BATCH_SIZE": "1"}
    if request.param == "offline":
        yield common | {"SUMMARIZER_LLM": "offline"}
        return
    with FakeMessagesAPI(messages_default=copying_model) as fake:
        yield common | {
            "SUMMARIZER_LLM": "anthropic",
            "SUMMARIZER_ANTHROPIC_API_KEY": "test-key-for-the-fake",
            "SUMMARIZER_ANTHROPIC_BASE_URL": fake.base_url,
            "SUMMARIZER_LLM_MAX_RETRIES": "0",
        }
        prompts = "\n".join(json.dumps(r.body) for r in fake.requests_to("/v1/messages"))
        assert prompts, "the provider fake was asked"
        assert [s for s in SECRETS if s in prompts] == []


def _cli(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    done = run_cli(*args, env=env, stdin=stdin)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert [s for s in SECRETS if s in done.stderr] == [], f"{args}: a credential in what it logged"
    assert "Traceback" not in done.stderr
    return done.stdout


def _record_through_the_hooks(env: dict[str, str], home: Path) -> dict[str, str]:
    """Each agent's log written where it keeps it and recorded by its hook; the agent ids they name."""
    claude = home / ".claude" / "projects" / CLAUDE_PROJECT / "a1b2.jsonl"
    codex = (
        home / ".codex" / "sessions" / "2026" / "11" / "02" / f"rollout-2026-11-02T09-00-00-{THREAD}.jsonl"
    )
    gemini = home / ".gemini" / "tmp" / "7e1f0c" / "chats" / "session-2026-11-02T09-00-c0ffee01.json"
    for path in (claude, codex, gemini):
        path.parent.mkdir(parents=True)
    claude.write_text(claude_code_transcript(PLANTED_TEXTS, "a1b2"), encoding="utf-8")
    codex.write_text(codex_rollout(PLANTED_TEXTS, THREAD, CODEX_CWD), encoding="utf-8")
    gemini.write_text(gemini_cli_session(PLANTED_TEXTS, "c0ffee01", "7e1f0c"), encoding="utf-8")

    stop = {"session_id": "a1b2", "transcript_path": str(claude), "cwd": "/home/me/claude-app"}
    assert _cli(env, "hook", "claude-code", stdin=json.dumps(stop | {"hook_event_name": "Stop"})) == ""
    notify = {"type": "agent-turn-complete", "thread-id": THREAD, "turn-id": "1", "cwd": CODEX_CWD}
    assert _cli(env, "hook", "codex", json.dumps(notify)) == ""
    after = {"session_id": "c0ffee01", "transcript_path": str(gemini), "cwd": GEMINI_CWD}
    assert _cli(env, "hook", "gemini-cli", stdin=json.dumps(after | {"hook_event_name": "AfterAgent"})) == ""
    return {
        "claude-code": project_agent_id(CLAUDE_PROJECT),
        "codex": project_agent_id(Path(CODEX_CWD).name),
        "gemini-cli": project_agent_id("".join(c if c.isalnum() else "-" for c in GEMINI_CWD)),
    }


def _session_start(env: dict[str, str], home: Path, hook: str) -> str:
    """The additionalContext a new session of the same project is started with."""
    transcript = {
        "claude-code": home / ".claude" / "projects" / CLAUDE_PROJECT / "new-session.jsonl",
        "gemini-cli": home
        / ".gemini"
        / "tmp"
        / "7e1f0c"
        / "chats"
        / "session-2026-11-03T08-00-0d15ea5e.json",
    }[hook]
    cwd = "/home/me/claude-app" if hook == "claude-code" else GEMINI_CWD
    event = {"session_id": "new", "transcript_path": str(transcript), "cwd": cwd}
    out = _cli(
        env, "hook", hook, stdin=json.dumps(event | {"hook_event_name": "SessionStart", "source": "startup"})
    )
    answer = json.loads(out)["hookSpecificOutput"]
    assert "Memory of earlier work" in answer["additionalContext"], out
    return f"{out}\n{answer['additionalContext']}"


def test_no_planted_credential_recorded_by_a_hook_is_readable(env: dict[str, str], tmp_path: Path) -> None:
    home = tmp_path / "home"
    agents = _record_through_the_hooks(env, home)
    _cli(env, "drain")
    surfaces: dict[str, str] = {}
    for hook, agent in agents.items():
        history = json.loads(_cli(env, "history", "--json", "--", agent))
        assert len(history["exchanges"]) == len(PLANTED), f"{hook}: every planted exchange was recorded"
        summary = json.loads(_cli(env, "summary", "--json", "--", agent))
        assert summary["version"] is not None, f"{hook}: the evicted exchanges were summarized"
        surfaces[f"{hook} summary"] = summary["markdown"]
        surfaces[f"{hook} context"] = _cli(env, "context", "--", agent)
    for hook in ("claude-code", "gemini-cli"):
        surfaces[f"{hook} SessionStart"] = _session_start(env, home, hook)
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        surfaces["database"] = _database_text(db)
    finally:
        db.dispose()

    leaks = [f"{where}: {secret}" for where, text in surfaces.items() for secret in SECRETS if secret in text]
    assert leaks == []
    for where, text in surfaces.items():
        assert "[secret:" in text, f"{where} shows the masked credentials"
    assert "[secret:anthropic-key …XYZW]" in surfaces["database"]
