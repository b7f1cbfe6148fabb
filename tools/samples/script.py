"""What the sample agent works on, day by day: the story the generator tells.

A summarizer is only tested well by a conversation whose topics drift, so each day has its own theme,
files, reasoning and requests, and later days refer back to earlier ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Task:
    """One user request and the shape of the work it leads to.

    `shape` picks an exchange template (see `exchanges.py`); `path` is the main file and `symbol` the
    function the work adds to it.
    """

    shape: str
    ask: str
    path: str = ""
    symbol: str = ""


@dataclass(frozen=True, slots=True)
class Day:
    slug: str
    topic: str
    reasons: tuple[str, ...]
    tasks: tuple[Task, ...]
    mark: bool = False
    clear_before: bool = False
    extra_words: tuple[str, ...] = field(default_factory=tuple)


SYSTEM_PROMPT = """You are a senior software engineer working as a coding agent in the user's repository \
(/home/dev/authsvc). You can read files, edit files and run shell commands through tools:

- file_read(path): returns the file with line numbers.
- file_write(path, content): creates or replaces a file.
- file_edit(path, old_string, new_string): replaces one exact occurrence of old_string.
- bash(command, timeout_s=120): runs a command in the repository root and returns stdout, stderr and the exit code.

Working agreements:
1. Read before you edit. Never guess a file's contents.
2. Keep changes small and run the relevant tests after every change; run the full suite before a commit.
3. Prefer the standard library and the dependencies already in pyproject.toml; ask before adding one.
4. Never print, log or commit secrets (signing keys, database passwords, tokens).
5. When a command fails, read the error, explain it in one sentence, and fix the cause rather than the symptom.
6. When you finish a request, say what changed, what you verified, and what is left.

The project is authsvc, the authentication service for the platform: FastAPI, PostgreSQL via SQLAlchemy 2 and \
Alembic, Redis for rate limiting, PyJWT for tokens. Python 3.11. Tests use pytest. CI runs on GitHub Actions."""

DAYS: tuple[Day, ...] = (
    Day(
        slug="jwt-access-tokens",
        topic="JWT access tokens",
        reasons=(
            "RS256 lets the other services verify tokens with the public key only, so the private key never "
            "leaves authsvc.",
            "Access tokens stay short-lived (15 minutes) so that we can avoid a revocation list for them.",
            "The subject claim is the immutable user id, not the email, because emails change.",
            "Every token carries iss, aud, iat, exp and jti; jti gives us something to log without logging "
            "the token itself.",
            "Settings are read once at startup and passed down explicitly, which keeps the token code pure and "
            "easy to test.",
            "A Clock protocol instead of datetime.now() makes expiry tests deterministic.",
        ),
        tasks=(
            Task(
                "ask",
                "We're starting the auth service for the platform today: Python 3.11, FastAPI, Postgres. "
                "Before any code, outline what we need for JWT access tokens and, later, refresh tokens.",
            ),
            Task(
                "new_file",
                "Scaffold the package: src/authsvc/app.py with an app factory and a /healthz "
                "endpoint. Keep it minimal.",
                "src/authsvc/app.py",
                "create_app",
            ),
            Task(
                "build",
                "Add config.py with a Settings dataclass read from AUTHSVC_* env vars: issuer, "
                "audience, access token TTL and the signing key path.",
                "src/authsvc/config.py",
                "load_settings",
            ),
            Task("explain", "Walk me through app.py as it stands.", "src/authsvc/app.py"),
            Task(
                "build",
                "Implement issue_access_token in tokens.py with PyJWT and RS256.",
                "src/authsvc/tokens.py",
                "issue_access_token",
            ),
            Task(
                "build_fail",
                "Now tests for issue_access_token: claims, expiry, issuer, audience.",
                "src/authsvc/tokens.py",
                "encode_claims",
            ),
            Task("ask", "Should the subject claim be the user id or the email? Product asked for the email."),
            Task(
                "search",
                "Where do we touch the signing key? I want to be sure it's never logged.",
                "src/authsvc",
                "signing_key",
            ),
            Task(
                "build",
                "Add a POST /token endpoint taking username and password and returning an access "
                "token. Stub the user lookup for now.",
                "src/authsvc/app.py",
                "token_endpoint",
            ),
            Task(
                "build",
                "Introduce a Clock protocol so tests can freeze time.",
                "src/authsvc/tokens.py",
                "system_clock",
            ),
        ),
        extra_words=("RS256", "PyJWT", "claims"),
    ),
    Day(
        slug="jwt-verification",
        topic="token verification and key rotation",
        reasons=(
            "The verifier pins the algorithm list to RS256; accepting the header's alg is how 'none' attacks "
            "happen.",
            "A kid header and a JWKS endpoint let us rotate keys without a coordinated deploy of every service.",
            "We keep the previous key in the JWKS for one access-token lifetime after rotation, so in-flight "
            "tokens stay valid.",
            "A 30-second leeway on exp and nbf absorbs clock skew between hosts without meaningfully extending "
            "token life.",
            "Verification errors map to one 401 response body; the detailed reason goes to the log, not to the "
            "caller.",
            "Key loading fails at startup, not on the first request, so a bad deploy is caught by the readiness "
            "probe.",
        ),
        tasks=(
            Task(
                "ask",
                "Morning. Today: verifying tokens and key rotation. How should other services verify "
                "our tokens?",
            ),
            Task(
                "build",
                "Implement verify_access_token with a pinned algorithm list and leeway.",
                "src/authsvc/tokens.py",
                "verify_access_token",
            ),
            Task("broken_tool", "Show me the key loading code.", "src/authsvc/keys.py", "load_keyring"),
            Task(
                "build",
                "Add a Keyring that holds the active key and the previous one, selected by kid.",
                "src/authsvc/keys.py",
                "select_key",
            ),
            Task("build", "Expose GET /.well-known/jwks.json.", "src/authsvc/app.py", "jwks_endpoint"),
            Task(
                "build_fail",
                "Test that a token signed with the previous key still verifies during the overlap window.",
                "src/authsvc/keys.py",
                "rotate_keys",
            ),
            Task("ask", "What leeway is sensible for clock skew? Our hosts use chrony but I've seen drift."),
            Task(
                "search",
                "Are there any places still calling jwt.decode without algorithms=?",
                "src",
                "jwt.decode",
            ),
            Task(
                "build",
                "Map verification failures to a single 401 body and log the reason.",
                "src/authsvc/errors.py",
                "unauthorized_response",
            ),
        ),
        extra_words=("kid", "JWKS", "leeway"),
    ),
    Day(
        slug="refresh-tokens",
        topic="refresh tokens",
        reasons=(
            "Refresh tokens are opaque random strings, not JWTs: they are only ever checked by authsvc, so a "
            "database lookup is fine and revocation is trivial.",
            "We store a SHA-256 hash of each refresh token, never the token, so a database leak doesn't hand "
            "out sessions.",
            "Rotation on every use plus a token family id gives us reuse detection: a replayed old token "
            "revokes the whole family.",
            "Refresh tokens live 30 days but slide: each rotation issues a new one, and an idle family expires.",
            "The refresh endpoint is the only place that can mint a new access token without a password, so it "
            "gets the strictest rate limit.",
            "Cookies for browsers (HttpOnly, Secure, SameSite=Strict, path=/token/refresh); the JSON body for "
            "service clients.",
        ),
        tasks=(
            Task("ask", "Refresh tokens today. JWT or opaque? And how do we detect a stolen refresh token?"),
            Task(
                "new_file",
                "Create refresh.py with a RefreshToken record and token generation.",
                "src/authsvc/refresh.py",
                "new_refresh_token",
            ),
            Task("build", "Hash refresh tokens before storing them.", "src/authsvc/refresh.py", "hash_token"),
            Task(
                "build_fail",
                "Implement rotation: consume the presented token, issue a new one in the same family.",
                "src/authsvc/refresh.py",
                "rotate_refresh_token",
            ),
            Task(
                "build",
                "Reuse detection: presenting an already-rotated token revokes the family.",
                "src/authsvc/refresh.py",
                "revoke_family",
            ),
            Task(
                "explain",
                "Show me refresh.py end to end, I want to review it properly.",
                "src/authsvc/refresh.py",
            ),
            Task("ask", "For the browser client, cookie or local storage for the refresh token?"),
            Task("build", "Add POST /token/refresh.", "src/authsvc/app.py", "refresh_endpoint"),
            Task(
                "interrupt",
                "Run the whole suite with coverage so we can see what's untested in refresh.py.",
                "tests",
                "coverage",
            ),
            Task(
                "build",
                "Add logout: revoke the presented refresh token's family.",
                "src/authsvc/refresh.py",
                "logout",
            ),
        ),
        mark=True,
        extra_words=("family", "rotation", "reuse"),
    ),
    Day(
        slug="db-migrations",
        topic="database schema and migrations",
        reasons=(
            "Alembic migrations are written by hand and reviewed; autogenerate is a starting point, never the "
            "final word.",
            "refresh_tokens gets a unique index on token_hash and an index on (family_id, revoked_at) for "
            "reuse checks.",
            "Every migration must be reversible and is tested by upgrading and downgrading in CI.",
            "Timestamps are timestamptz; we store UTC and convert at the edges.",
            "User ids are UUIDv4 generated in the application, so inserts don't need a round trip for the id.",
            "Large-table changes (adding NOT NULL columns) are split into add-nullable, backfill, constrain.",
        ),
        tasks=(
            Task(
                "ask",
                "Let's get a real database in. Postgres schema for users and refresh tokens: what "
                "tables and indexes?",
            ),
            Task(
                "new_file",
                "Add models.py with SQLAlchemy 2 models for User and RefreshTokenRow.",
                "src/authsvc/models.py",
                "user_table",
            ),
            Task(
                "new_file",
                "Set up db.py with the engine and a session factory.",
                "src/authsvc/db.py",
                "session_factory",
            ),
            Task(
                "migration_error",
                "Create the initial Alembic migration and apply it to the dev database.",
                "migrations/versions/0001_initial.py",
                "upgrade",
            ),
            Task(
                "build",
                "Move refresh token storage from the in-memory dict to Postgres.",
                "src/authsvc/refresh.py",
                "store_refresh_token",
            ),
            Task(
                "build_fail",
                "Add the users repository: lookup by username, create with password hash.",
                "src/authsvc/users.py",
                "find_user_by_username",
            ),
            Task("ask", "Do we need a separate table for token families or is a column enough?"),
            Task(
                "build",
                "Add a migration for the family index and make sure downgrade works.",
                "migrations/versions/0002_family_index.py",
                "upgrade_family_index",
            ),
            Task(
                "search",
                "Find every naive datetime in the codebase; everything should be timezone-aware.",
                "src",
                "datetime.now()",
            ),
        ),
        mark=True,
        extra_words=("Alembic", "Postgres", "index"),
    ),
    Day(
        slug="rate-limiting",
        topic="rate limiting",
        reasons=(
            "A token bucket in Redis, updated by a Lua script, keeps the check-and-decrement atomic across "
            "replicas.",
            "Limits are keyed by both client IP and username on /token, so one attacker can't lock out a user "
            "from everywhere and can't spray many users from one IP.",
            "We fail open on Redis errors for /healthz but fail closed for /token: availability of login is "
            "not worth unlimited guessing.",
            "Responses carry Retry-After so well-behaved clients back off instead of hammering.",
            "Limits are configuration, not constants: security will want to tune them without a release.",
            "The limiter is a dependency injected into the routes, so tests replace it with an in-memory fake.",
        ),
        tasks=(
            Task("ask", "Rate limiting for /token and /token/refresh. Algorithm and storage?"),
            Task(
                "new_file",
                "Create ratelimit.py with a Redis token bucket using a Lua script.",
                "src/authsvc/ratelimit.py",
                "take_token",
            ),
            Task(
                "build",
                "Add an in-memory limiter with the same interface for tests.",
                "src/authsvc/ratelimit.py",
                "memory_bucket",
            ),
            Task(
                "build_fail",
                "Wire the limiter into /token keyed by IP and username; return 429 with Retry-After.",
                "src/authsvc/app.py",
                "limit_login",
            ),
            Task(
                "interrupt",
                "Run the load test against the login endpoint, 200 rps for a minute.",
                "scripts/loadtest.py",
                "loadtest",
            ),
            Task("ask", "Fail open or fail closed when Redis is down?"),
            Task(
                "build",
                "Make the limits configurable through Settings.",
                "src/authsvc/config.py",
                "rate_limit_settings",
            ),
            Task("search", "Which routes are not rate limited yet?", "src/authsvc", "@router."),
        ),
        extra_words=("Redis", "token bucket", "429"),
    ),
    Day(
        slug="test-hardening",
        topic="test coverage and hardening",
        reasons=(
            "Property-based tests with Hypothesis cover the token round trip better than hand-picked examples.",
            "Integration tests run against a real Postgres in a container; mocking the ORM would test the mock.",
            "Fixtures build objects through the same factories the app uses, so tests break when the app's "
            "assumptions change.",
            "We test behaviour at the HTTP boundary for each endpoint and keep unit tests for the pure token "
            "logic.",
            "Coverage is a flashlight, not a target: the goal is every branch in refresh.py, not 100% overall.",
            "Flaky tests get fixed or deleted the same day; a suite people rerun is a suite people ignore.",
        ),
        tasks=(
            Task("ask", "Monday. Let's spend today on tests. Where are we weakest?"),
            Task(
                "big", "Run the full suite verbosely, I want to see every test name.", "tests", "pytest -vv"
            ),
            Task(
                "build",
                "Add Hypothesis round-trip tests for issue/verify.",
                "tests/test_tokens.py",
                "test_round_trip_property",
            ),
            Task(
                "build_fail",
                "Integration test for the full login -> refresh -> logout flow against Postgres.",
                "tests/test_flow.py",
                "test_login_refresh_logout",
            ),
            Task("build", "Add factories for users and token families.", "tests/factories.py", "make_user"),
            Task(
                "explain",
                "Explain the conftest fixtures to me; I got lost in the db ones.",
                "tests/conftest.py",
            ),
            Task(
                "build_fail",
                "Cover the reuse-detection branch where two refreshes race.",
                "src/authsvc/refresh.py",
                "consume_for_update",
            ),
            Task("ask", "Is it worth adding mutation testing?"),
        ),
        extra_words=("Hypothesis", "fixtures", "coverage"),
    ),
    Day(
        slug="ci-pipeline",
        topic="CI pipeline",
        reasons=(
            "CI runs lint, type check, unit and integration tests as separate jobs so a failure says what broke.",
            "uv with a lockfile makes installs reproducible and fast enough that caching is a bonus, not a need.",
            "Integration tests use a Postgres service container pinned to the production major version.",
            "Migrations are applied up, down and up again in CI, which is cheaper than discovering a broken "
            "downgrade during an incident.",
            "The image is built once per commit and promoted, never rebuilt, between environments.",
            "Required checks on main keep the rules enforced by the tool rather than by memory.",
        ),
        tasks=(
            Task("ask", "CI today. What jobs do we want on GitHub Actions?"),
            Task(
                "new_file",
                "Write .github/workflows/ci.yml: lint, mypy, unit tests.",
                ".github/workflows/ci.yml",
                "lint-and-test",
            ),
            Task(
                "build",
                "Add the integration job with a Postgres service container.",
                ".github/workflows/ci.yml",
                "integration",
            ),
            Task(
                "big",
                "The integration job failed on the branch. Pull the log.",
                ".github/workflows/ci.yml",
                "gh run view --log",
            ),
            Task(
                "build_fail",
                "Fix the flaky test_rotation_overlap that failed in CI.",
                "src/authsvc/keys.py",
                "overlap_deadline",
            ),
            Task(
                "build",
                "Add the migrations up/down/up check to CI.",
                ".github/workflows/ci.yml",
                "migrations",
            ),
            Task("ask", "Should we cache the uv download cache or just the venv?"),
            Task("search", "Do we pin actions by SHA anywhere?", ".github", "uses:"),
        ),
        mark=True,
        extra_words=("GitHub Actions", "uv", "service container"),
    ),
    Day(
        slug="documentation",
        topic="documentation",
        reasons=(
            "The README answers 'how do I run it' in under a minute; everything else links out.",
            "Integration docs for other teams show the verification code in Python and Go, with the JWKS URL.",
            "ADRs record why RS256, why opaque refresh tokens and why fail-closed, so nobody re-litigates them "
            "from scratch.",
            "The OpenAPI document is generated from the app, and the docs link to it instead of copying it.",
            "Sequence diagrams are Mermaid in Markdown so they diff and review like code.",
            "Operational docs cover key rotation step by step, because that's the procedure people do rarely "
            "and under stress.",
        ),
        tasks=(
            Task(
                "ask",
                "I cleared the context; fresh start. Today is docs. Read the code as needed and tell me "
                "what documentation we need.",
            ),
            Task(
                "explain",
                "Read tokens.py again and summarize its public API for the docs.",
                "src/authsvc/tokens.py",
            ),
            Task(
                "new_file",
                "Write docs/integration.md for teams verifying our tokens.",
                "docs/integration.md",
                "Verifying tokens",
            ),
            Task(
                "build",
                "Add ADR 0001: RS256 with a JWKS endpoint.",
                "docs/adr/0001-rs256-jwks.md",
                "Decision",
            ),
            Task(
                "build",
                "Add ADR 0002: opaque refresh tokens with rotation.",
                "docs/adr/0002-opaque-refresh-tokens.md",
                "Consequences",
            ),
            Task(
                "big",
                "Dump the generated OpenAPI document so we can check the descriptions.",
                "docs/openapi.json",
                "openapi",
            ),
            Task("build", "Write the key rotation runbook.", "docs/runbooks/key-rotation.md", "Procedure"),
            Task("ask", "Who is the audience for the README versus docs/?"),
        ),
        clear_before=True,
        extra_words=("README", "ADR", "runbook"),
    ),
    Day(
        slug="login-latency",
        topic="login latency investigation",
        reasons=(
            "The p99 for /token is dominated by password hashing: bcrypt cost 14 takes ~900 ms on the pod's "
            "CPU quota.",
            "Argon2id with memory 64 MiB, time 3, parallelism 1 lands around 120 ms and is the current OWASP "
            "recommendation.",
            "Rehashing on login migrates users gradually; no bulk job, no stored plaintext.",
            "The connection pool was sized 5 per pod, and hashing blocked the event loop, so requests queued "
            "for connections.",
            "CPU-bound hashing moves to a thread pool so it stops blocking the event loop.",
            "We measure with the same load test before and after, same dataset, same pod limits.",
        ),
        tasks=(
            Task("ask", "Ops says login p99 is 2.4 s in staging. Let's find out why. Where would you start?"),
            Task("big", "Profile a batch of logins locally.", "scripts/profile_login.py", "cProfile"),
            Task("explain", "Show me how we hash passwords right now.", "src/authsvc/passwords.py"),
            Task(
                "build_fail",
                "Switch to Argon2id with rehash-on-login for old bcrypt hashes.",
                "src/authsvc/passwords.py",
                "verify_and_maybe_rehash",
            ),
            Task(
                "build",
                "Run the hashing in a thread pool so it doesn't block the event loop.",
                "src/authsvc/app.py",
                "hash_in_thread",
            ),
            Task(
                "big",
                "Rerun the load test against the local stack and show the full report.",
                "scripts/loadtest.py",
                "locust",
            ),
            Task("ask", "Is 64 MiB per hash going to hurt us under a credential-stuffing burst?"),
            Task("build", "Raise the pool size and add pool metrics.", "src/authsvc/db.py", "pool_metrics"),
        ),
        mark=True,
        extra_words=("p99", "Argon2id", "profile"),
    ),
    Day(
        slug="intermittent-401",
        topic="the intermittent 401 bug",
        reasons=(
            "Two browser tabs refreshing at once both present the same refresh token; the second one looks like "
            "reuse and revokes the family.",
            "A short grace window (10 s) during which the just-rotated token returns the same new pair fixes "
            "the race without weakening reuse detection much.",
            "SELECT ... FOR UPDATE on the token row serializes concurrent refreshes of the same token.",
            "The 401s also correlate with one pod whose clock was 40 s ahead; leeway covered exp but not our "
            "own iat check.",
            "We keep a regression test that fires two refreshes concurrently against real Postgres.",
            "Logging the family id and the rotation counter made the pattern visible in ten minutes.",
        ),
        tasks=(
            Task(
                "ask",
                "Support reports random logouts: users get a 401 and have to sign in again, a few times "
                "a day. Let's hunt it.",
            ),
            Task(
                "search",
                "Grep the staging logs export for refresh failures.",
                "logs/staging-401.log",
                "reuse_detected",
            ),
            Task("explain", "Read rotate_refresh_token again with this in mind.", "src/authsvc/refresh.py"),
            Task(
                "build_fail",
                "Write a failing test that reproduces two concurrent refreshes.",
                "tests/test_refresh_race.py",
                "test_concurrent_refresh",
            ),
            Task(
                "build",
                "Add a grace window for the just-rotated token.",
                "src/authsvc/refresh.py",
                "within_grace_window",
            ),
            Task("interrupt", "Check the clocks on the staging pods.", "ops", "kubectl exec"),
            Task(
                "build",
                "Stop rejecting tokens whose iat is slightly in the future.",
                "src/authsvc/tokens.py",
                "check_issued_at",
            ),
            Task(
                "broken_tool",
                "Show me the structured log setup, I want the family id in every line.",
                "src/authsvc/logging.py",
                "bind_family",
            ),
            Task("ask", "Write up the root cause for the incident channel."),
        ),
        extra_words=("race", "grace window", "clock skew"),
    ),
    Day(
        slug="security-review",
        topic="security review follow-ups",
        reasons=(
            "Password reset tokens are single-use, hashed like refresh tokens, and expire in 30 minutes.",
            "The reset endpoint answers the same way whether or not the email exists, to avoid account "
            "enumeration.",
            "An append-only audit log records logins, refreshes, reuse detections and resets, without tokens.",
            "Security headers are set by middleware; HSTS only in production because local dev is plain HTTP.",
            "Constant-time comparison (hmac.compare_digest) for every secret comparison, even hashed ones.",
            "Dependency audit runs in CI with pip-audit; a new CVE fails the build on main, warns on branches.",
        ),
        tasks=(
            Task(
                "ask", "The security review came back with five findings. Let's go through them one by one."
            ),
            Task(
                "build",
                "Finding 1: use constant-time comparison for token hashes.",
                "src/authsvc/refresh.py",
                "hashes_match",
            ),
            Task("new_file", "Finding 2: add an audit log module.", "src/authsvc/audit.py", "record_event"),
            Task(
                "build_fail",
                "Finding 3: password reset with single-use tokens.",
                "src/authsvc/users.py",
                "start_password_reset",
            ),
            Task(
                "build", "Finding 4: security headers middleware.", "src/authsvc/app.py", "security_headers"
            ),
            Task("build", "Finding 5: add pip-audit to CI.", ".github/workflows/ci.yml", "audit"),
            Task("ask", "Anything the reviewers missed that worries you?"),
            Task(
                "search",
                "Make sure no test or fixture contains a real-looking private key.",
                "tests",
                "BEGIN PRIVATE KEY",
            ),
        ),
        mark=True,
        extra_words=("audit log", "reset", "headers"),
    ),
    Day(
        slug="release",
        topic="release preparation",
        reasons=(
            "Version 0.1.0 ships behind the gateway to one internal client first; the others follow after a "
            "week of clean metrics.",
            "The changelog groups changes by what a client team has to do, not by file.",
            "The container runs as a non-root user with a read-only filesystem; keys come from a mounted secret.",
            "Readiness checks the database and the keyring; liveness only checks the process, so a database "
            "blip doesn't restart every pod.",
            "Rollback is redeploying the previous image; migrations in this release are additive so that is "
            "safe.",
            "Dashboards track login success rate, p99 latency, 429 rate and reuse detections.",
        ),
        tasks=(
            Task("ask", "Release prep for 0.1.0. Make me a checklist."),
            Task(
                "new_file",
                "Write the Dockerfile: slim base, non-root, uv sync from the lockfile.",
                "Dockerfile",
                "runtime",
            ),
            Task("build", "Split readiness and liveness endpoints.", "src/authsvc/app.py", "readiness"),
            Task("new_file", "Draft CHANGELOG.md for 0.1.0.", "CHANGELOG.md", "0.1.0"),
            Task(
                "build_fail",
                "Bump the version and make the app report it in /healthz.",
                "src/authsvc/app.py",
                "version_info",
            ),
            Task("big", "Build the image and show the output.", "Dockerfile", "docker build"),
            Task("ask", "What should we watch in the first week after release?"),
            Task(
                "ask",
                "Thanks. Summarize the whole project for the handover doc: what we built, the key "
                "decisions and what's still open.",
            ),
        ),
        extra_words=("release", "rollback", "dashboards"),
    ),
)

# Requests any working day produces between the planned ones. {topic} is the day's topic; {symbol} and
# {path} are the function and file worked on last.
FILLERS: tuple[Task, ...] = (
    Task("run_tests", "Run the test suite again."),
    Task("diff", "Show me the diff before we commit."),
    Task("commit", "Commit this with a sensible message."),
    Task("lint", "Run ruff and mypy."),
    Task("status", "Where are we on {topic}? Short version please."),
    Task("ask", "Anything about the {topic} work you're not happy with?"),
    Task("run_tests", "Quick check that nothing else broke."),
    Task("coverage", "What does coverage look like now?"),
    Task("add_test", "Add a test for the error path of {symbol}."),
    Task("explain", "Explain {path} to me like I'm reviewing the PR."),
    Task("status", "What's left for {topic}?"),
    Task("git_log", "What did we commit today so far?"),
    Task("ask", "Is there a simpler way to do what we just did?"),
    Task("search", "Where else is {symbol} used?", "src", "{symbol}"),
    Task("explain", "Show me {path} again, I want to re-read {symbol}."),
    Task("ask", "Could {symbol} fail in production in a way the tests wouldn't catch?"),
)
