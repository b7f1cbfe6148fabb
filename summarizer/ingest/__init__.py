"""Input parsers: canonical JSON Lines, OpenAI and Anthropic chat messages, into validated records.

Only per-message rules are checked here. Rules that need the conversation so far (a tool result matching
a call in the same exchange, timestamps that never go back, repeated host ids) belong to the store.
"""

from summarizer.ingest.reader import (
    STDIN,
    InputFormat,
    UnknownFormat,
    iter_records,
    iter_stream_records,
    parse_format,
    read_records,
)
from summarizer.ingest.records import IngestRecord

__all__ = [
    "STDIN",
    "IngestRecord",
    "InputFormat",
    "UnknownFormat",
    "iter_records",
    "iter_stream_records",
    "parse_format",
    "read_records",
]
