"""The direct tool's participants, listed once, in the order they act on a call.

Read this file as the table of contents of `agent_browser`, in the order of a call:

1. `CALL_START`: what a new call resets;
2. `BEFORE_DISPATCH`: the steps before the engine runs, any of which may refuse the call;
3. `PRE_RIDERS`: what rides in the one helper batch just before the dispatch (the identity
   check's, or one of their own);
4. the dispatch (`dispatch`), then `ON_ANSWER`: the engine's answer before it is observed;
5. `ON_OBSERVATION`: the observed answer, before the read-back;
6. `POST_READERS`: what rides in the one batch after the action (`followups.read_back`);
7. `AFTER_READ_BACK`: the answer's files, before the journal records the call (`record`);
8. `FOLLOW_UPS`: the wrapper's own recovery calls, before the result is presented (`finish`).

The executor (`execute`) and the batch runners (`pre_dispatch`, `followups.run_probe`) walk
these lists and know no feature by name; adding a feature is an entry here and a module of
its own, and no participant imports another (a test checks it: what two share lives in a
module neither registers here). Each keeps its own typed state (`DirectCall.part`) and takes
its batch answers by name (`named_rows`).

The settle wait and the url/title read lead the post-action batch and stay with its runner:
the first decides whether the batch is sent again, the second is the page the answer
describes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.tools.agent_browser import guards, pre_dispatch
from agent_browser_tools.tools.agent_browser.batches import step_lines
from agent_browser_tools.tools.agent_browser.browser import attached_app
from agent_browser_tools.tools.agent_browser.call import Answer, DirectCall, Refused, Spawned
from agent_browser_tools.tools.agent_browser.effects import action_readback, focused_field
from agent_browser_tools.tools.agent_browser.files import (
    artifacts,
    recorded_files,
    recording,
    value_spill,
)
from agent_browser_tools.tools.agent_browser.named_rows import RiderRows
from agent_browser_tools.tools.agent_browser.page import (
    click_probe,
    nav_settle,
    overlay_probe,
    selector_miss,
    webmcp,
)
from agent_browser_tools.tools.agent_browser.refs import identity, same_document
from agent_browser_tools.tools.agent_browser.safety import (
    browser_loss,
    drift_guard,
    endpoint_guard,
    host_hook,
    secret_fields,
)

Nested = Callable[[Mapping[str, Any]], Awaitable[ToolResult]]
"""One more journaled call of the wrapper's own, under the lock the call holds."""


@dataclass(frozen=True)
class BeforeDispatch:
    """A step before the dispatch: None to go on, or the refusal's observation. A step may
    also raise `Refused` (a validation error) or `PolicyBlocked` (the operator's policy)."""

    name: str
    run: Callable[[DirectCall, Nested], Awaitable[Observation | None]]


@dataclass(frozen=True)
class OnAnswer:
    """A step on the engine's answer before it is observed; it may replace the answer."""

    name: str
    run: Callable[[DirectCall, Spawned], Spawned]


@dataclass(frozen=True)
class AfterDispatch:
    """A step on the observed answer, which it refines in place (`Answer`)."""

    name: str
    run: Callable[[DirectCall, Answer, Nested], Awaitable[None]]


CALL_START: tuple[Callable[[], None], ...] = (webmcp.begin_call,)
"""What every new call starts afresh (its own WebMCP catalog collection)."""


@dataclass(frozen=True)
class PostReader:
    """A feature's part of the post-action batch: its rows and what it keeps of the answer."""

    name: str
    rows: Callable[[DirectCall], Sequence[Sequence[str]]]
    take: Callable[[DirectCall, Sequence[BatchRow]], None]
    consumes: bool = False
    """Its rows change the page (a probe that removes itself): what they answered is kept even
    from a batch that is then sent again (the second one finds nothing to read)."""


async def _urls(call: DirectCall, nested: Nested) -> None:
    endpoint_guard.check_urls(call.plan)
    endpoint_guard.check_grid_urls(call.plan, call.rt.grid_endpoints)


async def _host(call: DirectCall, nested: Nested) -> None:
    await host_hook.before_dispatch(call)


async def _browser_there(call: DirectCall, nested: Nested) -> None:
    await browser_loss.check_before_dispatch(call)


async def _app_there(call: DirectCall, nested: Nested) -> Observation | None:
    return await attached_app.refusal(call)


async def _page_endpoint(call: DirectCall, nested: Nested) -> None:
    await endpoint_guard.check_page(call)


async def _tab_drift(call: DirectCall, nested: Nested) -> None:
    await drift_guard.check(call)


async def _dropped_refs(call: DirectCall, nested: Nested) -> Observation | None:
    with host_hook.internal():  # the wrapper's own snapshot is not the host's to veto
        gone = await same_document.snapshot_first(call, nested)
    return guards.stale_refusal(call.plan, gone) if gone is not None else None


async def _static_guards(call: DirectCall, nested: Nested) -> Observation | None:
    return guards.refusal(call.plan, call.rt.log.state)


async def _output_aliases(call: DirectCall, nested: Nested) -> None:
    plan, cwd, output = call.plan, call.rt.cwd, call.output_path
    alias = artifacts.preflight(plan, cwd, output) or (
        recording.refusal(plan, call.rt.log.state, cwd, output)
    )
    if alias is not None:
        raise Refused(alias)


async def _output_dirs(call: DirectCall, nested: Nested) -> Observation | None:
    return artifacts.prepare_dirs(call)


async def _refs_unchanged(call: DirectCall, nested: Nested) -> Observation | None:
    changed = await identity.verify(call, pre_dispatch.batch(call, PRE_RIDERS))
    if changed is None:
        return None
    await click_probe.discard(call)  # installed in the check's batch: not left on the page
    return guards.stale_refusal(call.plan, changed)


async def _ready_to_dispatch(call: DirectCall, nested: Nested) -> None:
    """The last preparations: the change log's position before a snapshot, the screenshot's
    first geometry sample, the riders no check's batch carried (the click probe and the
    settle watcher's arming, in one batch), the settle wait's start."""
    await identity.begin_epoch(call)
    await artifacts.sample_before(call)
    await pre_dispatch.alone(call, PRE_RIDERS)
    nav_settle.before(call)


async def _credential_fields(call: DirectCall, nested: Nested) -> None:
    """The fields this call types into or reads that hold credentials (no engine call when
    their reads rode in the pre-dispatch batch); kept for the answer's redaction."""
    call.part(secret_fields.Found).findings = await secret_fields.inspect(call)


BEFORE_DISPATCH: tuple[BeforeDispatch, ...] = (
    BeforeDispatch("URLs off a browser's own endpoints", _urls),
    BeforeDispatch("the host's veto", _host),
    BeforeDispatch("the browser is there", _browser_there),
    BeforeDispatch("the launched app is there", _app_there),
    BeforeDispatch("the page is no browser endpoint", _page_endpoint),
    BeforeDispatch("a caller-owned tab did not move", _tab_drift),
    BeforeDispatch("refs a page change dropped", _dropped_refs),
    BeforeDispatch("stale refs and unknown targets", _static_guards),
    BeforeDispatch("output paths that alias", _output_aliases),
    BeforeDispatch("output folders", _output_dirs),
    BeforeDispatch("refs still name their elements", _refs_unchanged),
    BeforeDispatch("ready to dispatch", _ready_to_dispatch),
    BeforeDispatch("credential fields found", _credential_fields),
)
"""The URL policy and the host's veto come first (nothing has touched the engine yet), then
the browser's presence. The page reads (the endpoint, a caller-owned tab, refs a same-document
change dropped, which journals a snapshot) come before the static guards, which judge what
the reads recorded. The output-path checks need no engine call and could come earlier; output
folders are made before the identity check, and stay when it then refuses."""


def _probe_take(
    call: DirectCall, rows: RiderRows, scripts: Sequence[BatchRow], reads: Sequence[BatchRow]
) -> None:
    assert isinstance(rows, click_probe.InstallRows)  # what `click_probe.install_rows` gave
    click_probe.take_install(call, rows, scripts, reads)


def _settle_wanted(call: DirectCall) -> bool:
    """The settle watcher is armed before a probed click (a click's navigation starts at the
    press); other actions arm it in the post-action batch of the call before."""
    return click_probe.will_install(call) and bool(nav_settle.arm_rows(call))


def _settle_rows(call: DirectCall, check: pre_dispatch.Check | None) -> RiderRows:
    return RiderRows(scripts=nav_settle.arm_rows(call), reads=[])


def _settle_take(
    call: DirectCall, rows: RiderRows, scripts: Sequence[BatchRow], reads: Sequence[BatchRow]
) -> None:
    """Nothing to keep: the post-action batch reads the armed watcher."""


def _secret_wanted(call: DirectCall) -> bool:
    return bool(secret_fields.pre_rows(call))


def _secret_rows(call: DirectCall, check: pre_dispatch.Check | None) -> RiderRows:
    return RiderRows(scripts=[], reads=secret_fields.pre_rows(call))


def _secret_take(
    call: DirectCall, rows: RiderRows, scripts: Sequence[BatchRow], reads: Sequence[BatchRow]
) -> None:
    if len(reads) == len(rows.reads):  # a batch that stopped early: `inspect` reads again
        secret_fields.take_pre(call, reads)


PRE_RIDERS: tuple[pre_dispatch.PreRider, ...] = (
    pre_dispatch.PreRider(
        "click", click_probe.will_install, click_probe.install_rows, _probe_take, alone=True
    ),
    pre_dispatch.PreRider("settle-watcher", _settle_wanted, _settle_rows, _settle_take, alone=True),
    pre_dispatch.PreRider("secrets", _secret_wanted, _secret_rows, _secret_take),
)
"""In this order in the batch: the click probe's install before the settle watcher's arming
(one `eval`), the credential-field reads after the check's own."""


POST_READERS: tuple[PostReader, ...] = (
    PostReader("click", click_probe.post_rows, click_probe.take, consumes=True),
    PostReader("readback", action_readback.rows, action_readback.take),
    PostReader("focused", focused_field.post_rows, focused_field.take),
    PostReader("dialog", overlay_probe.post_rows, overlay_probe.take_post),
)


def _credential_reads_redacted(call: DirectCall, spawned: Spawned) -> Spawned:
    found = call.part(secret_fields.Found).findings
    return secret_fields.redacted(spawned, found, call.rt.secrets)


ON_ANSWER: tuple[OnAnswer, ...] = (
    OnAnswer("credential reads redacted", _credential_reads_redacted),
)


async def _huge_values(call: DirectCall, answer: Answer, nested: Nested) -> None:
    answer.obs = value_spill.cut(call, answer.obs)


async def _credential_fields_named(call: DirectCall, answer: Answer, nested: Nested) -> None:
    secret_fields.annotate(answer.obs, call.part(secret_fields.Found).findings)


async def _batch_steps(call: DirectCall, answer: Answer, nested: Nested) -> None:
    step_lines.annotate(call, answer.obs)


ON_OBSERVATION: tuple[AfterDispatch, ...] = (
    AfterDispatch("huge values to files", _huge_values),
    AfterDispatch("credential fields named", _credential_fields_named),
    AfterDispatch("batch steps' elements and pages", _batch_steps),
)


async def _artifacts(call: DirectCall, answer: Answer, nested: Nested) -> None:
    answer.images = await artifacts.collect(call, answer.obs, answer.spawned)


async def _recorded_files(call: DirectCall, answer: Answer, nested: Nested) -> None:
    recorded_files.scrub(answer.obs, call.rt.secrets)


async def _batch_last_page(call: DirectCall, answer: Answer, nested: Nested) -> None:
    step_lines.annotate_last(call, answer.obs)


AFTER_READ_BACK: tuple[AfterDispatch, ...] = (
    AfterDispatch("artifacts verified", _artifacts),
    AfterDispatch("recorded files scrubbed", _recorded_files),
    AfterDispatch("a batch's last page move", _batch_last_page),
)


async def _selector_miss(call: DirectCall, answer: Answer, nested: Nested) -> None:
    with host_hook.internal():  # the wrapper's own snapshot is not the host's to veto
        await selector_miss.recover(call, answer.obs, nested)


async def _covering_dialog(call: DirectCall, answer: Answer, nested: Nested) -> None:
    with host_hook.internal():
        await overlay_probe.run(call, answer.obs, nested)


FOLLOW_UPS: tuple[AfterDispatch, ...] = (
    AfterDispatch("a selector miss's candidates", _selector_miss),
    AfterDispatch("a dialog that covers the page", _covering_dialog),
)
"""The wrapper's own journaled calls after the answer (each a `snapshot -i` at most)."""
