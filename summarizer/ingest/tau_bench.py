"""tau-bench results files: the JSON array of task results a tau-bench run writes, one per task and trial,
`{task_id, reward, info, traj, trial}`, where `traj` is the run's conversation as OpenAI Chat Completions
messages (the policy as the system prompt, the simulated customer as `user`, the agent as `assistant` with
its `tool_calls`, the tools' answers as `tool` messages).

Each task result becomes its own agent, `AGENT/task-ID` (`-trial-N` added when the result names its
trial; its 1-based position in the input when it names no task id), AGENT being `--agent` or `tau-bench`:
one conversation per run, each with its own exchanges, as ShareGPT conversations are read. The messages
are read as OpenAI Chat Completions messages; the reward and `info` (the task, the grading) are not
conversation and are left out. A single `traj` saved on its own is a plain chat array (`--format openai`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from summarizer.ingest.containers import Item, Layout, iter_chat_items
from summarizer.ingest.fields import expect_object, reject_nul
from summarizer.ingest.lines import LineReader
from summarizer.ingest.openai_format import parse_openai
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord

if TYPE_CHECKING:
    from summarizer.ingest.formats.base import Reading

DEFAULT_AGENT = "tau-bench"
LAYOUT = Layout(array_keys=())
"""A bare array of task results (or JSON Lines of them): each item is one result."""
_RESULT_KEYS = frozenset({"task_id", "reward", "info", "trial"})


def tau_bench_results(value: Any) -> str | None:
    """Why `value` (a whole document, or one JSON Lines object) is a tau-bench results file: task results
    whose `traj` is a list of chat messages, beside a task id, reward, info or trial; None otherwise."""
    first = value[0] if isinstance(value, list) and value else value
    if not isinstance(first, Mapping) or not isinstance(first.get("traj"), list):
        return None
    if not _RESULT_KEYS.intersection(first):
        return None
    traj = first["traj"]
    if traj and not (isinstance(traj[0], Mapping) and "role" in traj[0]):
        return None
    return "tau-bench task results (task_id and a traj of chat messages)"


def parse_task_result(
    obj: Mapping[str, Any], default_agent: str | None, position: int, where: str
) -> list[IngestRecord]:
    """The records of one task result, the `position`-th of the input (1-based)."""
    reject_nul(obj)
    traj = obj.get("traj")
    if not isinstance(traj, list):
        detail = "missing" if traj is None else f"a {json_type(traj)}"
        raise Problem(f"'traj' must be an array of chat messages, but it is {detail}")
    agent = f"{default_agent or DEFAULT_AGENT}/{_run_name(obj, position)}"
    records: list[IngestRecord] = []
    for index, value in enumerate(traj):
        label = f"traj[{index}]"
        try:
            message = expect_object(value, label)
            records.extend(parse_openai(message, agent, f"{where} {label}"))
        except Problem as problem:
            reason = problem.reason if problem.reason.startswith(label) else f"{label}: {problem.reason}"
            raise Problem(reason) from None
    return records


def read_task_results(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    """Every record of a tau-bench results file, one task result at a time."""
    items = iter_chat_items(lines, reading.max_bytes, LAYOUT, reading.guard.on_bad)
    for position, item in enumerate(items, start=1):

        def parse(i: Item, position: int = position) -> list[IngestRecord]:
            return parse_task_result(i.value, reading.agent, position, i.where)

        yield from reading.guard(item, parse)


def _run_name(obj: Mapping[str, Any], position: int) -> str:
    task = _plain_id(obj.get("task_id"))
    if task is None:
        return str(position)
    trial = _plain_id(obj.get("trial"))
    return f"task-{task}" if trial is None else f"task-{task}-trial-{trial}"


def _plain_id(value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip() and "/" not in value and value == value.strip():
        return value
    return None
