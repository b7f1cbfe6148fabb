"""Input parsers: canonical JSON Lines, OpenAI and Anthropic chat messages, into validated records.

Only per-message rules are checked here. Rules that need the conversation so far (a tool result matching
a call in the same exchange, timestamps that never go back, repeated host ids) belong to the store.
"""

from summarizer.ingest.claude_code import Sidechains
from summarizer.ingest.reader import (
    STDIN,
    InputFormat,
    ReadOptions,
    UnknownFormat,
    iter_records,
    iter_stream_records,
    parse_format,
    read_records,
)
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.sequencing import ReadNotes

__all__ = [
    "STDIN",
    "IngestRecord",
    "InputFormat",
    "ReadNotes",
    "ReadOptions",
    "Sidechains",
    "UnknownFormat",
    "iter_records",
    "iter_stream_records",
    "parse_format",
    "read_records",
]
