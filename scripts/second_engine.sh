#!/usr/bin/env bash
# The second supported engine: agent-browser 0.41.2 from the npm registry (most users install
# the engine with npm; the PyPI wheel pinned in pyproject.toml is 0.39.4).
#
#   bash scripts/second_engine.sh path     # fetch it once into .venv/engines, print the binary
#   bash scripts/second_engine.sh check    # its stored capability baseline still matches it
#   bash scripts/second_engine.sh test     # the real-engine suite (tests/real) on it
#
# The tarball ships prebuilt binaries for every platform; nothing else is downloaded (the
# binary's own browser download is never used: Chromium comes from the system).
set -euo pipefail
cd "$(dirname "$0")/.."
version="0.41.2"
dir=".venv/engines/agent-browser-$version"
binary="$dir/package/bin/agent-browser-linux-$(uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/')"

if [ ! -x "$binary" ]; then
  mkdir -p "$dir"
  (cd "$dir" && npm pack --silent "agent-browser@$version" >/dev/null &&
    tar xzf "agent-browser-$version.tgz")
  chmod +x "$binary"
fi

case "${1:-path}" in
  path) echo "$binary" ;;
  check)
    .venv/bin/python scripts/engine_baseline.py --engine "$binary" --check \
      --markdown "$dir/package/skill-data/core/SKILL.md" \
      --markdown "$dir/package/skill-data/core/references/commands.md" ;;
  test)
    # Not twice: the grid harness runs no engine, and the grid attacks test the wrapper's
    # bookkeeping (the engine's attach to a grid browser is in test_grid_mode.py).
    ABT_TEST_ENGINE="$(pwd)/$binary" exec .venv/bin/python -m pytest -q -p no:cacheprovider \
      tests/real --ignore=tests/real/engine/test_selenium_grid_harness.py \
      --ignore=tests/real/tools/agent_browser/test_grid_attacks.py ;;
  *) echo "usage: bash scripts/second_engine.sh [path|check|test]" >&2; exit 2 ;;
esac
