"""The participants of the direct tool's post-action probe batch, listed once, in order.

Why a list: each feature that reads the page after the action (the click probe's counts, the
element read-back, the focused field, the dialog pre-read) adds its rows to the one batch and
takes its own answers by name (`named_rows`). The batch runner (`followups.run_probe`) walks
this list and knows none of them by name; adding a reader is one entry here and one module.
The settle wait and the url/title read lead the batch and stay with the runner: the first
decides whether the batch is sent again, the second is the page the answer describes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.effects import action_readback, focused_field
from agent_browser_tools.tools.agent_browser.page import click_probe, overlay_probe


@dataclass(frozen=True)
class PostReader:
    """A feature's part of the post-action batch: its rows and what it keeps of the answer."""

    name: str
    rows: Callable[[DirectCall], Sequence[Sequence[str]]]
    take: Callable[[DirectCall, Sequence[BatchRow]], None]
    consumes: bool = False
    """Its rows change the page (a probe that removes itself): what they answered is kept even
    from a batch that is then sent again (the second one finds nothing to read)."""


POST_READERS: tuple[PostReader, ...] = (
    PostReader("click", click_probe.post_rows, click_probe.take, consumes=True),
    PostReader("readback", action_readback.rows, action_readback.take),
    PostReader("focused", focused_field.post_rows, focused_field.take),
    PostReader("dialog", overlay_probe.post_rows, overlay_probe.take_post),
)
