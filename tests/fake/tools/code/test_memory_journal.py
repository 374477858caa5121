"""`BrowserTools(persist=False)` runs code cells on the in-memory journal: not refused, and
every inner dispatch still gets its intent journaled before it runs, in call order.

Why not refused (the contract's Pi host refuses `--no-session`): Pi needs the session file to
replay a cell's inner calls; here the journal is the conversation's own, and `persist=False`
is the host's explicit choice of a process-lifetime conversation for the direct tool too.
"""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.state.models import CompletionEvent, IntentEvent
from tests.support.fake import FakeEngine, fake_settings


async def test_inner_calls_journal_ordered_intents_in_memory(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": "https://a.test/"}})
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=tmp_path, persist=False)
    assert tools.journal is None
    code = """
      await browser({ args: ['open', 'https://a.test/'] });
      await browser({ args: ['get', 'title'] });
      emit('done');
    """
    result = await tools.call("agent_browser_code", {"code": code})
    assert not result.is_error, result.text
    events = list(tools.runtime.log.journal.events())
    rows = [
        (type(e).__name__, e.call_id)
        for e in events
        if isinstance(e, IntentEvent | CompletionEvent)
    ]
    intents = [e for e in events if isinstance(e, IntentEvent)]
    assert [i.args[-2:] for i in intents][:2] == [("open", "https://a.test/"), ("get", "title")]
    for intent in intents:
        assert rows.index(("IntentEvent", intent.call_id)) < rows.index(
            ("CompletionEvent", intent.call_id)
        )
    await tools.aclose()
