"""An agent id taken from where a log lives, for logs that do not name their own session.

An aider chat history sits in its project's root and names no session; a Copilot agent transcript names
its session in the folder (`session-state/<id>/events.jsonl`) or the file (`<id>.jsonl`), and not always
inside. Their readers take the agent from the path when `--agent` names none. An input read from stdin
has no path: it needs `--agent`.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import PurePath

from summarizer.domain.agent_ids import MAX_AGENT_ID_CHARS
from summarizer.ingest.problems import Problem

STDIN_LABEL = "-"


def label_of(where: str) -> str:
    """The input's name in a position such as `path/to/file:12` (the line number taken off)."""
    label, _, line = where.rpartition(":")
    return label if label and line.isdigit() else where


def agent_from_name(name: str) -> str:
    """A folder or file name as an agent id: the name itself, or, over the agent-id length limit, its
    start and a hash of the whole, so two long names never share an agent."""
    if len(name) <= MAX_AGENT_ID_CHARS:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{name[: MAX_AGENT_ID_CHARS - len(digest) - 1]}~{digest}"


def folder_agent(where: str, what: str) -> str:
    """The name of the folder holding the input named in `where` (a relative name is taken from the
    working directory); a Problem for stdin."""
    label = label_of(where)
    name = PurePath(os.path.abspath(label)).parent.name if label != STDIN_LABEL else ""
    if not name.strip():
        raise Problem(f"no agent: {what}, and the input has no folder to name it; pass --agent")
    return agent_from_name(name.strip())


def file_agent(where: str, what: str, folder_files: frozenset[str]) -> str:
    """The input file's name without its suffix, or its folder's name when the file's own name is one of
    `folder_files` (a fixed name inside a folder named for the session); a Problem for stdin."""
    label = label_of(where)
    if label == STDIN_LABEL:
        raise Problem(f"no agent: {what}; pass --agent")
    path = PurePath(label)
    name = path.parent.name if path.name in folder_files else path.stem
    if not name.strip():
        raise Problem(f"no agent: {what}; pass --agent")
    return agent_from_name(name.strip())


def stdin_agent(agent: str | None, what: str) -> str:
    """`agent` (--agent, or the one the input's path names); a Problem when there is none, the `what`
    ("the trajectory") being read from stdin."""
    if agent is None:
        raise Problem(f"no agent: {what} is read from stdin; pass --agent")
    return agent
