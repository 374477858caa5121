"""How the operator's Selenium Grid can fail to give a call a browser (`[browser] grid_url`).

Apart from the WebDriver client so the tool registry can answer them without loading the
engine layer when tools are only listed.
"""

from __future__ import annotations


class GridUnavailable(RuntimeError):
    """No grid browser for this call; the message says why and what to do."""

    full: bool = False
    limited: bool = False


class GridFull(GridUnavailable):
    """Every slot stayed busy for the whole wait."""

    full = True


class GridLimit(GridUnavailable):
    """The conversation holds as many grid browsers as the operator allows one conversation
    (`[browser] grid_max_per_conversation`): a shared grid is not one conversation's."""

    limited = True
