"""`watch` sets its watch up again when a folder appears under a root; each time it walks the roots once
(the catch-up once the watch is in place, which also gives the folders of the next watch), never a second
time to list the folders to watch. Run in-process on a real folder, with a follower that only records
what it is asked to follow."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from summarizer.cli.watch_live import LiveWatch, roots
from summarizer.cli.watch_output import Shown
from summarizer.service.follow import Followed, Follower
from tests.support.fleet import wait_for


class _Recording(Follower):
    def __init__(self) -> None:  # no store: nothing is read or recorded
        self.followed: list[Path] = []

    def follow(self, path: Path) -> Followed:
        self.followed.append(path)
        return Followed(path)


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders `os.walk` was started on."""
    started: list[Path] = []
    real = os.walk

    def counting(top: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        started.append(Path(os.path.abspath(top)))
        return real(top, *args, **kwargs)

    monkeypatch.setattr(os, "walk", counting)
    return started


def test_a_new_folder_sets_the_watch_up_again_with_one_walk_of_the_roots(
    tmp_path: Path, walks: list[Path]
) -> None:
    root = tmp_path / "projects"
    (root / "-home-me-app").mkdir(parents=True)
    (root / "-home-me-app" / "old.jsonl").write_text("{}\n")
    follower = _Recording()
    stop = threading.Event()
    shown = Shown(stop)
    seen = roots([root])
    caught = shown.catch_up(follower, [root])  # as `watch` does before following live
    assert caught.folders == {root, root / "-home-me-app"}
    live = LiveWatch(follower, [root], shown, stop, seen, caught.folders)
    thread = threading.Thread(target=live.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: live.announced, 30, "the watch set up")
        assert walks.count(root) == 2  # the catch-up before, and the one once the watch is in place

        (root / "-home-me-new").mkdir()  # a new project: its folder must be watched too
        wait_for(lambda: walks.count(root) == 3, 30, "the watch set up again")
        later = root / "-home-me-new" / "later.jsonl"
        later.write_text("{}\n")
        wait_for(lambda: later in follower.followed, 30, "a file in the new folder followed")
        assert walks.count(root) == 3  # one walk of the roots for the new watch, not two
        assert live.listed == {root, root / "-home-me-app", root / "-home-me-new"}
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()
