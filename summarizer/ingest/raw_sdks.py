"""What a raw provider SDK answered, as messages to record: the reverse of `summarizer.context_formats`.

Each function takes the SDK's own answer object (anything with pydantic's `model_dump`, as the `anthropic`
and `openai` packages return) or the same thing as plain JSON, and reads it with the ingest readers the
`anthropic`, `openai` and `responses` formats use, so an answer is stored exactly as the same answer in a
file would be. No SDK is imported: the objects are read through `model_dump`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.messages import NewMessage
from summarizer.ingest.anthropic_format import parse_anthropic
from summarizer.ingest.openai_format import parse_openai
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.responses_format import parse_responses_item

Reader = Callable[[Mapping[str, Any], str | None, str], list[IngestRecord]]


def as_json(value: object, what: str, where: str) -> Any:
    """An SDK object (pydantic) as plain JSON; plain JSON as it is; `what` names it, `where` places it."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping | list | tuple):
        return value
    raise InvalidMessage(f"expected {what} (an SDK object or its JSON), got {type(value).__name__}", where)


def _read(reader: Reader, agent_id: str, objects: Sequence[object], what: str) -> list[NewMessage]:
    messages: list[NewMessage] = []
    for index, obj in enumerate(objects):
        where = f"{what}[{index}]" if len(objects) > 1 else what
        if not isinstance(obj, Mapping):
            raise InvalidMessage(f"expected an object, got {json_type(obj)}", where)
        try:
            records = reader(obj, agent_id, where)
        except Problem as problem:
            raise InvalidMessage(problem.reason, where) from None
        messages.extend(record.message for record in records)
    return messages


def anthropic_messages(agent_id: str, answer: object) -> list[NewMessage]:
    """A Messages API answer (`anthropic.types.Message`), or any Messages API message (role and content),
    or a list of them. Tool results sent in a user turn continue the running exchange."""
    data = as_json(answer, "an Anthropic message", "anthropic message")
    objects = list(data) if isinstance(data, list | tuple) else [data]
    return _read(parse_anthropic, agent_id, objects, "anthropic message")


def openai_chat_messages(agent_id: str, completion: object) -> list[NewMessage]:
    """A Chat Completions answer (`ChatCompletion`: its first choice's message, with the completion id as
    the message id, so recording it twice stores it once), a chat message, or a list of chat messages."""
    data = as_json(completion, "a chat completion", "chat completion")
    if isinstance(data, Mapping) and "choices" in data:
        choices = data["choices"]
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise InvalidMessage("a chat completion with no choice to record", "chat completion")
        message = dict(choices[0].get("message") or {})
        if isinstance(data.get("id"), str) and "id" not in message:
            message["id"] = data["id"]
        data = message
    objects = list(data) if isinstance(data, list | tuple) else [data]
    return _read(parse_openai, agent_id, objects, "chat message")


def responses_messages(agent_id: str, response: object) -> list[NewMessage]:
    """A Responses API answer (`Response`: its `output` items), one item, or a list of items (a request's
    `input`). Reasoning items are left out, as the `responses` ingest format leaves them out."""
    data = as_json(response, "a response", "response")
    if isinstance(data, Mapping) and "output" in data and "type" not in data:
        data = data["output"]
        if not isinstance(data, list):
            raise InvalidMessage(f"output must be an array, got {json_type(data)}", "response")
    objects = list(data) if isinstance(data, list | tuple) else [data]
    return _read(parse_responses_item, agent_id, objects, "response item")
