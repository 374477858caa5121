#!/usr/bin/env bash
# A real Selenium Grid 4 for the grid-mode tests and benchmark: the standalone server jar from
# the npm registry (@nightwatch/selenium-server ships it) run by the system Java, driving the
# system Chromium through the system chromedriver (Debian's chromium-driver, same version).
#
#   bash scripts/selenium_grid.sh path      # fetch the jar once into .venv/selenium, print it
#   bash scripts/selenium_grid.sh install   # that, plus chromedriver when it is missing
#
# `npm pack` and tar only: `npm install` of the package would run its install script, which
# downloads the jar from elsewhere. The server runs with `--selenium-manager false`, so it never
# downloads a driver or a browser either. Both commands are idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
version="4.20.0"
dir=".venv/selenium"
jar="$dir/package/lib/selenium-server-$version.jar"

fetch_jar() {
  if [ ! -f "$jar" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "@nightwatch/selenium-server@$version" >/dev/null &&
      tar xzf "nightwatch-selenium-server-$version.tgz")
  fi
  [ -f "$jar" ] || { echo "selenium_grid: $jar missing after npm pack" >&2; exit 1; }
}

# apt_install PACKAGE WHAT: install a Debian package as root (a clean machine's package lists
# may be missing or stale: update and try once more), or say how to.
apt_install() {
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    echo "selenium_grid: installing $2 from Debian packages ($1)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null 2>&1 || {
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
    }
  else
    # Not fatal: only the grid tests need it (they skip without it, and fail in CI).
    echo "selenium_grid: no $2 found, and installing it needs root. Install it" \
      "(Debian/Ubuntu: sudo apt-get install $1) for the Selenium Grid tests, then re-run" \
      "'bash scripts/selenium_grid.sh install'." >&2
  fi
}

case "${1:-path}" in
  path) fetch_jar; echo "$jar" ;;
  install)
    fetch_jar
    command -v java >/dev/null 2>&1 || apt_install default-jre-headless "Java (11 or later)"
    # Debian's chromium-driver requires the very same chromium version, so they match.
    [ -x /usr/bin/chromedriver ] || apt_install chromium-driver "/usr/bin/chromedriver"
    ;;
  *) echo "usage: bash scripts/selenium_grid.sh [path|install]" >&2; exit 2 ;;
esac
