"""The collector pause spans every running call and never outlives them, nor turns on a
collector the host switched off."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from agent_browser_tools.tools.agent_browser import gc_pause


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_concurrent_calls_share_one_pause_and_the_last_one_out_resumes() -> None:
    gc.enable()
    seen: list[bool] = []
    first_in = asyncio.Event()
    release_first = asyncio.Event()

    @gc_pause.during
    async def first() -> None:
        first_in.set()
        await release_first.wait()
        seen.append(gc.isenabled())

    @gc_pause.during
    async def second() -> None:
        await first_in.wait()
        seen.append(gc.isenabled())

    async def main() -> None:
        task = asyncio.create_task(first())
        await second()  # ends while `first` still runs
        seen.append(gc.isenabled())
        release_first.set()
        await task

    asyncio.run(main())
    assert seen == [False, False, False]
    assert gc.isenabled()


def test_a_failing_call_resumes_the_collector() -> None:
    gc.enable()

    @gc_pause.during
    async def boom() -> None:
        raise RuntimeError("x")

    with pytest.raises(RuntimeError):
        asyncio.run(boom())
    assert gc.isenabled()


def test_a_host_that_switched_the_collector_off_keeps_it_off() -> None:
    gc.disable()
    with gc_pause.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()
