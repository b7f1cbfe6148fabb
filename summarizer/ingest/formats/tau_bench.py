"""`--format tau-bench`: tau-bench results files (task results, each with the `traj` of its run)."""

from __future__ import annotations

from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.tau_bench import read_task_results, tau_bench_results

FORMAT = LogFormat(
    name="tau-bench",
    title="tau-bench",
    read=read_task_results,
    detect=tau_bench_results,
)
