"""Fabricated command output: pytest runs, linters, git, profiles, CI logs, load tests.

Outputs follow the real tools' layouts closely enough that a reader (or a summarizer) recognises them,
and their sizes vary the way real ones do: a few lines for git, tens of kilobytes for a CI log.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

_WIDTH = 80


@dataclass(frozen=True, slots=True)
class Failure:
    test: str
    path: str
    expected: str
    actual: str


def pytest_run(
    rng: random.Random,
    tests: dict[str, list[str]],
    failures: Sequence[Failure] = (),
    *,
    verbose: bool = False,
) -> str:
    """A pytest session over the repo's test functions; some are parametrized, as real suites are."""
    cases = {path: _cases(names) for path, names in tests.items()}
    for failure in failures:
        cases.setdefault(failure.path, [])
    total = sum(max(len(c), 1) for c in cases.values())
    python = " -- /home/dev/authsvc/.venv/bin/python" if verbose else ""
    lines = [
        _rule("test session starts"),
        f"platform linux -- Python 3.11.8, pytest-8.1.1, pluggy-1.4.0{python}",
        "rootdir: /home/dev/authsvc",
        "configfile: pyproject.toml",
        "plugins: anyio-4.3.0, hypothesis-6.99.6, cov-4.1.0",
        f"collected {total} item{'s' if total != 1 else ''}",
        "",
    ]
    done = 0
    for path, names in cases.items():
        outcomes = [(name, "PASSED") for name in names]
        for failure in (f for f in failures if f.path == path):
            index = names.index(failure.test) if failure.test in names else rng.randrange(max(len(names), 1))
            outcomes[index : index + 1] = [(failure.test, "FAILED")]
        done += len(outcomes)
        progress = f"[{100 * done // max(total, 1):>3}%]"
        if verbose:
            lines += [f"{path}::{name} {outcome}".ljust(_WIDTH - 7) + progress for name, outcome in outcomes]
        else:
            marks = "".join("F" if outcome == "FAILED" else "." for _, outcome in outcomes)
            lines.append(f"{path} {marks}".ljust(_WIDTH - 7) + progress)
    lines.append("")
    if failures:
        lines += _failure_section(failures)
    seconds = rng.uniform(1.2, 6.5) * (1 + total / 120)
    summary = f"{len(failures)} failed, {total - len(failures)} passed" if failures else f"{total} passed"
    lines.append(_rule(f"{summary} in {seconds:.2f}s"))
    return "\n".join(lines)


def _cases(names: list[str]) -> list[str]:
    """Every third test is parametrized over a few ids."""
    ids = ["rs256", "expired", "wrong-audience", "empty", "unicode", "boundary"]
    cases = []
    for index, name in enumerate(names):
        if index % 3 == 2:
            cases += [f"{name}[{ids[(index + k) % len(ids)]}]" for k in range(3)]
        else:
            cases.append(name)
    return cases


def _failure_section(failures: Sequence[Failure]) -> list[str]:
    lines = [_rule("FAILURES")]
    for failure in failures:
        lines += [
            _rule(failure.test, "_"),
            "",
            f"    def {failure.test}(clock: FrozenClock, settings: Settings) -> None:",
            "        result = subject(clock, settings)",
            f">       assert result == {failure.expected}",
            f"E       AssertionError: assert {failure.actual} == {failure.expected}",
            "",
            f"{failure.path}:{40 + len(failure.test)}: AssertionError",
        ]
    lines.append(_rule("short test summary info"))
    lines += [
        f"FAILED {f.path}::{f.test} - AssertionError: assert {f.actual} == {f.expected}" for f in failures
    ]
    return lines


def _rule(title: str, fill: str = "=") -> str:
    return f" {title} ".center(_WIDTH, fill)


def lint_run(rng: random.Random, paths: Sequence[str], problems: int) -> str:
    if not problems:
        return f"All checks passed!\nSuccess: no issues found in {len(paths) + 6} source files"
    codes = [
        ("F401", "`typing.Protocol` imported but unused"),
        ("E501", "Line too long (118 > 110)"),
        ("B008", "Do not perform function call `Depends` in argument defaults"),
        ("UP017", "Use `datetime.UTC` alias"),
        ("SIM108", "Use ternary operator instead of `if`-`else`-block"),
    ]
    lines = []
    for _ in range(problems):
        code, text = rng.choice(codes)
        lines.append(f"{rng.choice(paths)}:{rng.randint(3, 140)}:{rng.randint(1, 60)}: {code} {text}")
    lines.append(f"Found {problems} error{'s' if problems > 1 else ''}.")
    lines.append(f"[*] {max(problems - 1, 0)} fixable with the `--fix` option.")
    return "\n".join(lines)


def git_diff_stat(rng: random.Random, paths: Sequence[str]) -> str:
    lines = []
    inserted = deleted = 0
    for path in paths:
        plus, minus = rng.randint(2, 80), rng.randint(0, 25)
        inserted += plus
        deleted += minus
        lines.append(f" {path.ljust(44)} | {plus + minus:>3} " + "+" * min(plus, 30) + "-" * min(minus, 12))
    lines.append(
        f" {len(paths)} file{'s' if len(paths) != 1 else ''} changed, {inserted} insertions(+), {deleted} deletions(-)"
    )
    return "\n".join(lines)


def git_commit(rng: random.Random, branch: str, message: str, paths: Sequence[str]) -> str:
    sha = f"{rng.getrandbits(28):07x}"
    return f"[{branch} {sha}] {message}\n" + git_diff_stat(rng, paths).splitlines()[-1]


def unified_diff(path: str, old: str, new: str, start: int) -> str:
    old_lines, new_lines = old.splitlines(), new.splitlines()
    header = [
        f"diff --git a/{path} b/{path}",
        "index 3f1c2aa..8b0d9e4 100644",
        f"--- a/{path}",
        f"+++ b/{path}",
        f"@@ -{start},{len(old_lines)} +{start},{len(new_lines)} @@",
    ]
    body = [f"-{line}" for line in old_lines if line not in new_lines]
    body += [f" {line}" if line in old_lines else f"+{line}" for line in new_lines]
    return "\n".join(header + body)


def grep_hits(rng: random.Random, pattern: str, paths: Sequence[str], count: int) -> str:
    if not paths or not count:
        return ""
    lines = []
    for _ in range(count):
        path = rng.choice(paths)
        context = rng.choice(
            [
                f"    value = {pattern}",
                f"    log.debug('loaded', extra={{'kid': key.kid}})  # {pattern}",
                f"def uses_{rng.randint(1, 9)}(): return {pattern}",
                f"        {pattern}(settings)",
                f"# TODO: review {pattern}",
            ]
        )
        lines.append(f"{path}:{rng.randint(5, 220)}:{context}")
    return "\n".join(sorted(lines))


def profile_table(rng: random.Random, rows: int) -> str:
    functions = [
        ("passwords.py", "verify_password"),
        ("bcrypt/__init__.py", "checkpw"),
        ("bcrypt/__init__.py", "hashpw"),
        ("sqlalchemy/engine/base.py", "execute"),
        ("sqlalchemy/pool/impl.py", "_do_get"),
        ("threading.py", "wait"),
        ("jwt/api_jws.py", "encode"),
        ("cryptography/hazmat/primitives/asymmetric/rsa.py", "sign"),
        ("starlette/routing.py", "handle"),
        ("json/encoder.py", "encode"),
        ("refresh.py", "new_refresh_token"),
        ("users.py", "find_user_by_username"),
        ("app.py", "token_endpoint"),
        ("asyncio/base_events.py", "_run_once"),
        ("selectors.py", "select"),
        ("ssl.py", "read"),
        ("logging/__init__.py", "handle"),
        ("uuid.py", "uuid4"),
        ("secrets.py", "token_urlsafe"),
        ("hashlib", "sha256"),
    ]
    lines = [
        f"         {rng.randint(1_500_000, 3_000_000)} function calls ({rng.randint(1_200_000, 1_400_000)} primitive calls)"
        f" in {rng.uniform(90, 120):.3f} seconds",
        "",
        "   Ordered by: cumulative time",
        "",
        "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)",
    ]
    cumulative = 118.0
    for index in range(rows):
        module, func = functions[index % len(functions)] if index < len(functions) else rng.choice(functions)
        calls = rng.choice([100, 200, 400, 1000, 2000, 12000, 45000])
        cumulative *= rng.uniform(0.86, 0.99) if index else 1.0
        tottime = cumulative * rng.uniform(0.01, 0.9)
        lines.append(
            f"{calls:>9} {tottime:>8.3f} {tottime / calls:>8.5f} {cumulative:>8.3f} {cumulative / calls:>8.5f} "
            f"{module}:{rng.randint(10, 900)}({func}{'' if index < len(functions) else f'_{index}'})"
        )
    return "\n".join(lines)


def ci_log(rng: random.Random, packages: int, failing_test: str | None, tests: int) -> str:
    names = [
        "fastapi",
        "starlette",
        "pydantic",
        "pydantic-core",
        "sqlalchemy",
        "alembic",
        "psycopg",
        "psycopg-binary",
        "redis",
        "pyjwt",
        "cryptography",
        "cffi",
        "pycparser",
        "argon2-cffi",
        "argon2-cffi-bindings",
        "bcrypt",
        "uvicorn",
        "h11",
        "anyio",
        "sniffio",
        "idna",
        "typing-extensions",
        "annotated-types",
        "click",
        "pytest",
        "pytest-cov",
        "coverage",
        "hypothesis",
        "sortedcontainers",
        "attrs",
        "iniconfig",
        "pluggy",
        "packaging",
        "mypy",
        "mypy-extensions",
        "ruff",
        "httpx",
        "httpcore",
        "certifi",
        "greenlet",
        "mako",
        "markupsafe",
        "structlog",
        "prometheus-client",
        "python-multipart",
        "email-validator",
        "dnspython",
    ]
    clock = [9, 14, 2]
    lines = []

    def stamp(text: str) -> None:
        clock[2] += rng.randint(0, 3)
        if clock[2] >= 60:
            clock[1], clock[2] = clock[1] + 1, clock[2] - 60
        lines.append(
            f"integration\tRun tests\t2024-03-12T{clock[0]:02d}:{clock[1]:02d}:{clock[2]:02d}.{rng.randint(0, 9999999):07d}Z {text}"
        )

    stamp("##[group]Run uv sync --frozen")
    stamp("Using CPython 3.11.8 interpreter at: /opt/hostedtoolcache/Python/3.11.8/x64/bin/python3")
    stamp("Creating virtual environment at: .venv")
    stamp(f"Resolved {packages} packages in {rng.randint(3, 40)}ms")
    for index in range(packages):
        name = names[index % len(names)] + ("" if index < len(names) else f"-plugin-{index}")
        stamp(f" + {name}=={rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 12)}")
    stamp("##[endgroup]")
    stamp("##[group]Run uv run pytest -m integration")
    for index in range(tests):
        if failing_test and index == tests // 2:
            stamp(f"tests/test_keys.py::{failing_test} FAILED")
        else:
            stamp(f"tests/test_flow.py::test_integration_{index:03d} PASSED")
    if failing_test:
        stamp(
            f"FAILED tests/test_keys.py::{failing_test} - AssertionError: token rejected 1.2s before overlap end"
        )
        stamp(f"=========== 1 failed, {tests - 1} passed in {rng.uniform(40, 90):.2f}s ===========")
        stamp("##[error]Process completed with exit code 1.")
    return "\n".join(lines)


def load_test_report(rng: random.Random, p99_ms: int, rows: int) -> str:
    header = "Type     Name                                  # reqs      # fails |    Avg     Min     Max    Med |   req/s"
    lines = [header, "-" * len(header)]
    for index in range(rows):
        avg = p99_ms * rng.uniform(0.2, 0.5)
        lines.append(
            f"POST     /token{'' if index == 0 else f'?batch={index}'}".ljust(48)
            + f"{rng.randint(1000, 12000):>8} {rng.randint(0, 40):>6}(0.00%) | {avg:>6.0f} {avg / 6:>7.0f} "
            f"{p99_ms * 1.6:>7.0f} {avg * 0.9:>6.0f} | {rng.uniform(150, 210):>7.2f}"
        )
    lines += [
        "",
        "Response time percentiles (approximated)",
        "Type     Name                                      50%    66%    75%    80%    90%    95%    98%    99%  99.9%",
        f"POST     /token                                  {p99_ms // 4:>5}  {p99_ms // 3:>5}  {p99_ms // 2:>5}"
        f"  {p99_ms // 2:>5}  {int(p99_ms * 0.7):>5}  {int(p99_ms * 0.8):>5}  {int(p99_ms * 0.9):>5}  {p99_ms:>5}"
        f"  {int(p99_ms * 1.5):>5}",
    ]
    return "\n".join(lines)


def openapi_document(rng: random.Random, paths: int) -> str:
    routes = [
        "/token",
        "/token/refresh",
        "/logout",
        "/healthz",
        "/readyz",
        "/.well-known/jwks.json",
        "/password/reset",
    ]
    parts = ['{\n  "openapi": "3.1.0",\n  "info": {"title": "authsvc", "version": "0.1.0"},\n  "paths": {']
    entries = []
    for index in range(paths):
        route = routes[index % len(routes)] + ("" if index < len(routes) else f"/v{index}")
        entries.append(
            f'    "{route}": {{\n      "post": {{\n        "summary": "{route.strip("/").replace("/", " ") or "root"}",\n'
            '        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/'
            f'Req{index}"}}}}}},\n        "responses": {{\n'
            '          "200": {"description": "OK"},\n          "401": {"description": "Unauthorized"},\n'
            '          "429": {"description": "Too Many Requests", "headers": {"Retry-After": {"schema": {"type": '
            '"integer"}}}}\n        }\n      }\n    }'
        )
    parts.append(",\n".join(entries))
    parts.append("  }\n}")
    return "\n".join(parts)


def docker_build(rng: random.Random, steps: int) -> str:
    lines = ['#0 building with "default" instance using docker driver', ""]
    for index in range(1, steps + 1):
        lines.append(f"#{index} [runtime {index}/{steps}] RUN step {index}")
        for _ in range(rng.randint(2, 12)):
            lines.append(
                f"#{index} {rng.uniform(0, 30):.3f} Downloading wheel {rng.getrandbits(32):08x} ({rng.randint(10, 900)} kB)"
            )
        lines.append(f"#{index} DONE {rng.uniform(0.1, 9):.1f}s")
        lines.append("")
    lines.append(f"#{steps + 1} exporting to image")
    lines.append(f"#{steps + 1} writing image sha256:{rng.getrandbits(256):064x} done")
    lines.append(f"#{steps + 1} naming to docker.io/platform/authsvc:0.1.0 done")
    return "\n".join(lines)


def structured_log(rng: random.Random, count: int, event: str) -> str:
    """JSON log lines as exported from the log store, newest last."""
    lines = []
    minute = 0
    for _ in range(count):
        minute += rng.randint(0, 7)
        family = f"{rng.getrandbits(64):016x}"
        pod = rng.choice(["authsvc-7c9f-2kq8x", "authsvc-7c9f-m4lzp", "authsvc-7c9f-x7w2d"])
        name = event if rng.random() < 0.6 else rng.choice(["refresh_rotated", "token_issued", "login_ok"])
        lines.append(
            f'{{"ts": "2024-03-14T{9 + minute // 60:02d}:{minute % 60:02d}:{rng.randint(0, 59):02d}Z", '
            f'"level": "{"warning" if name == event else "info"}", "event": "{name}", "pod": "{pod}", '
            f'"family_id": "{family}", "generation": {rng.randint(1, 40)}, "user_agent": "Mozilla/5.0"}}'
        )
    return "\n".join(lines)


def migration_failure() -> str:
    return "\n".join(
        [
            "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.",
            "INFO  [alembic.runtime.migration] Will assume transactional DDL.",
            "INFO  [alembic.runtime.migration] Running upgrade  -> 0001, initial schema",
            "Traceback (most recent call last):",
            '  File "/home/dev/authsvc/.venv/lib/python3.11/site-packages/sqlalchemy/engine/base.py", line 1969, '
            "in _exec_single_context",
            "    self.dialect.do_execute(",
            '  File "/home/dev/authsvc/.venv/lib/python3.11/site-packages/sqlalchemy/engine/default.py", line 922, '
            "in do_execute",
            "    cursor.execute(statement, parameters)",
            '  File "/home/dev/authsvc/.venv/lib/python3.11/site-packages/psycopg/cursor.py", line 732, in execute',
            "    raise ex.with_traceback(None)",
            'psycopg.errors.UndefinedObject: type "citext" does not exist',
            "LINE 3:     username CITEXT NOT NULL,",
            "                     ^",
            "",
            "The above exception was the direct cause of the following exception:",
            "",
            'sqlalchemy.exc.ProgrammingError: (psycopg.errors.UndefinedObject) type "citext" does not exist',
            "[SQL: ",
            "CREATE TABLE users (",
            "    id UUID NOT NULL, ",
            "    username CITEXT NOT NULL, ",
            "    password_hash TEXT NOT NULL, ",
            "    created_at TIMESTAMP WITH TIME ZONE DEFAULT now() NOT NULL, ",
            "    disabled_at TIMESTAMP WITH TIME ZONE, ",
            "    PRIMARY KEY (id)",
            ")",
            "]",
            "(Background on this error at: https://sqlalche.me/e/20/f405)",
            "exit code: 1",
        ]
    )


def coverage_report(rng: random.Random, modules: Sequence[str]) -> str:
    header = "Name".ljust(40) + "Stmts   Miss Branch BrPart  Cover   Missing"
    lines = [
        "---------- coverage: platform linux, python 3.11.8-final-0 ----------",
        header,
        "-" * len(header),
    ]
    total_statements = total_missed = 0
    for module in modules:
        statements = rng.randint(20, 220)
        missed = rng.randint(0, statements // 6)
        total_statements += statements
        total_missed += missed
        gaps = ", ".join(
            f"{start}-{start + rng.randint(1, 6)}" for start in sorted(rng.sample(range(20, 400), 3))
        )
        cover = 100 * (statements - missed) // statements
        lines.append(
            module.ljust(40)
            + f"{statements:>5} {missed:>6} {statements // 4:>6} {rng.randint(0, 6):>6} {cover:>5}%   "
            + (gaps if missed else "")
        )
    lines.append("-" * len(header))
    total_cover = 100 * (total_statements - total_missed) // max(total_statements, 1)
    lines.append(
        "TOTAL".ljust(40) + f"{total_statements:>5} {total_missed:>6}" + " " * 14 + f"{total_cover:>5}%"
    )
    return "\n".join(lines)


def git_log_stat(rng: random.Random, commits: Sequence[tuple[str, Sequence[str]]], day: str) -> str:
    entries = []
    for hour, (message, paths) in enumerate(reversed(commits)):
        entries.append(
            f"commit {rng.getrandbits(160):040x}\n"
            "Author: Dev <dev@platform.internal>\n"
            f"Date:   {day} {17 - hour:02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} 2024 +0100\n\n"
            f"    {message}\n\n{git_diff_stat(rng, paths)}"
        )
    return "\n\n".join(entries)


def git_status(paths: Sequence[str], new: Sequence[str]) -> str:
    return "\n".join(f"{'??' if path in new else ' M'} {path}" for path in paths)
