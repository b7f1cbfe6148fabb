"""The scripts in examples/ run as a user runs them: the raw SDK ones as processes whose SDK talks to a local
fake of its provider's API (summarizer.testing), on the embedded default database; the Agents SDK one
with the SDK's scripted model in place of the model."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from agents import set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call
from langchain_core.messages import AIMessage

from summarizer.api import Summarizer
from summarizer.composition import build_summarizer
from summarizer.storage.sql.database import Database
from summarizer.testing import fake_chat_completions, fake_messages_api
from summarizer.testing.fake_chat_completions import FakeChatCompletionsAPI
from summarizer.testing.fake_messages_api import FakeMessagesAPI
from tests.support.http_api import hermetic_settings_on
from tests.support.langchain_fakes import ToolTakingFakeChatModel

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(script: str, tmp_path: Path, env: dict[str, str], *questions: str) -> str:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("SUMMARIZER_", "OPENAI_", "ANTHROPIC_"))
    }
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *questions],
        env={**clean, **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_raw_anthropic_example_sends_its_memory_and_records_the_answers(tmp_path: Path) -> None:
    with FakeMessagesAPI() as api:
        api.script_messages(
            fake_messages_api.text_reply("Noted: launch on 12 March."),
            fake_messages_api.text_reply("The launch is on 12 March."),
            fake_messages_api.text_reply("Still 12 March."),
        )
        env = {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "test"}
        out = _run("raw_anthropic.py", tmp_path, env, "Note: the launch moved to 12 March.", "When is it?")
        assert out.splitlines() == ["Noted: launch on 12 March.", "The launch is on 12 March."]
        again = _run("raw_anthropic.py", tmp_path, env, "Remind me?")  # a new process: the memory persisted
        assert again.strip() == "Still 12 March."
        bodies = [r.body for r in api.requests_to(fake_messages_api.MESSAGES_PATH)]
    assert bodies[0]["system"] == "You are a terse note-taking assistant."
    assert bodies[0]["messages"] == [{"role": "user", "content": "Note: the launch moved to 12 March."}]
    assert bodies[2]["messages"][:4] == [
        {"role": "user", "content": "Note: the launch moved to 12 March."},
        {"role": "assistant", "content": [{"type": "text", "text": "Noted: launch on 12 March."}]},
        {"role": "user", "content": "When is it?"},
        {"role": "assistant", "content": [{"type": "text", "text": "The launch is on 12 March."}]},
    ]
    assert (tmp_path / ".summarizer").is_dir()  # the embedded default, where the user ran the script


def test_raw_openai_example_sends_its_memory_and_records_the_answers(tmp_path: Path) -> None:
    with FakeChatCompletionsAPI(models=["gpt-4.1-mini"]) as api:
        api.script(fake_chat_completions.text_reply("Noted."), fake_chat_completions.text_reply("12 March."))
        env = {"OPENAI_BASE_URL": api.base_url, "OPENAI_API_KEY": "test"}
        out = _run("raw_openai.py", tmp_path, env, "Note: launch on 12 March.", "When is the launch?")
        bodies = [r.body for r in api.chat_requests()]
    assert out.splitlines() == ["Noted.", "12 March."]
    assert bodies[1]["messages"] == [
        {"role": "system", "content": "You are a terse note-taking assistant."},
        {"role": "user", "content": "Note: launch on 12 March."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "When is the launch?"},
    ]


@pytest.fixture
def no_tracing() -> Iterator[None]:
    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def memory(db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Summarizer:
    """The summarizer an example is handed, on the test's database."""
    return build_summarizer(hermetic_settings_on(db, monkeypatch, tmp_path), db)


@pytest.mark.usefixtures("no_tracing")
def test_openai_agents_example_runs_its_conversation_through_the_session(memory: Summarizer) -> None:
    model = ScriptedModel(
        [
            [function_call("order_status", {"order_id": "A-1001"}, call_id="c1")],
            [assistant_message("It arrives on Friday.")],
            [function_call("order_status", {"order_id": "A-1002"}, call_id="c2")],
            [assistant_message("That one arrives on Friday too.")],
            [assistant_message("You asked about A-1001 first.")],
        ]
    )
    example = _load("openai_agents_session")
    answers = asyncio.run(example.main(model=model, session_id="support-42", summarizer=memory))
    assert answers[-1] == "You asked about A-1001 first."
    last_request = model.calls[-1].input
    assert isinstance(last_request, list)
    assert "A-1001" in str(last_request[0])
    assert "A-1002" in str(last_request)
    kinds = [m.kind.value for m in memory.get_context("support-42").messages if m.kind.value != "mark"]
    assert kinds.count("tool_call") == 2
    assert kinds.count("tool_result") == 2


def test_langchain_example_runs_its_conversation_through_the_middleware(memory: Summarizer) -> None:
    script = [
        AIMessage("", tool_calls=[{"name": "order_status", "args": {"order_id": "A-1001"}, "id": "c1"}]),
        AIMessage("It arrives on Friday."),
        AIMessage("", tool_calls=[{"name": "order_status", "args": {"order_id": "A-1002"}, "id": "c2"}]),
        AIMessage("That one arrives on Friday too."),
        AIMessage("You asked about A-1001 first."),
    ]
    model = ToolTakingFakeChatModel(messages=iter(script))
    answers = _load("langchain_agent").main(model=model, agent_id="support-42", summarizer=memory)
    assert answers[-1] == "You asked about A-1001 first."
    last_request = model.requests[-1]
    assert "A-1001" in str(last_request[1].content)  # the first question, brought back by the middleware
    assert len(last_request) == 1 + 4 + 4 + 1  # system prompt, two turns with a tool call each, the question


def _order_script() -> list[fake_chat_completions.Reply]:
    """The support conversation both framework examples hold: a tool call and an answer per order, then
    the question whose answer needs the first turn."""
    return [
        fake_chat_completions.tool_call_reply("order_status", {"order_id": "A-1001"}),
        fake_chat_completions.text_reply("It arrives on Friday."),
        fake_chat_completions.tool_call_reply("order_status", {"order_id": "A-1002"}),
        fake_chat_completions.text_reply("That one arrives on Friday too."),
        fake_chat_completions.text_reply("You asked about A-1001 first."),
    ]


@pytest.mark.parametrize(
    ("script", "settings"),
    [
        ("langchain_agent.py", {}),
        ("openai_agents_session.py", {"EXAMPLE_OPENAI_API": "chat_completions"}),
    ],
)
def test_the_framework_examples_run_as_written_against_a_fake_openai(
    tmp_path: Path, script: str, settings: dict[str, str]
) -> None:
    with FakeChatCompletionsAPI(models=["gpt-4.1-nano"]) as api:
        api.script(*_order_script())
        env = {
            "OPENAI_BASE_URL": api.base_url,
            "OPENAI_API_KEY": "test",
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
            "EXAMPLE_MODEL": ("openai:" if script.startswith("langchain") else "") + "gpt-4.1-nano",
            **settings,
        }
        out = _run(script, tmp_path, env)
        bodies = [r.body for r in api.chat_requests()]
    assert out.strip().endswith("You asked about A-1001 first.")
    assert {body["model"] for body in bodies} == {"gpt-4.1-nano"}  # EXAMPLE_MODEL chose it
    assert "A-1001" in json.dumps(bodies[-1]["messages"])  # the memory brought the first turn back
    assert (tmp_path / ".summarizer").is_dir()


def test_every_example_says_what_it_needs_and_takes_its_model_from_the_environment() -> None:
    for script in sorted(EXAMPLES.glob("*.py")):
        text = script.read_text(encoding="utf-8")
        head = text.split('"""')[1]
        assert "Needs:" in head, script.name
        assert "Environment:" in head, script.name
        assert "EXAMPLE_MODEL" in head, script.name
        assert 'os.environ.get("EXAMPLE_MODEL"' in text, script.name


def test_the_anthropic_example_defaults_to_a_model_its_sdk_does_not_retire() -> None:
    from anthropic.resources.messages.messages import DEPRECATED_MODELS

    assert _load("raw_anthropic").MODEL not in DEPRECATED_MODELS
