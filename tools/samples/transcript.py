"""The message log being written: ids, timestamps and the tool-call links between messages."""

from __future__ import annotations

import random
from typing import Any

from tools.samples.timeline import Clock

AGENT_ID = "demo-agent"
Record = dict[str, Any]


class Transcript:
    def __init__(self, rng: random.Random, clock: Clock, agent: str = AGENT_ID) -> None:
        self._rng = rng
        self.clock = clock
        self.agent = agent
        self.records: list[Record] = []

    def system(self, text: str) -> None:
        self._emit("system", text)

    def user(self, text: str, *, pause: bool = True) -> None:
        if pause:
            self.clock.pause()
        self._emit("user", text)

    def assistant(self, text: str) -> None:
        """Model output takes time in proportion to its length."""
        self.clock.tick(3 + len(text) / 400, 8 + len(text) / 120)
        self._emit("assistant", text)

    def call(self, name: str, tool_input: dict[str, Any]) -> str:
        self.clock.tick(2, 12)
        call_id = f"toolu_{self._rng.getrandbits(96):024x}"
        self._emit("tool_call", None, tool_call_id=call_id, name=name, input=tool_input)
        return call_id

    def result(self, call_id: str, output: str, *, is_error: bool = False, seconds: float = 2.0) -> None:
        self.clock.tick(0.2, seconds)
        self._emit("tool_result", output, tool_call_id=call_id, is_error=is_error)

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        output: str,
        *,
        is_error: bool = False,
        seconds: float = 2.0,
    ) -> None:
        self.result(self.call(name, tool_input), output, is_error=is_error, seconds=seconds)

    def command(self, text: str) -> None:
        self.clock.tick(5, 60)
        self._emit("command", text)

    def mark(self, label: str) -> None:
        self.clock.tick(0, 1)
        self._emit("mark", label)

    def clear(self) -> None:
        self.clock.tick(0, 1)
        self._emit("clear", "")

    def _emit(self, kind: str, content: str | None, **fields: Any) -> None:
        record: Record = {"agent": self.agent, "id": f"m{len(self.records) + 1:05d}", "kind": kind}
        record["created_at"] = self.clock.stamp()
        if content is not None:
            record["content"] = content
        record.update(fields)
        self.records.append(record)
