"""`summarizer worker` refuses a pool it cannot run before it hands over to Celery."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner

from summarizer.cli import commands_worker
from summarizer.cli.main import cli


def _no_exec(args: list[str]) -> None:
    raise AssertionError(f"Celery was started with {args}")


def test_the_gevent_pool_without_gevent_installed_is_refused_with_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commands_worker, "_exec_celery", _no_exec)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    env = {"SUMMARIZER_DATA_DIR": str(tmp_path), "SUMMARIZER_WORKER_POOL": "gevent"}
    result = CliRunner().invoke(cli, ["worker"], env=env)
    assert result.exit_code == 2
    assert "tiered-summarizer[gevent]" in result.output


def test_a_pool_celery_has_but_summarizer_does_not_support_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commands_worker, "_exec_celery", _no_exec)
    result = CliRunner().invoke(
        cli, ["worker", "--pool", "eventlet"], env={"SUMMARIZER_DATA_DIR": str(tmp_path)}
    )
    assert result.exit_code == 2
    assert "'eventlet' is not one of" in result.output


def test_the_configured_pool_is_passed_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(commands_worker, "_exec_celery", started.append)
    env = {"SUMMARIZER_DATA_DIR": str(tmp_path), "SUMMARIZER_WORKER_POOL": "solo"}
    result = CliRunner().invoke(cli, ["worker"], env=env)
    assert result.exit_code == 0, result.output
    [args] = started
    assert args[args.index("-P") + 1] == "solo"  # Celery patches for gevent only when it reads -P at start
