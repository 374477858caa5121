"""Which engine binary the real-engine tests run: the wheel's, or the one `ABT_TEST_ENGINE`
names (CI's second engine, `scripts/second_engine.sh test`): the tests' bare calls and every
`BrowserTools` then use it."""

from __future__ import annotations

import os
from pathlib import Path

TEST_ENGINE_ENV = "ABT_TEST_ENGINE"


def chosen_engine() -> Path | None:
    """The binary `ABT_TEST_ENGINE` names, None when unset (raises when it does not exist)."""
    chosen = os.environ.get(TEST_ENGINE_ENV)
    if not chosen:
        return None
    if not Path(chosen).is_file():
        raise FileNotFoundError(f"{TEST_ENGINE_ENV} names {chosen}, which does not exist")
    return Path(chosen)
