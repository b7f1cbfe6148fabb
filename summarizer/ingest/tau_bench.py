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

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.fields import expect_object, required_list
from summarizer.ingest.openai_format import parse_openai
from summarizer.ingest.problems import under
from summarizer.ingest.records import IngestRecord

DEFAULT_AGENT = "tau-bench"
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


def parse_task_result(obj: Mapping[str, Any], agent: str, where: str) -> list[IngestRecord]:
    """The records of one task result, all of `agent`."""
    traj = required_list(obj, "traj", "an array of chat messages")
    records: list[IngestRecord] = []
    for index, value in enumerate(traj):
        label = f"traj[{index}]"
        with under(label):
            records.extend(parse_openai(expect_object(value, label), agent, f"{where} {label}"))
    return records


def run_name(obj: Mapping[str, Any], position: int) -> str:
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
