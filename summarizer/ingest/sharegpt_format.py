"""ShareGPT conversations, the layout of most fine-tuning data sets, with their function-calling variants.

One item is a whole conversation: `{"conversations": [{"from": ..., "value": ...}, ...]}`, optionally with
a `system` prompt and an `id`. Each conversation becomes its own agent, `AGENT/ID` (the conversation's `id`,
or its 1-based position in the input). Function calling comes in two spellings: glaive/LLaMA-Factory turns
(`function_call` whose value is `{"name", "arguments"}` or an array of them, answered by `observation`
turns), and Hermes turns (a `gpt` value holding `<tool_call>{...}</tool_call>` blocks, answered by a `tool`
turn holding `<tool_response>` blocks). The data carries no call ids, so calls are numbered within their
conversation and each output answers the oldest call not yet answered.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import Extras, expect_object, required_list
from summarizer.ingest.jsontext import DocumentError, loads_strict
from summarizer.ingest.openai_format import decode_arguments
from summarizer.ingest.problems import Problem, json_type, under
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.tags import tag_spans, without_spans

DEFAULT_AGENT = "sharegpt"
SPEAKERS: dict[str, Kind] = {
    "system": Kind.SYSTEM,
    "human": Kind.USER,
    "user": Kind.USER,
    "gpt": Kind.ASSISTANT,
    "assistant": Kind.ASSISTANT,
    "chatgpt": Kind.ASSISTANT,
    "model": Kind.ASSISTANT,
    "function_call": Kind.TOOL_CALL,
    "function-call": Kind.TOOL_CALL,
    "tool_call": Kind.TOOL_CALL,
    "observation": Kind.TOOL_RESULT,
    "function_response": Kind.TOOL_RESULT,
    "function-response": Kind.TOOL_RESULT,
    "tool": Kind.TOOL_RESULT,
    "ipython": Kind.TOOL_RESULT,
}


def parse_sharegpt(obj: Mapping[str, Any], agent: str, where: str) -> list[IngestRecord]:
    """The records of one conversation, all of `agent`."""
    turns = required_list(obj, "conversations", "an array of turns")
    drafts: list[Draft] = []
    if isinstance(obj.get("system"), str) and obj["system"]:
        drafts.append(Draft(Kind.SYSTEM, obj["system"]))
    pending: deque[str] = deque()
    numbering = [0]
    for index, value in enumerate(turns):
        label = f"conversations[{index}]"
        with under(label):
            drafts.extend(_turn(expect_object(value, label), pending, numbering))
    extras = Extras(agent_id=agent, created_at=None, host_id=None, tokens=None)
    return [record for draft in drafts for record in finish([draft], extras, where)]


def conversation_id(obj: Mapping[str, Any], position: int) -> str:
    value = obj.get("id")
    if isinstance(value, str) and value.strip() and "/" not in value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return str(position)


def _turn(turn: Mapping[str, Any], pending: deque[str], numbering: list[int]) -> list[Draft]:
    speaker, text = _speaker_and_text(turn)
    kind = SPEAKERS.get(speaker)
    if kind is None:
        raise Problem(f"unknown speaker {speaker!r} (expected one of: {', '.join(SPEAKERS)})")
    if kind is Kind.TOOL_CALL:
        return [_call(call, pending, numbering) for call in _calls(_decoded(text, "the function call"))]
    if kind is Kind.TOOL_RESULT:
        outputs = [text[s.body_start : s.body_end].strip() for s in tag_spans(text, ["tool_response"])]
        return [_result(output, pending) for output in outputs or [text]]
    calls = tag_spans(text, ["tool_call"]) if kind is Kind.ASSISTANT else []
    if calls:
        drafts = []
        prose = without_spans(text, calls).strip()
        if prose:
            drafts.append(Draft(Kind.ASSISTANT, prose))
        for span in calls:
            body = text[span.body_start : span.body_end]
            drafts.extend(_call(call, pending, numbering) for call in _calls(_decoded(body, "a <tool_call>")))
        return drafts
    return [Draft(kind, text)]


def _speaker_and_text(turn: Mapping[str, Any]) -> tuple[str, str]:
    speaker_key, text_key = ("from", "value") if "from" in turn else ("role", "content")
    speaker = turn.get(speaker_key)
    if not isinstance(speaker, str):
        raise Problem(f"a turn needs '{speaker_key}' as a string, got {json_type(speaker)}")
    text = turn.get(text_key)
    if not isinstance(text, str):
        raise Problem(f"'{text_key}' must be a string, got {json_type(text)}")
    return speaker.strip().lower(), text


def _decoded(text: str, what: str) -> Any:
    try:
        return loads_strict(text.strip())
    except DocumentError as exc:
        raise Problem(f"{what} is not valid JSON: {exc.reason.removeprefix('invalid JSON: ')}") from None


def _calls(value: Any) -> list[Mapping[str, Any]]:
    calls = value if isinstance(value, list) else [value]
    if not calls:
        raise Problem("a function call turn holds no call")
    return [expect_object(call, "a function call") for call in calls]


def _call(call: Mapping[str, Any], pending: deque[str], numbering: list[int]) -> Draft:
    name = call.get("name")
    if not isinstance(name, str) or not name:
        raise Problem("a function call needs a non-empty 'name'")
    arguments = decode_arguments(call, "") if "arguments" in call else call.get("parameters", {})
    numbering[0] += 1
    call_id = f"call_{numbering[0]}"
    pending.append(call_id)
    return Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=arguments)


def _result(output: str, pending: deque[str]) -> Draft:
    if not pending:
        raise Problem("a function output with no function call before it to answer")
    return Draft(Kind.TOOL_RESULT, output, tool_call_id=pending.popleft())
