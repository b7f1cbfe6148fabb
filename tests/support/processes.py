"""Looking at processes by pid through /proc (Linux): alive or not, and whose child."""

from __future__ import annotations

from pathlib import Path


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # after "pid (comm) ": state, ppid, ...


def alive(pid: int) -> bool:
    """Running or sleeping; a zombie (dead, not yet reaped by an init that may never reap it) is not alive."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def parent_of(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[1]) if fields is not None else None


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and parent_of(int(entry.name)) == pid and alive(int(entry.name)):
            found.append(int(entry.name))
    return found
