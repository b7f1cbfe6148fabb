"""A cheaper model per rung: the configured model answers the append rung (it writes the session tier),
SUMMARIZER_MERGE_MODEL answers the merge and full rungs; the composition root wires it per provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.composition.llm import build_provider
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.ports import LLMAnswer, LLMRequest, UpdateContext
from summarizer.llm.rungs import RungLLM
from summarizer.settings import LLMChoice, load_settings


class RecordingFakeLLM:
    """A fake model that names itself in every answer."""

    def __init__(self, name: str) -> None:
        self.name = name

    def complete(self, request: LLMRequest) -> LLMAnswer:
        return LLMAnswer(tool_input={}, model=self.name)


def _request(path: UpdatePath) -> LLMRequest:
    context = UpdateContext(
        path=path, batch=(), visible_items=(), max_item_chars=600, max_tokens=10_000, current_tokens=0
    )
    return LLMRequest("system", "user", "tool", "description", {}, 1024, context)


@pytest.mark.parametrize(
    ("path", "answers"),
    [(UpdatePath.APPEND, "session"), (UpdatePath.MERGE, "cheaper"), (UpdatePath.FULL, "cheaper")],
)
def test_the_rewriting_rungs_go_to_the_cheaper_model(path: UpdatePath, answers: str) -> None:
    llm = RungLLM(RecordingFakeLLM("session"), RecordingFakeLLM("cheaper"))
    assert llm.complete(_request(path)).model == answers


@pytest.mark.parametrize("choice", [LLMChoice.ANTHROPIC, LLMChoice.OPENAI])
def test_the_composition_root_builds_the_cheaper_model_of_the_same_provider(
    choice: LLMChoice, tmp_path: Path
) -> None:
    settings = load_settings(
        data_dir=tmp_path,
        merge_model="small-model",
        anthropic_api_key="sk-ant-test",
        openai_api_key="sk-test",
    )
    built = build_provider(settings, choice)
    assert isinstance(built, RungLLM)
    assert getattr(built.rewriting, "model", None) == "small-model"
    assert getattr(built.session, "model", None) != "small-model"
    plain = build_provider(load_settings(data_dir=tmp_path, anthropic_api_key="sk-ant-test"), choice)
    assert not isinstance(plain, RungLLM)
