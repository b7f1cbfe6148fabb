"""The bundled sample: it is what the generator (tools/samples) produces, it parses, and it has the promised features."""

from __future__ import annotations

import statistics
import subprocess
import sys
from collections.abc import Sequence
from datetime import time
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

from summarizer.domain.kinds import Kind, is_conversation
from summarizer.domain.messages import NewMessage
from summarizer.ingest import IngestRecord, read_records
from summarizer.samples import SAMPLE_AGENT, sample_path
from tools.samples.generate import generate, main, render
from tools.samples.transcript import AGENT_ID

ROOT = Path(__file__).resolve().parents[3]
LIMIT = 1_048_576
Exchange = list[NewMessage]


@cache
def _records() -> tuple[IngestRecord, ...]:
    return tuple(read_records(sample_path(), "canonical", None, LIMIT))


def _messages() -> list[NewMessage]:
    return [record.message for record in _records()]


def _exchanges(messages: Sequence[NewMessage]) -> list[Exchange]:
    """Split as the store does: a user message that starts an exchange closes the previous one."""
    exchanges: list[Exchange] = []
    for message in messages:
        if message.starts_exchange:
            exchanges.append([message])
        elif exchanges:
            exchanges[-1].append(message)
    return exchanges


def _tokens(message: NewMessage) -> int:
    return len(message.content) // 4


def test_shipped_sample_equals_generator_output() -> None:
    assert sample_path().read_text(encoding="utf-8") == render(generate())


def test_the_tool_regenerates_the_shipped_file_byte_for_byte(tmp_path: Path) -> None:
    target = tmp_path / "coding_agent.jsonl"
    subprocess.run(
        [sys.executable, "-m", "tools.samples", str(target)], cwd=ROOT, check=True, capture_output=True
    )
    assert target.read_bytes() == sample_path().read_bytes()


def test_the_loader_names_the_generated_agent() -> None:
    assert SAMPLE_AGENT == AGENT_ID


def test_generator_is_deterministic_per_seed() -> None:
    assert render(generate(3)) == render(generate(3))
    assert render(generate(3)) != render(generate(4))


def test_sample_parses_cleanly_for_one_agent() -> None:
    assert {record.agent_id for record in _records()} == {AGENT_ID}


def test_sample_is_under_three_megabytes() -> None:
    assert sample_path().stat().st_size < 3 * 1024 * 1024


def test_sample_starts_with_a_system_preamble() -> None:
    first = _messages()[0]
    assert first.kind is Kind.SYSTEM
    assert "tools" in first.content


def test_sample_has_at_least_220_exchanges() -> None:
    assert len(_exchanges(_messages())) >= 220


def test_sample_spans_at_least_11_days_in_working_hours() -> None:
    stamps = [m.created_at for m in _messages() if m.created_at is not None]
    assert len(stamps) == len(_messages())
    assert len({stamp.date() for stamp in stamps}) >= 11
    assert all(time(8) <= stamp.time() <= time(21) for stamp in stamps)


def test_sample_timestamps_have_a_zone_and_never_decrease() -> None:
    stamps = [m.created_at for m in _messages() if m.created_at is not None]
    assert all(stamp.tzinfo is not None for stamp in stamps)
    assert all(earlier <= later for earlier, later in pairwise(stamps))


def test_sample_tool_results_answer_a_call_in_the_same_exchange() -> None:
    for exchange in _exchanges(_messages()):
        calls = {m.tool_call_id for m in exchange if m.kind is Kind.TOOL_CALL}
        results = [m.tool_call_id for m in exchange if m.kind is Kind.TOOL_RESULT]
        assert all(result in calls for result in results), exchange[0].where


def test_sample_has_a_failing_tool_the_agent_recovers_from() -> None:
    recovered = [
        exchange
        for exchange in _exchanges(_messages())
        if any(m.is_error for m in exchange) and exchange[-1].kind is Kind.ASSISTANT
    ]
    assert recovered


def test_sample_has_an_interrupted_exchange() -> None:
    interrupted = [
        exchange
        for exchange in _exchanges(_messages())
        if [m for m in exchange if is_conversation(m.kind)][-1].kind is Kind.TOOL_RESULT
    ]
    assert interrupted


def test_sample_has_one_clear_after_its_command() -> None:
    messages = _messages()
    clears = [index for index, message in enumerate(messages) if message.kind is Kind.CLEAR]
    assert len(clears) == 1
    command = messages[clears[0] - 1]
    assert (command.kind, command.content) == (Kind.COMMAND, "/clear")


def test_sample_has_marks() -> None:
    assert any(message.kind is Kind.MARK for message in _messages())


def test_sample_exchange_sizes_range_from_hundreds_to_thousands_of_tokens() -> None:
    sizes = [sum(map(_tokens, exchange)) for exchange in _exchanges(_messages())]
    assert 300 <= statistics.median(sizes) <= 3000
    assert max(sizes) >= 5000


def test_sample_has_big_tool_outputs() -> None:
    big = [m for m in _messages() if m.kind is Kind.TOOL_RESULT and _tokens(m) >= 5000]
    assert len(big) >= 2


def test_main_writes_the_sample_to_a_path(tmp_path: Path) -> None:
    target = tmp_path / "sample.jsonl"
    assert main([str(target), "--seed", "5"]) == 0
    assert target.read_text(encoding="utf-8") == render(generate(5))


def test_main_writes_to_stdout_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seed", "5"]) == 0
    assert capsys.readouterr().out == render(generate(5))
