"""`summarizer watch` after its catch-up: following the file system's change events until told to stop.

Each folder that can be listed is watched on its own (one folder that cannot be would make a recursive
watch fail whole); the watch is set up again whenever a root is deleted, replaced, comes back or appears for the first
time (one named before it existed), a watched folder is deleted (made again at once, as `git clean` and a
restore do, it may keep its inode), a folder appears, or a folder that could not be listed changes. Once a watch is in place, what was written while it
was set up is caught up on, and that one walk of the roots also gives the folders the next watch is set up
on: setting a watch up again walks the roots once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from summarizer.cli.watch_output import Shown
from summarizer.service.follow import Follower, is_log_name

Roots = dict[Path, tuple[int, int] | None]


def roots(dirs: Sequence[Path]) -> Roots:
    """Each watched root's identity (device, inode), None while it does not exist."""
    found: Roots = {}
    for d in dirs:
        try:
            stat = d.stat()
            found[d] = (stat.st_dev, stat.st_ino)
        except OSError:
            found[d] = None
    return found


class LiveWatch:
    def __init__(
        self,
        follower: Follower,
        dirs: Sequence[Path],
        shown: Shown,
        stop: threading.Event,
        seen: Roots,
        listed: set[Path],
    ) -> None:
        """`seen`: the roots as they were when the catch-up that listed the folders `listed` began."""
        self.follower = follower
        self.dirs = dirs
        self.shown = shown
        self.stop = stop
        self.seen = seen
        self.listed: set[Path] | None = listed
        """The folders the next watch is set up on; None: the roots are walked for them first."""
        self.announced = False

    def run(self) -> None:
        while not self.stop.is_set():
            armed = self._folders_to_watch()
            if not armed:
                self.stop.wait(1.0)
                continue
            try:
                self._watch(armed)
            except OSError as exc:  # a folder removed while the watch was being set up: look again
                where = ", ".join(map(str, self.dirs))
                click.echo(f"warning: cannot watch a folder under {where} ({exc})", err=True)
                self.listed = None
                self.stop.wait(1.0)

    def _folders_to_watch(self) -> set[Path]:
        now = roots(self.dirs)
        if now != self.seen:  # a root went or came back while no watch was running
            _say_roots(self.seen, now)
            changed = [d for d, known in now.items() if known != self.seen[d]]
            if self.listed is not None:
                self.listed = _without(self.listed, changed) | folders(changed)
            self.seen = now
        if self.listed is None:
            self.listed = folders(self.dirs)
        return {f for f in self.listed if os.path.exists(f)}  # one deleted since it was listed: not watched

    def _watch(self, armed: set[Path]) -> None:
        """One watch over the folders `armed`, until it must be set up again or `stop`."""
        import watchfiles

        def wanted(_change: watchfiles.Change, path: str) -> bool:
            return is_log_name(path) or Path(path) in self.shown.unlisted or os.path.isdir(path)

        established = False
        for changes in watchfiles.watch(
            *sorted(armed),
            watch_filter=wanted,
            recursive=False,
            stop_event=self.stop,
            rust_timeout=1000,
            yield_on_timeout=True,
        ):
            if not established:  # the watch is in place: what was written while it was set up
                established = True
                if not self._caught_up(armed):
                    return
            if not self._changed(changes, armed):
                return

    def _caught_up(self, armed: set[Path]) -> bool:
        """Catch up on every root; False when the watch must be set up again (or `stop`)."""
        caught = self.shown.catch_up(
            self.follower, [d for d, known in self.seen.items() if known is not None]
        )
        self.listed = caught.folders
        if caught.stopped:
            return False
        if not self.announced:
            self.announced = True
            click.echo(f"watching {', '.join(str(d) for d in self.dirs)}", err=True)
        return not (caught.folders - armed)  # a folder made while the watch was set up: watch it too

    def _changed(self, changes: set[tuple[Any, str]], armed: set[Path]) -> bool:
        """Follow the files `changes` name; False when the watch must be set up again (or `stop`)."""
        import watchfiles

        gone = {Path(p) for change, p in changes if change == watchfiles.Change.deleted}
        if gone & armed:  # a watched folder deleted: made again at once it may keep its inode, so
            return False  # its identity alone would not tell; watch again and catch up
        touched = {Path(p) for change, p in changes if change != watchfiles.Change.deleted}
        for path in sorted(p for p in touched if is_log_name(p.name) and not p.is_dir()):
            if self.shown.follow(self.follower, path) is None:
                return False
        opened = sorted(p for p in touched if p.is_dir() and (p in self.shown.unlisted or p not in armed))
        if opened:
            self.shown.unlisted.difference_update(opened)
            caught = self.shown.catch_up(self.follower, opened)
            self.listed = (self.listed or set()) | caught.folders
            return False  # watch again: a new or newly listable folder
        return roots(self.dirs) == self.seen  # a root made again: watch again


def folders(dirs: Sequence[Path]) -> set[Path]:
    """The roots that exist and every folder under them that can be listed (as absolute paths, as events
    name them)."""
    found: set[Path] = set()
    for root in dirs:
        if not root.exists():
            continue
        found.add(Path(os.path.abspath(root)))
        if root.is_dir():
            found.update(Path(os.path.abspath(folder)) for folder, _dirs, _names in os.walk(root))
    return found


def _without(listed: set[Path], gone: Sequence[Path]) -> set[Path]:
    """`listed` less the folders of the roots `gone` (deleted or replaced: walked again)."""
    absolute = [Path(os.path.abspath(r)) for r in gone]
    return {f for f in listed if not any(f.is_relative_to(g) for g in absolute)}


def _say_roots(before: Roots, after: Roots) -> None:
    for root, known in after.items():
        if known == before[root]:
            continue
        if known is None:
            click.echo(f"warning: {root} is gone: watching for it to come back", err=True)
        elif before[root] is None:
            click.echo(f"{root} is there: reading it", err=True)
        else:
            click.echo(f"{root} was replaced: reading it again", err=True)
