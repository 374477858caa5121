"""`python -m agent_browser_tools`: the same command line as `agent-browser-tools`."""

from __future__ import annotations

import sys

from agent_browser_tools.hosts.cli import main

if __name__ == "__main__":
    sys.exit(main())
