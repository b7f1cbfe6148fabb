# Shared by the scripts: find (or install) uv and the locked environment. Source it; don't run it.
# uv comes from PyPI; `python3 -m uv` works even where the new executable is not on PATH yet (pyenv shims).
uv_cmd() {
  if command -v uv >/dev/null 2>&1; then
    uv "$@"
  else
    python3 -m uv "$@"
  fi
}

bootstrap() {
  if ! command -v uv >/dev/null 2>&1 && ! python3 -m uv --version >/dev/null 2>&1; then
    python3 -m pip install --quiet --disable-pip-version-check uv
  fi
  uv_cmd sync --frozen --quiet
}
