"""The raw SDKs, on SQLite and PostgreSQL: every `Context.to_*` body validates against the SDK's own request
type, keeps each tool call with its result, puts the summary where the API takes instructions, and reads
back through `record_*` as the messages it was made from."""

from __future__ import annotations

import dataclasses
import itertools
from datetime import UTC, datetime
from typing import Any

import pytest
from anthropic.types import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from summarizer.api import Context, Summarizer
from summarizer.context_formats import tool_note
from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage, StoredMessage
from summarizer.engine.render import NO_SUMMARY_YET
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from tests.support.sdk_types import check_anthropic_request, check_chat_request, check_responses_request

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SUMMARY = "## Previously in This Session\n- The user chose PostgreSQL for the ledger."
_agents = itertools.count()


def facade(db: Database, budget: int = 0) -> Summarizer:
    store = ConversationStore(db, StoreConfig(window_tokens=budget, batch_size=1), clock=lambda: T0)
    return Summarizer(store, default_budget=budget, render_summary=lambda s, n: "", clock=lambda: T0)


_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40).filter(str.strip)
_inputs = st.dictionaries(
    st.sampled_from(["path", "cmd", "n"]),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=10) | st.integers(),
    max_size=3,
)


@st.composite
def conversations(draw: st.DrawFn) -> list[NewMessage]:
    """A preamble, then exchanges of a user turn, rounds of tool calls with their results (some failing,
    some with text before the calls), provider-side tool activity and system notes, and a final answer."""
    out = [NewMessage(Kind.SYSTEM, draw(_text))] if draw(st.booleans()) else []
    calls = itertools.count()
    for _ in range(draw(st.integers(1, 4))):
        out.append(NewMessage(Kind.USER, draw(_text)))
        if draw(st.integers(0, 4)) == 0:
            out.append(NewMessage(Kind.SYSTEM, draw(_text)))
        for _ in range(draw(st.integers(0, 2))):
            if draw(st.booleans()):
                out.append(NewMessage(Kind.ASSISTANT, draw(_text)))
            ids = [f"call_{next(calls)}" for _ in range(draw(st.integers(1, 2)))]
            for call_id in ids:
                out.append(
                    NewMessage(Kind.TOOL_CALL, "", tool_call_id=call_id, name="bash", input=draw(_inputs))
                )
            for call_id in ids:
                failed = draw(st.sampled_from([None, True, False]))
                out.append(NewMessage(Kind.TOOL_RESULT, draw(_text), tool_call_id=call_id, is_error=failed))
        if draw(st.integers(0, 4)) == 0:
            out.append(NewMessage(Kind.TOOL, '{"query": "x"}', name="web_search_call", tool_call_id="ws_1"))
        out.append(NewMessage(Kind.ASSISTANT, draw(_text)))
    return out


def _shape(m: StoredMessage, *, keep_errors: bool) -> tuple[Any, ...]:
    if m.kind is Kind.TOOL:
        return (Kind.ASSISTANT, tool_note(m), None, None, None, None)
    error = m.is_error if keep_errors else None
    return (m.kind, m.content, m.tool_call_id, m.name, m.input, error)


def _non_system(messages: tuple[StoredMessage, ...], *, keep_errors: bool) -> list[tuple[Any, ...]]:
    return [_shape(m, keep_errors=keep_errors) for m in messages if m.kind is not Kind.SYSTEM]


def _check_calls_answered_in_order(context: Context) -> None:
    seen: set[str] = set()
    for m in context.messages:
        if m.kind is Kind.TOOL_CALL:
            seen.add(m.tool_call_id or "")
        elif m.kind is Kind.TOOL_RESULT:
            assert m.tool_call_id in seen


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=conversations(), with_summary=st.booleans())
def test_every_form_validates_and_reads_back_as_the_context(
    db: Database, batch: list[NewMessage], with_summary: bool
) -> None:
    api = facade(db)
    agent = f"raw-{next(_agents)}"
    api.record_batch(agent, batch)
    context = dataclasses.replace(api.get_context(agent), summary=SUMMARY if with_summary else NO_SUMMARY_YET)
    originals = context.messages

    anthropic_body = context.to_anthropic()
    check_anthropic_request(anthropic_body)
    api.record_anthropic(f"{agent}-a", anthropic_body["messages"])
    back = api.get_context(f"{agent}-a").messages
    assert _non_system(back, keep_errors=True) == _non_system(originals, keep_errors=True)
    _check_calls_answered_in_order(api.get_context(f"{agent}-a"))

    chat = context.to_openai_chat()
    check_chat_request(chat)
    api.record_openai(f"{agent}-c", chat)
    back = api.get_context(f"{agent}-c").messages
    assert _non_system(back, keep_errors=False) == _non_system(originals, keep_errors=False)

    responses_body = context.to_responses()
    check_responses_request(responses_body)
    api.record_responses(f"{agent}-r", responses_body["input"])
    back = api.get_context(f"{agent}-r").messages
    assert _non_system(back, keep_errors=False) == _non_system(originals, keep_errors=False)

    # The summary goes where each API takes instructions, after the system prompt, and only when there is
    # one: the placeholder for "nothing has left the window" is not sent.
    preamble = [m.content for m in originals if m.kind is Kind.SYSTEM and m.exchange_id is None]
    for instructions in (
        anthropic_body.get("system", ""),
        responses_body.get("instructions", ""),
        "\n\n".join(m["content"] for m in chat if m["role"] == "system"),
    ):
        assert (SUMMARY in instructions) is with_summary
        assert NO_SUMMARY_YET not in instructions
        assert instructions.startswith("\n\n".join(preamble))


def test_a_call_without_its_result_is_not_sent(db: Database) -> None:
    api = facade(db)
    api.record_batch(
        "pending",
        [
            NewMessage(Kind.USER, "run the tests"),
            NewMessage(Kind.TOOL_CALL, "", tool_call_id="c1", name="bash", input={"cmd": "make"}),
        ],
    )
    context = api.get_context("pending")
    assert context.to_anthropic()["messages"] == [{"role": "user", "content": "run the tests"}]
    assert context.to_openai_chat() == [{"role": "user", "content": "run the tests"}]
    assert context.to_responses() == {
        "input": [{"type": "message", "role": "user", "content": "run the tests"}]
    }


def test_record_takes_what_each_sdk_returns(db: Database) -> None:
    api = facade(db)
    api.record_message("bot", "user", "What is in the repo?")
    message = Message.model_validate(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    )
    api.record_anthropic("bot", message)
    api.record_anthropic("bot", message)  # the same answer again: its id makes it a re-send, stored once
    api.record_anthropic(
        "bot",
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a b"}]},
    )
    completion = ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4.1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Two files."},
                }
            ],
        }
    )
    api.record_openai("bot", completion)
    response = Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "gpt-4.1",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "c9",
                    "name": "cat",
                    "arguments": '{"f": "a"}',
                },
            ],
        }
    )
    api.record_message("bot", "user", "Show a.")
    api.record_responses("bot", response)
    kinds = [(m.kind.value, m.content, m.tool_call_id, m.input) for m in api.get_context("bot").messages]
    assert kinds == [
        ("user", "What is in the repo?", None, None),
        ("assistant", "Let me look.", None, None),
        ("tool_call", "", "toolu_1", {"path": "."}),
        ("tool_result", "a b", "toolu_1", None),
        ("assistant", "Two files.", None, None),
        ("user", "Show a.", None, None),
        ("tool_call", "", "c9", {"f": "a"}),
    ]


@pytest.mark.parametrize(
    ("method", "bad", "said"),
    [
        ("record_openai", {"role": "robot", "content": "hi"}, "chat message: unknown role 'robot'"),
        (
            "record_anthropic",
            [{"role": "user", "content": "ok"}, {"role": "user"}],
            "anthropic message[1]: missing 'content'",
        ),
        ("record_responses", {"output": "nope"}, "response: output must be an array, got string"),
        ("record_responses", 42, "expected a response (an SDK object or its JSON), got int"),
    ],
)
def test_bad_input_is_refused_with_where_and_nothing_is_stored(
    db: Database, method: str, bad: object, said: str
) -> None:
    api = facade(db)
    api.record_message("careful", "user", "hello")
    with pytest.raises(InvalidMessage) as refused:
        getattr(api, method)("careful", bad)
    assert said in str(refused.value)
    assert [m.content for m in api.get_context("careful").messages] == ["hello"]
