#!/usr/bin/env bash
# Install everything agent-browser-tools needs into ./.venv, then run the demo or the tests.
#
#   bash scripts/setup.sh demo    # open a bundled page, snapshot, fill, click, screenshot
#   bash scripts/setup.sh test    # the whole test suite (unit, fake-engine, real-engine)
#
# Chromium comes from the system package manager: engine-driven browser downloads fail on
# many machines. On Debian/Ubuntu this script installs it when it is missing (needs root).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-test}"

have_browser() {
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
    command -v google-chrome >/dev/null 2>&1 || [ -n "${AGENT_BROWSER_EXECUTABLE_PATH:-}" ]
}

if ! have_browser; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    echo "setup: installing Chromium from Debian packages" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: no Chrome/Chromium found. Install one (Debian/Ubuntu: sudo apt-get install" \
      "chromium) or set AGENT_BROWSER_EXECUTABLE_PATH, then re-run." >&2
    exit 1
  fi
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'

case "$mode" in
  demo) exec .venv/bin/agent-browser-tools demo ;;
  test) exec .venv/bin/python -m pytest -q ;;
  install) exit 0 ;;
  *) echo "usage: bash scripts/setup.sh [demo|test|install]" >&2; exit 2 ;;
esac
