"""What a widget's way out did: reached the asked value, or stopped with an error and the
exact next actions that still work (pure data)."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_browser_tools.results import next_actions as na


@dataclass(frozen=True)
class Reached:
    """The page holds the asked value now, read back where the value lives."""

    value: str
    how: str
    """How the tool set it, for the result line ("set with 12 ArrowRight key presses")."""


@dataclass(frozen=True)
class Stopped:
    """The way out could not reach the value: why, what the widget holds, what to do."""

    error: str
    actions: list[na.NextAction] = field(default_factory=list)
    advice: bool = False
    """Only advice: the action took as asked (typed text a list may still want chosen), so the
    call stays a success with this as a warning and the actions as next actions."""


Outcome = Reached | Stopped
