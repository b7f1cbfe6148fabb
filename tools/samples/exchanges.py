"""Exchange templates: how one user request unfolds into tool calls, results and replies."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tools.samples import outputs, prose
from tools.samples.codegen import addition, test_source
from tools.samples.outputs import Failure
from tools.samples.repo import Edit, Repo, test_path_for
from tools.samples.script import Day, Task
from tools.samples.transcript import Transcript


@dataclass(slots=True)
class Workday:
    """What the agent remembers while working through one day."""

    day: Day
    earlier: tuple[Day, ...]
    remaining: list[Task]
    done: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    commits: list[tuple[str, list[str]]] = field(default_factory=list)
    last_path: str = ""
    last_symbol: str = ""
    opening: str = ""


@dataclass(slots=True)
class Ctx:
    rng: random.Random
    log: Transcript
    repo: Repo
    work: Workday


# (expected, actual, diagnosis, fix line): the ways the sample's tests fail before they pass.
_BUGS: tuple[tuple[str, str, str, str], ...] = (
    (
        "900",
        "600",
        "The test expects the 15-minute TTL from Settings, but the code still had a 10-minute default "
        "baked in. The test is right; the default is wrong.",
        "ttl = settings.access_token_ttl  # no local default",
    ),
    (
        "401",
        "500",
        "TokenError escapes the route and becomes a 500. It should be turned into the uniform 401 body.",
        "except TokenError: return unauthorized_response()",
    ),
    (
        "'reuse'",
        "None",
        "The family was revoked before the rotated row was flushed, so the revoke reason never "
        "reached the row the test reads.",
        "session.flush()  # the revoke must see the rotated row",
    ),
    (
        "True",
        "False",
        "A naive datetime slipped in: comparing it with the UTC clock is off by the local offset.",
        "now = clock.now().astimezone(UTC)",
    ),
    (
        "2",
        "1",
        "The query filtered on revoked_at IS NULL after the update had already set it, so it undercounted.",
        "rows = list(candidates)  # materialize before the update",
    ),
    (
        "429",
        "200",
        "The limiter key only used the IP, so switching usernames got a fresh bucket.",
        'key = f"login:{ip}:{username.casefold()}"',
    ),
)

_REDIRECTS: dict[str, tuple[str, str]] = {
    "coverage": (
        "Stop, that's pulling in the integration tests and it'll take ages. Just the unit tests for refresh.py "
        "with coverage, please.",
        "uv run pytest tests/test_refresh.py --cov=authsvc.refresh --cov-report=term-missing",
    ),
    "loadtest": (
        "Wait, stop! That's pointed at staging, not local. Kill it and run it against localhost:8000 instead.",
        "uv run locust -f scripts/loadtest.py --headless -u 50 -r 10 -t 30s --host http://localhost:8000",
    ),
    "kubectl exec": (
        "Never mind the pods: ops just confirmed authsvc-7c9f-x7w2d was 40 s ahead and they've fixed chrony. "
        "Let's make the code tolerant of that instead.",
        "uv run pytest tests/test_tokens.py -k issued_at -q",
    ),
}


def run_task(ctx: Ctx, task: Task) -> None:
    _SHAPES[task.shape](ctx, task)


def _ask(ctx: Ctx, task: Task) -> None:
    text = task.ask.format(topic=ctx.work.day.topic, symbol=ctx.work.last_symbol or "the last change")
    if ctx.work.opening:
        text, ctx.work.opening = f"{text}\n\n{ctx.work.opening}", ""
    ctx.log.user(text)
    if ctx.work.last_path in ctx.repo.files and ctx.rng.random() < 0.3:
        _read(ctx, ctx.work.last_path)
    ctx.log.assistant(prose.answer(ctx.rng, ctx.work.day, task.ask, ctx.work.earlier))


def _read(ctx: Ctx, path: str) -> None:
    ctx.log.tool("file_read", {"path": path}, ctx.repo.numbered(path), seconds=0.5)


def _build(ctx: Ctx, task: Task, *, failing: bool = False) -> None:
    rng, log, repo = ctx.rng, ctx.log, ctx.repo
    log.user(task.ask)
    if rng.random() < 0.4:
        first = "read" if task.path in repo.files else "create"
        log.assistant(f"I'll {first} `{task.path}` first, then add `{task.symbol}` and tests for it.")
    code = addition(rng, task.path, task.symbol, ctx.work.day.reasons)
    _add_code(ctx, task.path, code, fresh_ok=False)
    test_path = test_path_for(task.path)
    if test_path:
        cases = ["", "_rejects_bad_input", "_logs_no_secrets", "_at_expiry_boundary"][: rng.randint(2, 4)]
        block = "".join(test_source(rng, f"test_{task.symbol}{case}") for case in cases)
        _add_code(ctx, test_path, block, fresh_ok=True)
    verified = _verify(ctx, task, test_path or task.path, failing)
    changes = [f"added `{task.symbol}` to `{task.path}`"]
    if test_path:
        changes.append(f"tests in `{test_path}` (happy path, bad input and edge cases)")
    language = "python" if task.path.endswith(".py") else ""
    log.assistant(prose.report(rng, ctx.work.day, changes, verified, prose.code_excerpt(code, language)))
    _remember(ctx, task.path, task.symbol, f"`{task.symbol}` in `{task.path}`")
    if test_path:
        ctx.work.touched.append(test_path)


def _add_code(ctx: Ctx, path: str, block: str, *, fresh_ok: bool) -> None:
    """file_write for a new file, file_read then file_edit for an existing one."""
    repo = ctx.repo
    if path not in repo.files:
        repo.ensure(path, f"{path.rsplit('/', 1)[-1]}: part of authsvc.")
        repo.files[path] = repo.files[path].rstrip("\n") + block + "\n"
        content = repo.files[path]
        output = f"File created successfully at: {path} ({content.count(chr(10))} lines)"
        ctx.work.created.append(path)
        ctx.log.tool("file_write", {"path": path, "content": content}, output, seconds=0.4)
        return
    if not fresh_ok or ctx.rng.random() < 0.5:
        _read(ctx, path)
    edit = repo.append(path, block)
    ctx.work.edits.append(edit)
    edit_input = {"path": path, "old_string": edit.old, "new_string": edit.new}
    lines = edit.new.count("\n") + 1
    ctx.log.tool(
        "file_edit", edit_input, f"The file {path} has been updated ({lines} lines in the new block)."
    )


def _verify(ctx: Ctx, task: Task, target: str, failing: bool) -> str:
    if not target.endswith(".py"):
        command, output = _check_command(target)
        ctx.log.tool("bash", {"command": command}, output, seconds=6)
        return f"`{command}` is clean."
    command = f"uv run pytest {target} -q" if target.startswith("tests/") else "uv run pytest -q"
    if failing:
        _fail_then_fix(ctx, task, target, command)
    tests = ctx.repo.test_names()
    ctx.log.tool("bash", {"command": command}, outputs.pytest_run(ctx.rng, _only(tests, target)), seconds=20)
    count = sum(len(v) for v in _only(tests, target).values())
    return f"`{command}` passes ({count} test function{'s' if count != 1 else ''})."


def _only(tests: dict[str, list[str]], target: str) -> dict[str, list[str]]:
    return {path: names for path, names in tests.items() if path == target} or tests


def _fail_then_fix(ctx: Ctx, task: Task, target: str, command: str) -> None:
    expected, actual, diagnosis, fix = ctx.rng.choice(_BUGS)
    failure = Failure(
        f"test_{task.symbol}",
        target if target.startswith("tests/") else "tests/test_app.py",
        expected,
        actual,
    )
    tests = _only(ctx.repo.test_names(), target)
    ctx.log.tool("bash", {"command": command}, outputs.pytest_run(ctx.rng, tests, [failure]), seconds=20)
    ctx.log.assistant(f"One failure. {diagnosis} Fixing it in `{task.path}`.")
    edit = (
        ctx.repo.replace_line(ctx.rng, task.path, task.symbol, fix) if task.path in ctx.repo.files else None
    )
    if edit is not None:
        ctx.work.edits.append(edit)
        edit_input = {"path": task.path, "old_string": edit.old, "new_string": edit.new}
        ctx.log.tool("file_edit", edit_input, f"The file {task.path} has been updated.")


def _check_command(path: str) -> tuple[str, str]:
    if path.endswith((".yml", ".yaml")):
        return f"actionlint {path}", ""
    if path.endswith(".md"):
        return f"uvx mdformat --check {path}", ""
    if path.endswith("Dockerfile"):
        return f"hadolint {path}", ""
    return f"git diff --check -- {path}", ""


def _remember(ctx: Ctx, path: str, symbol: str, done: str) -> None:
    work = ctx.work
    work.done.append(done)
    work.touched.append(path)
    work.last_path, work.last_symbol = path, symbol


def _new_file(ctx: Ctx, task: Task) -> None:
    ctx.log.user(task.ask)
    block = addition(ctx.rng, task.path, task.symbol, ctx.work.day.reasons)
    _add_code(ctx, task.path, block, fresh_ok=True)
    test_path = test_path_for(task.path)
    if test_path:
        _add_code(ctx, test_path, test_source(ctx.rng, f"test_{task.symbol}"), fresh_ok=True)
    verified = _verify(ctx, task, test_path or task.path, failing=False)
    changes = [f"new file `{task.path}` with `{task.symbol}`"] + ([f"`{test_path}`"] if test_path else [])
    ctx.log.assistant(prose.report(ctx.rng, ctx.work.day, changes, verified))
    _remember(ctx, task.path, task.symbol, f"created `{task.path}`")
    if test_path:
        ctx.work.touched.append(test_path)


def _explain(ctx: Ctx, task: Task) -> None:
    path = task.path or ctx.work.last_path
    ctx.log.user(task.ask.format(path=path, symbol=ctx.work.last_symbol))
    if path not in ctx.repo.files:
        _add_code_silently(ctx, path, ctx.work.last_symbol or "setup")
    _read(ctx, path)
    functions = _functions(ctx.repo, path)
    ctx.log.assistant(prose.walkthrough(ctx.rng, ctx.work.day, path, functions))
    ctx.work.last_path, ctx.work.last_symbol = path, functions[-1] if functions else ctx.work.last_symbol


def _functions(repo: Repo, path: str) -> list[str]:
    return [line[4 : line.index("(")] for line in repo.files[path].splitlines() if line.startswith("def ")]


def _add_code_silently(ctx: Ctx, path: str, symbol: str) -> None:
    """Code that exists because someone wrote it between sessions, outside this conversation."""
    ctx.repo.ensure(path, f"{path.rsplit('/', 1)[-1]}: part of authsvc.")
    ctx.repo.append(path, addition(ctx.rng, path, symbol, ctx.work.day.reasons))


def _search(ctx: Ctx, task: Task) -> None:
    rng = ctx.rng
    pattern = task.symbol.format(symbol=ctx.work.last_symbol or "settings")
    where = task.path or "src"
    ctx.log.user(task.ask.format(symbol=ctx.work.last_symbol or "settings"))
    if where.startswith("logs/"):
        output = outputs.structured_log(rng, rng.randint(60, 160), pattern)
    else:
        paths = [p for p in ctx.repo.files if p.startswith(where)] or [f"{where}/__init__.py"]
        output = outputs.grep_hits(rng, pattern, paths, rng.randint(0, 9))
    ctx.log.tool("bash", {"command": f'grep -rn "{pattern}" {where}'}, output, seconds=1)
    hits = output.count("\n") + 1 if output else 0
    summary = f"{hits} match{'es' if hits != 1 else ''} for `{pattern}` under `{where}`."
    if not hits:
        summary += " Nothing to fix there."
    ctx.log.assistant(summary + "\n\n" + prose.answer(rng, ctx.work.day, task.ask, ctx.work.earlier))


def _broken_tool(ctx: Ctx, task: Task) -> None:
    """The agent guesses a wrong path, the tool fails, and it recovers by looking first."""
    ctx.log.user(task.ask)
    directory, name = task.path.rsplit("/", 1)
    wrong = f"{directory}/{name.replace('.py', '')[:-1]}.py"
    error = f"Error: ENOENT: no such file or directory, open '/home/dev/authsvc/{wrong}'"
    ctx.log.tool("file_read", {"path": wrong}, error, is_error=True, seconds=0.3)
    ctx.log.assistant(
        f"`{wrong}` doesn't exist; I guessed the name. Listing the package instead of guessing again."
    )
    _add_code_silently(ctx, task.path, task.symbol)
    listing = "\n".join(sorted(p.rsplit("/", 1)[-1] for p in ctx.repo.files if p.startswith(directory + "/")))
    ctx.log.tool("bash", {"command": f"ls {directory}"}, listing, seconds=0.3)
    _read(ctx, task.path)
    ctx.log.assistant(prose.walkthrough(ctx.rng, ctx.work.day, task.path, _functions(ctx.repo, task.path)))
    ctx.work.last_path, ctx.work.last_symbol = task.path, task.symbol


def _migration_error(ctx: Ctx, task: Task) -> None:
    log = ctx.log
    log.user(task.ask)
    migration = "\n".join(
        [
            '"""initial schema"""',
            "import sqlalchemy as sa",
            "from alembic import op",
            "from sqlalchemy.dialects import postgresql",
            "",
            'revision = "0001"',
            "down_revision = None",
            "",
            "",
            "def upgrade() -> None:",
            "    op.create_table(",
            '        "users",',
            '        sa.Column("id", sa.Uuid(), primary_key=True),',
            '        sa.Column("username", postgresql.CITEXT(), nullable=False, unique=True),',
            '        sa.Column("password_hash", sa.Text(), nullable=False),',
            '        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),',
            '        sa.Column("disabled_at", sa.DateTime(timezone=True)),',
            "    )",
            "    op.create_table(",
            '        "refresh_tokens",',
            '        sa.Column("token_hash", sa.LargeBinary(32), primary_key=True),',
            '        sa.Column("family_id", sa.Uuid(), nullable=False),',
            '        sa.Column("user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE")),',
            '        sa.Column("generation", sa.Integer(), nullable=False),',
            '        sa.Column("rotated_at", sa.DateTime(timezone=True)),',
            '        sa.Column("revoked_at", sa.DateTime(timezone=True)),',
            "    )",
            "",
            "",
            "def downgrade() -> None:",
            '    op.drop_table("refresh_tokens")',
            '    op.drop_table("users")',
            "",
        ]
    )
    ctx.repo.files[task.path] = migration
    log.tool(
        "file_write", {"path": task.path, "content": migration}, f"File created successfully at: {task.path}"
    )
    log.tool(
        "bash",
        {"command": "uv run alembic upgrade head"},
        outputs.migration_failure(),
        is_error=True,
        seconds=4,
    )
    log.assistant(
        "The migration uses CITEXT for case-insensitive usernames, but the citext extension isn't enabled on the "
        "dev database. Enabling it inside the migration keeps every environment consistent."
    )
    old = "def upgrade() -> None:\n"
    new = old + '    op.execute("CREATE EXTENSION IF NOT EXISTS citext")\n'
    ctx.repo.files[task.path] = migration.replace(old, new)
    log.tool(
        "file_edit",
        {"path": task.path, "old_string": old, "new_string": new},
        f"The file {task.path} has been updated.",
    )
    ok = "\n".join(
        [
            "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.",
            "INFO  [alembic.runtime.migration] Will assume transactional DDL.",
            "INFO  [alembic.runtime.migration] Running upgrade  -> 0001, initial schema",
        ]
    )
    log.tool("bash", {"command": "uv run alembic upgrade head"}, ok, seconds=4)
    log.tool(
        "bash",
        {"command": "uv run alembic downgrade base && uv run alembic upgrade head"},
        ok.replace("Running upgrade  -> 0001", "Running downgrade 0001 -> ") + "\n" + ok.splitlines()[-1],
        seconds=6,
    )
    verified = "upgrade, downgrade and upgrade again all succeed on the dev database."
    changes = [f"`{task.path}` with users and refresh_tokens", "enables citext in the migration itself"]
    log.assistant(prose.report(ctx.rng, ctx.work.day, changes, verified))
    _remember(ctx, task.path, task.symbol, "initial Alembic migration")


def _interrupt(ctx: Ctx, task: Task) -> None:
    """A run the user cuts short: the exchange ends on a tool result, and the next one changes course."""
    rng, log = ctx.rng, ctx.log
    log.user(task.ask)
    command, partial = _interrupted_run(ctx, task.symbol)
    log.tool("bash", {"command": command, "timeout_s": 600}, partial, seconds=30)
    redirect, smaller = _REDIRECTS[task.symbol]
    log.user(redirect, pause=False)
    log.clock.tick(20, 90)
    if "pytest" in smaller:
        target = next((word for word in smaller.split() if word.startswith("tests/")), "tests")
        output = outputs.pytest_run(rng, _only(ctx.repo.test_names(), target))
    else:
        output = outputs.load_test_report(rng, rng.randint(300, 900), 3)
    log.tool("bash", {"command": smaller}, output, seconds=30)
    log.assistant(
        "Stopped the first run and ran the narrower one instead.\n\n"
        + prose.answer(rng, ctx.work.day, redirect, ctx.work.earlier)
    )


def _interrupted_run(ctx: Ctx, symbol: str) -> tuple[str, str]:
    """The command that gets cut short and the little it printed before the user stopped it."""
    stamp = ctx.log.clock.now.strftime("%Y-%m-%d %H:%M:%S")
    first_tests = next(iter(ctx.repo.test_names()), "tests/test_app.py")
    runs = {
        "coverage": ("uv run pytest --cov=authsvc --cov-report=term-missing", f"{first_tests} ...."),
        "loadtest": (
            "uv run locust -f scripts/loadtest.py --headless -u 200 -r 20 -t 60s "
            "--host https://auth.staging.internal",
            f"[{stamp},402] INFO/locust.main: Run time limit set to 60 seconds\n"
            f"[{stamp},403] INFO/locust.main: Starting Locust 2.24.0\n"
            f"[{stamp},417] INFO/locust.runners: Ramping to 200 users at a rate of 20.00 per second",
        ),
        "kubectl exec": (
            "for p in $(kubectl get pods -l app=authsvc -o name); do kubectl exec $p -- date -u +%s; done",
            f"{int(ctx.log.clock.now.timestamp())}\n{int(ctx.log.clock.now.timestamp())}",
        ),
    }
    return runs[symbol]


def _big(ctx: Ctx, task: Task) -> None:
    rng, log = ctx.rng, ctx.log
    log.user(task.ask)
    producers: dict[str, tuple[str, Callable[[], str]]] = {
        "pytest -vv": (
            "uv run pytest -vv",
            lambda: outputs.pytest_run(rng, ctx.repo.test_names(), verbose=True),
        ),
        "gh run view --log": (
            "gh run view 8231907745 --log --job integration",
            lambda: outputs.ci_log(rng, 47, "test_rotation_overlap", 160),
        ),
        "openapi": (
            "uv run python -m authsvc.openapi > docs/openapi.json && cat docs/openapi.json",
            lambda: outputs.openapi_document(rng, 110),
        ),
        "cProfile": (
            "uv run python -m cProfile -s cumulative scripts/profile_login.py --logins 100",
            lambda: outputs.profile_table(rng, 300),
        ),
        "locust": (
            "uv run locust -f scripts/loadtest.py --headless -u 200 -r 20 -t 60s --host http://localhost:8000",
            lambda: outputs.load_test_report(rng, 180, 140),
        ),
        "docker build": ("docker build -t platform/authsvc:0.1.0 .", lambda: outputs.docker_build(rng, 60)),
    }
    command, produce = producers[task.symbol]
    log.tool("bash", {"command": command}, produce(), seconds=90)
    log.assistant(prose.answer(rng, ctx.work.day, task.ask, ctx.work.earlier))


def _run_tests(ctx: Ctx, task: Task) -> None:
    ctx.log.user(task.ask)
    tests = ctx.repo.test_names()
    ctx.log.tool("bash", {"command": "uv run pytest -q"}, outputs.pytest_run(ctx.rng, tests), seconds=25)
    count = sum(len(v) for v in tests.values())
    ctx.log.assistant(f"All green: {count} test functions across {len(tests)} files.")


def _diff(ctx: Ctx, task: Task) -> None:
    ctx.log.user(task.ask)
    edits = ctx.work.edits[-3:]
    text = "\n".join(outputs.unified_diff(e.path, e.old, e.new, ctx.rng.randint(10, 120)) for e in edits)
    ctx.log.tool("bash", {"command": "git diff"}, text or "", seconds=0.5)
    if edits:
        ctx.log.assistant(
            f"The diff touches {len({e.path for e in edits})} file(s): "
            + ", ".join(sorted({f"`{e.path}`" for e in edits}))
            + ". Nothing unexpected in it; ready to commit."
        )
    else:
        ctx.log.assistant("The working tree is clean; nothing to diff since the last commit.")


def _commit(ctx: Ctx, task: Task) -> None:
    ctx.log.user(task.ask)
    work = ctx.work
    paths = sorted(set(work.touched)) or ["README.md"]
    subject = work.done[-1] if work.done else f"{work.day.topic}: tidy up"
    message = f"{work.day.topic}: {subject.replace('`', '')}"
    ctx.log.tool(
        "bash", {"command": "git status --short"}, outputs.git_status(paths, work.created), seconds=0.5
    )
    output = outputs.git_commit(ctx.rng, work.day.slug, message, paths)
    ctx.log.tool(
        "bash", {"command": f'git add {" ".join(paths)} && git commit -m "{message}"'}, output, seconds=1
    )
    work.commits.append((message, paths))
    work.created.clear()
    work.touched.clear()
    work.edits.clear()
    ctx.log.assistant(f'Committed: "{message}" ({len(paths)} file{"s" if len(paths) != 1 else ""}).')


def _lint(ctx: Ctx, task: Task) -> None:
    rng = ctx.rng
    ctx.log.user(task.ask)
    paths = [p for p in ctx.repo.files if p.endswith(".py")] or ["src/authsvc/app.py"]
    problems = rng.choice([0, 0, 1, 2, 3])
    command = "uv run ruff check . && uv run mypy"
    ctx.log.tool(
        "bash", {"command": command}, outputs.lint_run(rng, paths, problems), is_error=False, seconds=8
    )
    if problems:
        ctx.log.tool(
            "bash",
            {"command": "uv run ruff check --fix . && uv run ruff format ."},
            f"Found {problems} errors ({problems} fixed, 0 remaining).\n{rng.randint(2, 9)} files reformatted",
        )
        ctx.log.tool("bash", {"command": command}, outputs.lint_run(rng, paths, 0), seconds=8)
        ctx.log.assistant(f"{problems} lint issue(s), all auto-fixable; fixed and re-checked, now clean.")
    else:
        ctx.log.assistant("Clean: ruff and mypy (strict) report nothing.")


def _status(ctx: Ctx, task: Task) -> None:
    ctx.log.user(task.ask.format(topic=ctx.work.day.topic))
    left = [
        _headline(t.ask) for t in ctx.work.remaining if t.shape not in _FILLER_SHAPES and "{" not in t.ask
    ]
    ctx.log.assistant(prose.status(ctx.rng, ctx.work.day, ctx.work.done, left[:4]))


def _headline(ask: str) -> str:
    """A request's first sentence, for to-do lists."""
    return re.split(r"(?<=[.?!:])\s", ask, maxsplit=1)[0].rstrip(".:")


def _git_log(ctx: Ctx, task: Task) -> None:
    ctx.log.user(task.ask)
    today = ctx.log.clock.now.strftime("%a %b %d")
    output = outputs.git_log_stat(ctx.rng, ctx.work.commits, today)
    ctx.log.tool("bash", {"command": "git log --stat --since=midnight"}, output, seconds=0.5)
    count = len(ctx.work.commits)
    ctx.log.assistant(
        f"{count} commit{'s' if count != 1 else ''} today."
        + (" Want me to commit what's pending?" if ctx.work.touched else "")
    )


def _coverage(ctx: Ctx, task: Task) -> None:
    ctx.log.user(task.ask)
    modules = sorted(p for p in ctx.repo.files if p.startswith("src/") and p.endswith(".py"))
    command = "uv run pytest -q --cov=authsvc --cov-branch --cov-report=term-missing"
    output = (
        outputs.pytest_run(ctx.rng, ctx.repo.test_names())
        + "\n\n"
        + outputs.coverage_report(ctx.rng, modules)
    )
    ctx.log.tool("bash", {"command": command}, output, seconds=40)
    ctx.log.assistant(
        "Coverage by module is in the table. The gaps that matter are error branches, not happy paths; "
        + prose.answer(ctx.rng, ctx.work.day, task.ask, ctx.work.earlier)
    )


def _add_test(ctx: Ctx, task: Task) -> None:
    target = test_path_for(ctx.work.last_path)
    if target is None:  # the last change was YAML or docs: nothing to unit-test
        _run_tests(ctx, Task("run_tests", "Run the test suite again."))
        return
    symbol = ctx.work.last_symbol
    ctx.log.user(task.ask.format(symbol=symbol))
    _add_code(ctx, target, test_source(ctx.rng, f"test_{symbol.strip('_')}_error_path"), fresh_ok=True)
    verified = _verify(ctx, task, target, failing=False)
    changes = [f"`test_{symbol.strip('_')}_error_path` in `{target}`"]
    ctx.log.assistant(prose.report(ctx.rng, ctx.work.day, changes, verified))
    ctx.work.touched.append(target)


_FILLER_SHAPES = frozenset(
    {"run_tests", "diff", "commit", "lint", "status", "git_log", "coverage", "add_test"}
)

_SHAPES: dict[str, Callable[[Ctx, Task], None]] = {
    "ask": _ask,
    "build": _build,
    "build_fail": lambda ctx, task: _build(ctx, task, failing=True),
    "new_file": _new_file,
    "explain": _explain,
    "search": _search,
    "broken_tool": _broken_tool,
    "migration_error": _migration_error,
    "interrupt": _interrupt,
    "big": _big,
    "run_tests": _run_tests,
    "diff": _diff,
    "commit": _commit,
    "lint": _lint,
    "status": _status,
    "git_log": _git_log,
    "coverage": _coverage,
    "add_test": _add_test,
}
