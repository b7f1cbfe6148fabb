# One image for every role: migrate, worker, beat and flower differ only in their command.
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    PATH="/app/.venv/bin:$PATH"

RUN pip install --no-cache-dir uv \
 && useradd --create-home --uid 10001 summarizer

WORKDIR /app
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-dev --no-group docs --extra gevent --no-install-project
COPY alembic.ini ./
COPY migrations ./migrations
COPY summarizer ./summarizer
COPY workers ./workers
RUN uv sync --frozen --no-dev --no-group docs --extra gevent

USER summarizer
ENTRYPOINT ["summarizer"]
CMD ["--help"]
