#!/usr/bin/env bash
# Install everything agent-browser-tools needs into ./.venv, then run the demo or the tests.
#
#   bash scripts/setup.sh demo       # open a bundled page, snapshot, fill, click, screenshot
#   bash scripts/setup.sh test       # the whole test suite (unit, fake-engine, real-engine)
#   bash scripts/setup.sh test unit  # the unit tests alone (tests/unit), under a minute
#   bash scripts/setup.sh install    # install only
#
# Chromium comes from the system package manager: engine-driven browser downloads fail on
# many machines. On Debian/Ubuntu this script installs it when it is missing (needs root).
#
# The clone stays clean: setuptools would write `src/*.egg-info` (and `build/` for a wheel)
# into the source tree, so its egg-info and build dirs go to a temporary dir instead
# (DIST_EXTRA_CONFIG names an extra setuptools config file), removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-test}"
subset="${2:-}"

usage() {
  echo "usage: bash scripts/setup.sh [demo|test [unit]|install]" >&2
  exit 2
}

case "$mode:$subset" in
  demo: | install:) ;;
  test:)
    # Measured on a 2-core machine: unit ~1 min, fake engine ~2 min, real engine and
    # Chromium the rest, one test at a time.
    echo "setup: the whole suite takes about 20 minutes on 2 cores (after the install);" \
      "for a quick check, 'bash scripts/setup.sh test unit' runs the unit tests in under a" \
      "minute" >&2
    ;;
  test:unit) echo "setup: the unit tests (tests/unit) take under a minute" >&2 ;;
  *) usage ;;
esac

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
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
printf '[egg_info]\negg_base = %s\n[build]\nbuild_base = %s/build\n' "$scratch" "$scratch" \
  >"$scratch/setup.cfg"
DIST_EXTRA_CONFIG="$scratch/setup.cfg" \
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
rm -rf "$scratch"
trap - EXIT

# The Selenium Grid that the grid-mode tests and benchmark start (a server jar from npm, run by
# Java; Debian's chromedriver, installed when missing and root).
# The unit tests and the demo need none of it.
if [ "$mode:$subset" = install: ] || [ "$mode:$subset" = test: ]; then
  bash scripts/selenium_grid.sh install
fi

case "$mode:$subset" in
  demo:) exec .venv/bin/agent-browser-tools demo ;;
  test:) exec .venv/bin/python -m pytest -q ;;
  test:unit) exec .venv/bin/python -m pytest -q tests/unit ;;
  install:) exit 0 ;;
esac
