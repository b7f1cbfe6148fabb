"""aider shows a suggested shell command as a note before asking to run it, each line padded to the width
of the longest: a line continued with `\\` ends in spaces, and its next line is still the note's."""

from __future__ import annotations

import io

from summarizer.ingest.aider import AiderHistory, aider_items
from summarizer.ingest.lines import LineReader
from tests.unit.ingest.document_reads import read_items

LABEL = "/home/dev/shop/.aider.chat.history.md"
RUN = "\n# aider chat started at 2025-03-01 09:30:00\n\n> Aider v0.86.1  \n"
REPLY = "Run the migration:\n\n```bash\npython manage.py migrate \\\n    --database replica\n```\n"


def _read(text: str) -> list[tuple[str, str]]:
    reader = LineReader(io.BytesIO(text.encode()), LABEL)
    history = AiderHistory(None, 1 << 20)
    records, _ = read_items(aider_items(reader, 1 << 20), history.feed)
    return [(r.message.kind.value, r.message.content) for r in records]


def test_a_continued_shell_command_stays_in_its_note() -> None:
    first, second = "python manage.py migrate \\", "    --database replica"
    width = max(len(first), len(second))
    suggestion = f"> {first.ljust(width)}  \n{second.ljust(width)}  \n"
    question = "> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y  \n"
    text = (
        RUN
        + "\n#### apply the migration  \n\n"
        + REPLY
        + "\n"
        + suggestion
        + question
        + "\n> Running python manage.py migrate \\  \n"
    )
    shown = _read(text)
    assert shown == [
        ("clear", "aider chat started at 2025-03-01 09:30:00"),
        ("mark", "Aider v0.86.1"),
        ("user", "apply the migration"),
        ("assistant", REPLY.strip()),
        ("system", f"{first}\n{second}"),
        ("system", question[2:].strip()),
        ("system", "Running python manage.py migrate \\"),
    ]
    assert not any(
        kind == "assistant" and "--database" in content and "```" not in content for kind, content in shown
    )


def test_a_reply_after_a_blank_line_under_a_note_is_still_a_reply() -> None:
    text = RUN + "\n#### hi  \n\n> Applied edit to app.py  \n\nDone, anything else?\n"
    assert _read(text)[-2:] == [("system", "Applied edit to app.py"), ("assistant", "Done, anything else?")]
