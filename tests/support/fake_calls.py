"""A stand-in `DirectCall` for unit tests of one feature: the given fields, and the real
`DirectCall.part` store so a feature's typed state behaves as in a real call."""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace
from typing import Any, cast

from agent_browser_tools.tools.agent_browser.call import DirectCall


def fake_call(*states: object, **fields: Any) -> Any:
    """A namespace with `fields`, a `part` store holding `states` (one per type)."""
    call = SimpleNamespace(**fields)
    call.parts = {type(state): state for state in states}
    call.part = partial(DirectCall.part, cast(DirectCall, call))
    return call
