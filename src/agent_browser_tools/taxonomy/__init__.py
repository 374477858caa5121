"""The command taxonomy: one declarative table of upstream commands and its lookups.

`lookup` holds the spec types and the pure lookup; `commands` and `global_flags` are the rows;
`vocabulary` the enums; `inventory` the `--help` coverage check. Import names from here.
"""

from __future__ import annotations

from agent_browser_tools.taxonomy.lookup import *  # noqa: F403
from agent_browser_tools.taxonomy.lookup import __all__ as __all__
