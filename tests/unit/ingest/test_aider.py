"""aider chat histories, case by case, on short hand-written histories in the layout aider writes
(`# aider chat started at` lines, `####` prompt lines and `>` notes ending with two spaces, replies
between blank lines)."""

from __future__ import annotations

import io

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest import IngestRecord, ReadNotes, ReadOptions, iter_stream_records
from summarizer.ingest.detect import detect

LABEL = "/home/dev/shop/.aider.chat.history.md"
RUN = "\n# aider chat started at 2025-03-01 09:30:00\n\n> Aider v0.86.1  \n> Main model: gpt-4o with diff edit format  \n"


def _read(
    text: str, *, agent: str | None = None, label: str = LABEL, limit: int = 1 << 20, strict: bool = False
) -> tuple[list[IngestRecord], ReadNotes]:
    notes = ReadNotes()
    stream = io.BytesIO(text.encode("utf-8"))
    options = ReadOptions(strict=strict)
    return list(iter_stream_records(stream, label, "auto", agent, limit, options, notes)), notes


def _kinds(records: list[IngestRecord]) -> list[tuple[str, str]]:
    return [(r.message.kind.value, r.message.content) for r in records]


def test_a_run_is_a_clear_its_banner_marks_then_prompt_reply_and_notes() -> None:
    text = (
        RUN
        + "\n#### add a health check  \n#### to app.py  \n"
        + "\nHere is the change:\n\napp.py\n```python\nprint('ok')\n```\n\n"
        + "> Tokens: 2.1k sent, 90 received.  \n> Applied edit to app.py  \n> Commit 1a2b3c4 feat: health  \n"
    )
    records, notes = _read(text)
    assert notes.detected.startswith("aider")
    assert _kinds(records) == [
        ("clear", "aider chat started at 2025-03-01 09:30:00"),
        ("mark", "Aider v0.86.1"),
        ("mark", "Main model: gpt-4o with diff edit format"),
        ("user", "add a health check\nto app.py"),
        ("assistant", "Here is the change:\n\napp.py\n```python\nprint('ok')\n```"),
        ("system", "Tokens: 2.1k sent, 90 received."),
        ("system", "Applied edit to app.py"),
        ("system", "Commit 1a2b3c4 feat: health"),
    ]
    assert {r.agent_id for r in records} == {"shop"}  # the project folder holding the history
    assert {str(r.message.created_at) for r in records} == {"2025-03-01 09:30:00+00:00"}


def test_the_models_own_headings_and_quotes_stay_in_its_reply() -> None:
    reply = "#### Plan\n\n> quoted from the docs\n\nDone."
    records, _ = _read(RUN + "\n#### why?  \n\n" + reply + "\n\n> Tokens: 1k sent, 9 received.  \n")
    assert _kinds(records)[-2:] == [("assistant", reply), ("system", "Tokens: 1k sent, 9 received.")]


def test_a_note_of_several_lines_runs_over_blank_lines_to_its_break() -> None:
    note = "> # 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: in app.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n\nThe SEARCH section must exactly match  \n"
    tokens = "> Tokens: 1k sent, 9 received.  \n> The LLM did not conform to the edit format.  \n"
    records, _ = _read(RUN + "\n#### fix it  \n\nsure\n\n" + tokens + note + "\nSorry, retrying.\n")
    assert _kinds(records)[-3:] == [
        ("system", "The LLM did not conform to the edit format."),
        ("system", note[2:].rstrip()),
        ("assistant", "Sorry, retrying."),
    ]


@pytest.mark.parametrize(
    ("typed", "kind"),
    [
        ("/ask what does this do?", "user"),
        ("/add app.py", "command"),
        ("!pytest -q", "command"),
        ("/clear", "clear"),
        ("Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all", "mark"),
    ],
)
def test_slash_commands_and_answers_are_not_prompts_unless_they_ask_the_model(typed: str, kind: str) -> None:
    records, _ = _read(RUN + f"\n#### {typed}  \n")
    assert _kinds(records)[-1] == (kind, typed)


def test_an_empty_prompt_adds_nothing() -> None:
    records, _ = _read(RUN + "\n#### <blank>  \n")
    assert [k for k, _ in _kinds(records)] == ["clear", "mark", "mark"]


def test_a_second_run_clears_the_first_and_takes_its_own_time() -> None:
    second = "\n# aider chat started at 2025-03-02 08:00:00\n\n#### again  \n"
    records, _ = _read(RUN + "\n#### hello  \n\nhi\n" + second)
    last_two = [(r.message.kind.value, str(r.message.created_at)[:10]) for r in records[-2:]]
    assert last_two == [("clear", "2025-03-02"), ("user", "2025-03-02")]


def test_text_before_the_first_run_is_skipped_and_named() -> None:
    records, notes = _read("Project notes kept by hand\n\nmore notes\n" + RUN + "\n#### go  \n")
    assert _kinds(records)[0] == ("clear", "aider chat started at 2025-03-01 09:30:00")
    assert notes.skipped == 1
    assert notes.warnings == [
        f"{LABEL}:1: text before the first '# aider chat started at' line belongs to no session; skipped"
    ]
    with pytest.raises(InvalidMessage, match="belongs to no session"):
        _read("Project notes\n" + RUN, strict=True)


def test_a_last_block_still_being_written_waits() -> None:
    records, notes = _read(RUN + "\n#### go  \n\nhalf a repl")
    assert _kinds(records)[-1] == ("user", "go")
    assert notes.partial_lines == 1


def test_a_block_over_the_size_limit_is_skipped_with_its_size() -> None:
    records, notes = _read(RUN + "\n#### go  \n\n" + "x" * 300 + "\n", limit=200)
    assert _kinds(records)[-1] == ("user", "go")
    assert notes.skipped == 1
    assert "message is 300 bytes, over the 200-byte limit" in notes.warnings[0]


def test_a_line_over_the_size_limit_is_measured_not_kept_and_its_block_skipped() -> None:
    records, notes = _read(RUN + "\n#### go  \n\nshort\n" + "y" * 5000 + "\nend\n", limit=1000)
    assert _kinds(records)[-1] == ("user", "go")
    assert notes.skipped == 1
    assert "over the 1000-byte limit" in notes.warnings[0]


def test_a_run_line_that_is_no_date_is_named() -> None:
    records, notes = _read(RUN + "\n# aider chat started at 2025-13-45 25:61:00\n\n#### next  \n")
    assert _kinds(records)[-1] == ("user", "next")
    assert notes.skipped == 1
    assert "the run's start '2025-13-45 25:61:00' is not a date and time" in notes.warnings[0]


def test_a_line_that_is_not_utf8_is_named_and_the_rest_read() -> None:
    data = (RUN + "\n#### go  \n\n").encode() + b"bad \xff byte\nstill the reply\n\n#### next  \n"
    notes = ReadNotes()
    records = list(iter_stream_records(io.BytesIO(data), LABEL, "auto", None, 1 << 20, notes=notes))
    assert _kinds(records)[-3:] == [("user", "go"), ("assistant", "still the reply"), ("user", "next")]
    assert notes.warnings == [
        f"{LABEL}:9: invalid UTF-8 at byte 5 of the line; the line is left out; skipped"
    ]


def test_stdin_needs_an_agent() -> None:
    with pytest.raises(InvalidMessage, match="pass --agent"):
        _read(RUN, label="-", strict=True)
    records, _ = _read(RUN, label="-", agent="shop")
    assert {r.agent_id for r in records} == {"shop"}


def test_detection_finds_a_history_that_opens_with_other_text_and_nothing_else() -> None:
    assert detect(("notes\n" * 50 + RUN).encode(), "x.md").format == "aider"
    assert (
        detect(b'{"kind": "user", "content": "# aider chat started at 2025-03-01 09:30:00"}\n', "x").format
        == "canonical"
    )
