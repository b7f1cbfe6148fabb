"""`--format tau-bench`: tau-bench results files (task results, each with the `traj` of its run)."""

from __future__ import annotations

from summarizer.ingest.formats.base import LogFormat, conversations_reader
from summarizer.ingest.tau_bench import DEFAULT_AGENT, parse_task_result, run_name, tau_bench_results

FORMAT = LogFormat(
    name="tau-bench",
    title="tau-bench",
    read=conversations_reader(parse_task_result, DEFAULT_AGENT, run_name),
    detect=tau_bench_results,
)
