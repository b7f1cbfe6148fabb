"""`summarizer flower`: Flower, Celery's web monitor, for the summary workers, behind basic auth.

Flower shows task arguments (agent ids) and can shut workers down from its API, so it does not start
without credentials unless `--insecure` says this is a local try-out. The credentials reach Flower through
its environment (FLOWER_BASIC_AUTH), never its command line, where `ps` would show them to every local user.

Like `summarizer worker`, this hands over to `celery -A workers.app flower ...` with exec, so the
`summarizer` package never imports `workers` and signals reach Flower directly.

Flower 2.x leaves `/metrics` and `/healthcheck` open even with basic auth on: keep the port off untrusted
networks (bind 127.0.0.1, the default, or put it behind a proxy that scrapes over a private network).
"""

from __future__ import annotations

import errno
import os
import socket
import sys
from collections.abc import Mapping, Sequence

import click

from summarizer.broker.celery_config import CELERY_APP
from summarizer.cli.runtime import current_settings
from summarizer.settings import SettingsError

SETTING_VARIABLE = "SUMMARIZER_FLOWER_BASIC_AUTH"
FLOWER_VARIABLE = "FLOWER_BASIC_AUTH"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})

# Flower's own defaults keep every task it ever saw (100 000) and, if persistent, a shelve file on disk.
# A fleet sends a wake-up per eviction batch, so a smaller in-memory window is enough to debug from and
# keeps Flower's memory flat; offline workers (restarted containers get new names) leave the dashboard and
# the Prometheus series after ten minutes. The tasks page shows the arguments (the agent id) and the result
# (the update's outcome), which say more about a summary task than its uuid. Set as defaults in the
# environment, so the user's own FLOWER_* variables win.
FLOWER_DEFAULTS: Mapping[str, str] = {
    "FLOWER_PERSISTENT": "False",
    "FLOWER_MAX_TASKS": "10000",
    "FLOWER_PURGE_OFFLINE_WORKERS": "600",
    "FLOWER_TASKS_COLUMNS": "name,args,state,result,received,runtime,worker,uuid",
}


def _entry_problem(entry: str) -> str | None:
    user, colon, password = entry.partition(":")
    if not entry:
        return "is empty"
    if not colon:
        return "has no ':' between user and password"
    if not user.strip():
        return "has an empty user"
    if not password:
        return "has an empty password"
    return None


def parse_basic_auth(value: str, variable: str) -> list[str]:
    """The `user:password` entries of `value`, or SettingsError naming the variable and the bad entry.

    Flower splits FLOWER_BASIC_AUTH on commas, so a comma cannot be part of a password; a colon can (only
    the first one separates the user). The message never repeats the value: it holds passwords.
    """
    entries = [entry.strip() for entry in value.split(",")]
    for position, entry in enumerate(entries, start=1):
        problem = _entry_problem(entry)
        if problem:
            where = f"entry {position} of {variable}" if len(entries) > 1 else variable
            raise SettingsError(
                f"{where} {problem}; expected user:password (several separated by commas, no commas in passwords)"
            )
    return entries


def credentials_from(setting: str, environ: Mapping[str, str]) -> list[str]:
    """SUMMARIZER_FLOWER_BASIC_AUTH if set, else Flower's own FLOWER_BASIC_AUTH; [] when neither is."""
    if setting.strip():
        return parse_basic_auth(setting, SETTING_VARIABLE)
    own = environ.get(FLOWER_VARIABLE, "")
    if own.strip():
        return parse_basic_auth(own, FLOWER_VARIABLE)
    return []


def flower_environment(environ: Mapping[str, str], credentials: Sequence[str]) -> dict[str, str]:
    """The environment Flower runs with: our defaults under the user's FLOWER_*, and the credentials."""
    env = {**FLOWER_DEFAULTS, **environ}
    env.pop(SETTING_VARIABLE, None)  # Flower reads FLOWER_BASIC_AUTH; one copy of the secret is enough
    if credentials:
        env[FLOWER_VARIABLE] = ",".join(credentials)
    else:
        env.pop(FLOWER_VARIABLE, None)  # a blank value would otherwise become one empty credential
    return env


def flower_argv(port: int, address: str, extra: Sequence[str]) -> list[str]:
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        CELERY_APP,
        "flower",
        f"--port={port}",
        f"--address={address}",
        *extra,
    ]


def _exec(argv: list[str], env: dict[str, str]) -> None:
    """Replace this process with Flower (a seam for tests, which must not exec)."""
    os.execve(argv[0], argv, env)


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.option("--port", type=click.IntRange(0, 65535), default=5555, show_default=True)
@click.option(
    "--address",
    default="127.0.0.1",
    show_default=True,
    help="Interface to listen on; 0.0.0.0 exposes Flower (and its open /metrics) to the network.",
)
@click.option(
    "--insecure",
    is_flag=True,
    help="Start without basic auth when no credentials are set (a local try-out only).",
)
@click.argument("flower_args", nargs=-1, type=click.UNPROCESSED)
def flower(port: int, address: str, insecure: bool, flower_args: tuple[str, ...]) -> None:
    """Run Flower, the web monitor, for the summary workers (needs SUMMARIZER_FLOWER_BASIC_AUTH).

    Extra arguments go to Flower as they are, e.g. `summarizer flower -- --url_prefix=flower`.
    """
    settings = current_settings()
    if not settings.broker_url:
        raise SettingsError(
            "Flower needs SUMMARIZER_BROKER_URL (e.g. redis://...): the embedded broker sends no task events"
        )
    if any(arg.lstrip("-").replace("-", "_").startswith("basic_auth") for arg in flower_args):
        raise click.UsageError(
            f"pass credentials in {SETTING_VARIABLE}, not on the command line (where `ps` shows them)"
        )
    credentials = credentials_from(settings.flower_basic_auth, os.environ)
    if not credentials:
        if not insecure:
            raise click.UsageError(
                f"Flower refuses to start without basic auth: set {SETTING_VARIABLE}=user:password "
                f"(or {FLOWER_VARIABLE}), or pass --insecure for a local try-out"
            )
        exposed = "" if address in LOOPBACK else f" and listening on {address}, reachable from the network"
        click.echo(f"warning: Flower runs WITHOUT authentication (--insecure){exposed}", err=True)
    problem = port_problem(address, port)
    if problem:
        raise click.ClickException(problem)
    _exec(flower_argv(port, address, flower_args), flower_environment(os.environ, credentials))


def port_problem(address: str, port: int) -> str | None:
    """Why Flower could not listen on address:port (in use, not allowed), or None when it can."""
    if port == 0:
        return None
    try:
        infos = socket.getaddrinfo(address or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"cannot listen on {address}:{port}: {exc.strerror}"
    family, kind, proto, _, sockaddr = infos[0]
    with socket.socket(family, kind, proto) as probe:
        if os.name != "nt":
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Flower's server does
        try:
            probe.bind(sockaddr)
        except OSError as exc:
            reason = "already in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
            return f"cannot listen on {address}:{port}: {reason} (choose another with --port)"
    return None
