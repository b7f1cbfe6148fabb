"""opencode session exports: the real `opencode export` files in the corpora's project-fixtures/opencode (sources in its
README), each imported with the counts the file holds. The numbers were counted from the files themselves."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest.detect import HEAD_BYTES, detect
from tests.support.corpora import fixture_path
from tests.unit.ingest.helpers import assert_calls_answered_in_order, kind_counts, read_fixture

pytestmark = pytest.mark.usefixtures("corpora")

FIXTURES = fixture_path("opencode")
NIMBLE = FIXTURES / "session__nimble-pixel__ses_39b4c1891ffezxPVc5OPmcqF33.json"
MEADOW = FIXTURES / "session__quiet-meadow__ses_39c0a3da8ffeFQWvKTGUJWivpv.json"


def _ms(created: int) -> datetime:
    return datetime.fromtimestamp(created / 1000, UTC)


@pytest.mark.parametrize("path", [NIMBLE, MEADOW], ids=lambda p: p.name[:30])
def test_detect_picks_opencode_for_each_real_export(path: Path) -> None:
    assert detect(path.read_bytes()[:HEAD_BYTES], path.name).format == "opencode"


@pytest.mark.parametrize("path", [NIMBLE, MEADOW], ids=lambda p: p.name[:30])
def test_every_tool_part_is_a_call_followed_by_its_result(path: Path) -> None:
    records, notes = read_fixture(path)
    # Every tool part is `completed` or `error`, and the messages' `time.created` never go back.
    assert_calls_answered_in_order(records, notes)
    # The synthetic text opencode adds (the @file reads, the @agent hand-off) is not the user's turn.
    assert not any("Called the Read tool" in r.message.content for r in records)
    assert not any("call the task tool" in r.message.content for r in records)


def test_the_nimble_pixel_export_imports_with_the_counts_its_file_holds() -> None:
    records, notes = read_fixture(NIMBLE)
    assert notes.detected.startswith("opencode")
    assert kind_counts(records) == {
        Kind.USER: 2,  # 2 user messages, one typed text part each (2 synthetic parts left out): 2 exchanges
        Kind.ASSISTANT: 1,  # of 6 assistant messages one has a text part; the last was aborted
        Kind.TOOL_CALL: 4,  # 4 tool parts: read, apply_patch, grep, read
        Kind.TOOL_RESULT: 4,  # all `completed`
    }
    assert not any(r.message.is_error for r in records)
    assert {r.agent_id for r in records} == {"ses_39b4c1891ffezxPVc5OPmcqF33"}  # info.id
    first = records[0].message
    assert (first.kind, first.host_id) == (Kind.USER, "msg_c64b3e7700010H66Vhg03GjeqB")
    assert first.created_at == _ms(1771216037749)  # its info.time.created
    call = next(r.message for r in records if r.message.kind is Kind.TOOL_CALL)
    assert (call.tool_call_id, call.name) == ("call_SsaZ6pxbxtCC8mLShisZfT0b", "read")
    assert call.input == {"filePath": "/Users/alex/repos/vfp/dark-factory/TODO.md"}
    # The aborted last message holds only step-start and reasoning: the last record is the read before it.
    last = records[-1].message
    assert (last.kind, last.created_at) == (Kind.TOOL_RESULT, _ms(1771216064392))


def test_the_quiet_meadow_export_imports_with_the_counts_its_file_holds() -> None:
    records, notes = read_fixture(MEADOW)
    assert notes.detected.startswith("opencode")
    assert kind_counts(records) == {
        Kind.USER: 6,  # 6 user messages, one typed text part each (5 synthetic parts left out): 6 exchanges
        Kind.ASSISTANT: 2,  # 17 assistant messages, 2 of them with a text part
        Kind.TOOL_CALL: 37,  # 37 tool parts (19 glob, 9 read, 3 todowrite, 3 apply_patch, 2 task, 1 bash)
        Kind.TOOL_RESULT: 37,  # 34 `completed`, 3 `error`
    }
    failed = {r.message.tool_call_id: r.message.content for r in records if r.message.is_error}
    assert failed == {
        "call_0DbziJuVC0iPEk9HgEHbNTm8": "Error: No such file or directory: '/Users/alex/repos/vfp/dark-factory/.cursor'",
        "call_iXUlYWqHhmeXbvEV1iobvuNH": "Error: No such file or directory: '/Users/alex/repos/vfp/dark-factory/.github'",
        "call_PxvMNWQ5SHqDuGnHP5OUZDdk": "Tool execution aborted",  # the `task` of the aborted turn
    }
    assert {r.agent_id for r in records} == {"ses_39c0a3da8ffeFQWvKTGUJWivpv"}  # info.id
    users = [r.message.content for r in records if r.message.kind is Kind.USER]
    assert users[1] == "Setup a Git Ignore for Rust + NodeJS / BunJS "  # queued while the agent worked
    assert users[4:] == ["^", "@gitter Update"]
    assert records[0].message.created_at == _ms(1771203576426)  # the first message's time.created
    last = records[-1].message
    assert (last.kind, last.host_id) == (Kind.ASSISTANT, "msg_c63fbf79d001P7f0SsNXrg2Nas")
    assert last.created_at == _ms(1771203983261)
    assert last.content.startswith("Done — `@gitter` completed it and committed everything.")
    names = Counter(r.message.name for r in records if r.message.kind is Kind.TOOL_CALL)
    assert names == {"glob": 19, "read": 9, "todowrite": 3, "apply_patch": 3, "task": 2, "bash": 1}
