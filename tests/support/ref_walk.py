"""A seeded random walk that checks every ref action hits the element the snapshot named.

Why (issue 14): the guarantee "a ref acts on the element the model's snapshot named, or is
refused as `stale-ref`" is about pages that re-render under the model, so it is measured on
one: `tests/fixture_site/walk.html` re-renders in every common way and logs which logical
element (`data-logical`) and which DOM node (`data-node`) each click/input/change hit. The
walk plays a model through `BrowserTools.call("agent_browser", ...)`; the harness's own page
reads (pause, layout, event log, timers) go straight to the engine with the conversation's
environment, so the wrapper's state sees only the model's calls.

Attribution: right after each model `snapshot -i` (page timers paused) the layout is read and
the snapshot's refs are matched to it in document order by role and name; a snapshot that
does not match one to one is not used for judging (counted). A ref from an older snapshot
that the latest snapshot also has is judged by the latest one: the wrapper and the model both
saw that one last (how often the meaning moved is counted as `reinterpreted`).

Remembered refs: a model that remembers a ref it took two to six snapshots ago (the date
field it saw first, the folder it already opened) means the element that snapshot showed, so
those calls are judged by that snapshot; they and the single ref calls from the latest
snapshot are also counted apart (`Figures.kinds`), with the element unchanged when the node
and name its snapshot showed still render it just before the call.

Judging: a dispatched call is `wrong` when the page logged an event from any element but the
intended ones, or a read returned another element's text. A refusal is `refused unchanged`
when every refused ref's element is still rendered by the same node with the same name right
after it. The rate divides those by all ref calls whose elements were unchanged.

The model's habits, which shape the figures: it re-snapshots after most refusals (85%) and
navigations (70%) and after 30% of other calls; batches put form rows (fill, check, select)
first and at most one click last, as the tool's batch rule asks.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from agent_browser_tools import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.ref_walk_judge import (
    KEEP_TRACES,
    MAPPED_ROLES,
    Figures,
    Snap,
    Target,
    attribute,
    call_shape,
    category_of,
    clickable,
    form_control,
    hit_twice,
    layout_of,
    loads,
    outcome_of,
    unchanged,
)

TOOL = "agent_browser"
PAGE = "walk.html"
#: Roles the fixture marks with `data-logical` (options belong to their combobox).
TIMER_KINDS = ("rotate", "shuffle", "sort", "remove", "restore", "pin", "wizard")
FILTER_TEXTS = ("", "a", "o", "ch", "e", "lt")
NOTE_TEXTS = ("first", "second", "call back", "done")
ORDER_VALUES = ("name", "reverse", "pinned")
NEW_TAB_LINKS = frozenset({"Open copy", "Open tasks"})
NEW_TAB_LINKS_LOGICAL = frozenset({"link-copy", "link-new-tasks"})
CONTROL_NAMES = frozenset(
    {"Shuffle", "Sort", "Rotate", "Remove first", "Restore", "Filter", "Order", "Rows view"}
    | {"Tasks view", "Continue", "Submit", "Comment"}
    | NEW_TAB_LINKS
)
MAX_TABS = 3
REMEMBERED_SPAN = 5
"""A remembered ref comes from one of the five snapshots before the latest two: what a model
keeps in mind is recent (the date field of this form, the folder it opened a few steps ago),
not a ref from pages it left long ago."""
PROBE_TIMEOUT_S = 30.0
OPEN_ATTEMPTS = 3
TRACE_STEPS = 12

LAYOUT_JS = "(() => { const l = walkLayout(); walkPause(false); return JSON.stringify(l); })()"


class RefWalk:
    """One seeded walk over walk.html in one conversation; `run` returns its figures."""

    def __init__(
        self,
        tools: BrowserTools,
        base_url: str,
        seed: int,
        *,
        think_s: float = 0.15,
        timer_ms: int = 80,
        timer_p: float = 0.3,
        checkbox_verbs: tuple[str, ...] = ("check", "click"),
    ) -> None:
        self.tools = tools
        self.page_url = f"{base_url.rstrip('/')}/{PAGE}"
        self.seed = seed
        self.rng = random.Random(seed)
        self.think_s = think_s
        self.timer_ms = timer_ms
        self.timer_p = timer_p
        self.checkbox_verbs = checkbox_verbs
        self.fig = Figures()
        self.snaps: deque[Snap] = deque(maxlen=8)
        self.trace: deque[str] = deque(maxlen=TRACE_STEPS)
        self.session: str | None = None
        self.tabs = 1
        self.timer: str | None = None
        self.want_snapshot = True

    async def run(self, actions: int) -> Figures:
        started = time.perf_counter()
        try:
            await self._open()
            while self.fig.actions < actions:
                await self._step()
        finally:
            self.fig.seconds += time.perf_counter() - started
        return self.fig

    # --- the model's moves ------------------------------------------------------------------

    async def _step(self) -> None:
        if self.timer is not None:  # the armed patch lands in the think time before this
            await self._ref_action(self._last())
            return
        if not self.snaps or self.want_snapshot:
            await self._snapshot()
            return
        moves: list[tuple[float, Callable[[], Any]]] = [
            (0.46, lambda: self._ref_action(self._last(), kind="latest")),
            (0.06, lambda: self._ref_action(self._older())),
            (0.12, self._remembered),
            (0.08, self._read),
            (0.08, self._batch),
            (0.12, self._control),
            (0.04, lambda: self._navigate(["back"])),
            (0.04, lambda: self._navigate(["reload"])),
            (0.05, self._switch_tab),
            (0.005, self._restart),
        ]
        pick = self.rng.random() * sum(weight for weight, _ in moves)
        for weight, move in moves:
            pick -= weight
            if pick < 0:
                await move()
                return
        await self._snapshot()

    async def _snapshot(self) -> None:
        await self._probe("walkPause(true)")
        result = await self._call(["snapshot", "-i"])
        layout = loads(await self._probe(LAYOUT_JS))
        self.fig.snapshots += 1
        if result.is_error:
            return
        data = result.details.get("data") or {}
        raw = data.get("refs") or result.details.get("refSnapshot", {}).get("refs") or {}
        roles = {r: (str(i.get("role")), str(i.get("name", ""))) for r, i in raw.items()}
        text = str(data.get("snapshot") or "")
        targets = attribute(text, roles, layout) if isinstance(layout, list) else None
        if targets is None:
            self.fig.snapshots_unmatched += 1
            if not any(role in MAPPED_ROLES for role, _ in roles.values()):
                await self._ensure_walk_page()  # a blank page after a failed open
        self.snaps.append(Snap(self.fig.snapshots, roles, targets))
        numbers = sorted(int(r[1:]) for r in roles)
        span = f"e{numbers[0]}..e{numbers[-1]}" if numbers else "no refs"
        self.trace[-1] += f" S{self.fig.snapshots} {span}" + ("" if targets else " (unmatched)")
        self.want_snapshot = False
        if self.rng.random() < self.timer_p:
            self.timer = self.rng.choice(TIMER_KINDS)
            await self._probe(f"armTimer({self.timer_ms}, {json.dumps(self.timer)})")

    async def _ref_action(self, snap: Snap | None, kind: str | None = None) -> None:
        ref = self._pick(snap, lambda role, name: role != "heading")
        if snap is None or ref is None:
            await self._snapshot()
            return
        role, name = snap.roles[ref]
        old = f" [ref from S{snap.number}]" if snap is not self.snaps[-1] else ""
        intended = [(ref, self._intended(ref, snap))]
        await self._act(self._verb(ref, role, name), intended, note=old, kind=kind)

    async def _remembered(self) -> None:
        """A ref the model took two to six snapshots ago (the date field it saw first, the
        folder it already opened), meant as the element that snapshot showed."""
        old = list(self.snaps)[-REMEMBERED_SPAN - 2 : -2]
        snap = self.rng.choice(old) if old else None
        ref = self._pick(snap, lambda role, name: role != "heading")
        if snap is None or ref is None or snap.targets is None:
            await self._ref_action(self._last(), kind="latest")
            return
        role, name = snap.roles[ref]
        note = f" [remembered from S{snap.number}]"
        intended = [(ref, snap.targets.get(ref))]
        await self._act(self._verb(ref, role, name), intended, note=note, kind="remembered")

    async def _read(self) -> None:
        snap = self._last()
        ref = self._pick(snap, lambda role, name: role in ("button", "link", "heading"))
        if snap is None or ref is None:
            await self._snapshot()
            return
        await self._act(["get", "text", "@" + ref], [(ref, self._intended(ref, snap))], read=True)

    async def _control(self) -> None:
        snap = self._last()
        ref = self._pick(snap, lambda role, name: name in CONTROL_NAMES or name.startswith("Pin "))
        if snap is None or ref is None:
            await self._snapshot()
            return
        role, name = snap.roles[ref]
        await self._act(self._verb(ref, role, name), [(ref, self._intended(ref, snap))])

    async def _batch(self) -> None:
        """2-3 rows: form rows first, then a click or one more form row."""
        snap = self._last()
        if snap is None:
            await self._snapshot()
            return
        rows: list[list[str]] = []
        intended: list[tuple[str, Target | None]] = []
        size = self.rng.choice((2, 3))
        for index in range(size):
            click = index == size - 1 and self.rng.random() < 0.5
            want = clickable if click else form_control
            ref = self._pick(snap, want, exclude={r for r, _ in intended})
            if ref is None:
                break
            role, name = snap.roles[ref]
            rows.append(self._verb(ref, role, name))
            intended.append((ref, self._intended(ref, snap)))
        if len(rows) < 2:
            await self._snapshot()
            return
        await self._act(["batch", "--bail"], intended, stdin=json.dumps(rows))

    async def _navigate(self, args: list[str]) -> None:
        await self._call(args)
        await self._ensure_walk_page()
        self.want_snapshot = self.rng.random() < 0.7

    async def _switch_tab(self) -> None:
        listing = await self._call(["tab", "list"])
        tabs = (listing.details.get("data") or {}).get("tabs") or []
        if not tabs:
            return
        self.tabs = len(tabs)
        others = [str(t["tabId"]) for t in tabs if not t.get("active")]
        if others:  # a model does not switch to the tab it is on
            await self._navigate(["tab", self.rng.choice(others)])

    async def _restart(self) -> None:
        """`close`, then open again: the engine numbers refs from e1 again (ids are reused)."""
        await self._call(["close"])
        self.tabs = 1
        await self._open()
        self.want_snapshot = self.rng.random() < 0.7

    async def _open(self) -> None:
        """Open the fixture; a daemon still shutting down after `close` can drop the first try."""
        for attempt in range(OPEN_ATTEMPTS):
            if not (await self._call(["open", self.page_url])).is_error:
                return
            await asyncio.sleep(0.5 * (attempt + 1))

    async def _ensure_walk_page(self) -> None:
        """`back` past the first page leaves the fixture: the model opens it again."""
        href = await self._probe("location.href")
        if not isinstance(href, str) or f"/{PAGE}" not in href:
            await self._open()

    # --- choosing refs ----------------------------------------------------------------------

    def _last(self) -> Snap | None:
        return self.snaps[-1] if self.snaps else None

    def _older(self) -> Snap | None:
        older = list(self.snaps)[:-1]
        return self.rng.choice(older) if older else self._last()

    def _pick(
        self,
        snap: Snap | None,
        want: Callable[[str, str], bool],
        exclude: set[str] | None = None,
    ) -> str | None:
        if snap is None:
            return None
        refs = [
            ref
            for ref, (role, name) in snap.roles.items()
            if role in MAPPED_ROLES
            and want(role, name)
            and ref not in (exclude or set())
            and not (name in NEW_TAB_LINKS and self.tabs >= MAX_TABS)
        ]
        return self.rng.choice(sorted(refs)) if refs else None

    def _verb(self, ref: str, role: str, name: str) -> list[str]:
        at = "@" + ref
        if role == "textbox":
            return ["fill", at, self.rng.choice(FILTER_TEXTS if name == "Filter" else NOTE_TEXTS)]
        if role == "checkbox":
            return [self.rng.choice(self.checkbox_verbs), at]
        if role == "combobox":
            return ["select", at, self.rng.choice(ORDER_VALUES)]
        return ["click", at]

    def _intended(self, ref: str, snap: Snap) -> Target | None:
        """The latest snapshot names a ref it has; an older one only refs the latest lacks."""
        latest = self.snaps[-1]
        mine = snap.targets.get(ref) if snap.targets is not None else None
        if snap is latest or ref not in latest.roles:
            return mine
        now = latest.targets.get(ref) if latest.targets is not None else None
        if mine is not None and now is not None and mine.logical != now.logical:
            self.fig.reinterpreted += 1
        return now

    # --- dispatch and judgement -------------------------------------------------------------

    async def _act(
        self,
        args: list[str],
        intended: list[tuple[str, Target | None]],
        *,
        stdin: str | None = None,
        read: bool = False,
        note: str = "",
        kind: str | None = None,
    ) -> None:
        self.fig.ref_actions += 1
        timer, self.timer = self.timer, None
        if timer is not None:
            await asyncio.sleep(self.think_s)  # the armed patch lands now
            note += f" [timer {timer}]"
        before = loads(await self._probe("walkClear()"))
        result = await self._call(args, stdin=stdin, note=note)
        take = loads(await self._probe("walkTake()"))
        events: list[dict[str, str]] = take.get("events", []) if isinstance(take, dict) else []
        self.trace[-1] += f" events={[(e['logical'], e['type']) for e in events]}"
        if any(e.get("logical") in NEW_TAB_LINKS_LOGICAL for e in events):
            self.tabs += 1
        stale = result.details.get("staleRef") if category_of(result) == "stale-ref" else None
        self.want_snapshot = self.rng.random() < (0.85 if result.is_error else 0.3)
        if stale is not None:
            self.fig.refused[str(stale.get("reason"))] += 1
        else:
            self.fig.dispatched += 1
        known = [t for _, t in intended if t is not None]
        if not isinstance(take, dict) or len(known) < len(intended):
            self.fig.unattributed += 1
            return
        layout = layout_of(take.get("layout"))
        by_logical = {t.logical: t for t in known}
        # Events count even when a batch is refused at a later step: earlier steps ran.
        stray = [e for e in events if e.get("logical") not in by_logical]
        data = result.details.get("data")
        text = data.get("text") if read and isinstance(data, dict) else None
        if kind is not None:
            self._judge_kind(kind, known, layout_of(before), stale, bool(stray))
        if stray or (read and not result.is_error and text != known[0].name):
            seen = f"hit {[e.get('logical') for e in stray]}" if stray else f"read {text!r}"
            call = call_shape(args, stdin, timer, known)
            self._wrong(known, layout_of(before), seen, call, hit_twice=hit_twice(known, events))
        elif stale is not None:
            self._judge_refusal(stale, intended, layout)
        elif any(e.get("node") != by_logical[e["logical"]].node for e in events):
            self.fig.reresolved += 1
        elif unchanged(
            [t for t in known if t.logical not in {e["logical"] for e in events}], layout
        ):
            self.fig.unchanged += 1

    def _judge_kind(
        self,
        kind: str,
        known: list[Target],
        before: dict[str, tuple[str, str]],
        stale: dict[str, Any] | None,
        stray: bool,
    ) -> None:
        """Per-kind figures: the element counts as unchanged when the node and name its
        snapshot showed still render it just before the call."""
        figures = self.fig.kinds[kind]
        figures.calls += 1
        still = unchanged(known, before)
        figures.unchanged += still
        figures.wrong += stray
        if stale is not None:
            reason = str(stale.get("reason"))
            figures.refused[reason] += 1
            if still:
                figures.refused_unchanged[reason] += 1
                self._keep_trace(f"{kind} {reason}", f"{kind} ref refused although unchanged")

    def _wrong(
        self,
        known: list[Target],
        before: dict[str, tuple[str, str]],
        seen: str,
        call: str,
        hit_twice: bool,
    ) -> None:
        """Count a wrong dispatch under its mechanism; `wrong_calls` keeps the exact call shape."""
        self.fig.wrong += 1
        changed = [t.logical for t in known if not unchanged([t], before)]
        if changed:
            mechanism = "its element had changed before the call, yet it was dispatched"
        elif hit_twice:
            mechanism = "the engine acted on its node again after the page re-labelled it"
        elif call.startswith("batch "):
            mechanism = "an earlier batch row re-rendered the page under a later row's ref"
        else:
            mechanism = "the page re-rendered during the call itself"
        self.fig.wrong_by[mechanism] += 1
        self.fig.wrong_calls[call] += 1
        when = f"{', '.join(changed)} changed before the call" if changed else "none changed before"
        meant = ", ".join(t.logical for t in known)
        self._keep_trace(call, f"WRONG ({call}): meant {meant} ({when}); {seen}")

    def _judge_refusal(
        self,
        stale: dict[str, Any],
        intended: list[tuple[str, Target | None]],
        layout: dict[str, tuple[str, str]],
    ) -> None:
        """A refusal is false when every refused ref's element is still as the snapshot saw it."""
        reason = str(stale.get("reason"))
        refused = {str(r).lstrip("@") for r in stale.get("refs") or []}
        targets = [t for ref, t in intended if t is not None and ref in refused]
        if targets and unchanged(targets, layout):
            self.fig.refused_unchanged[reason] += 1
            self.fig.unchanged += 1
            self._keep_trace(reason, f"refused although unchanged ({reason}): {targets[0].logical}")

    def _keep_trace(self, kind: str, title: str) -> None:
        """The last steps before the first case of each kind, for the report."""
        if len(self.fig.traces) < KEEP_TRACES and kind not in self.fig.traces:
            steps = "\n".join("    " + line for line in self.trace)
            self.fig.traces[kind] = f"seed {self.seed}: {title}\n{steps}"

    # --- talking to the tool and the page ---------------------------------------------------

    async def _call(self, args: list[str], stdin: str | None = None, note: str = "") -> ToolResult:
        params: dict[str, Any] = {"args": args}
        if stdin is not None:
            params["stdin"] = stdin
        result = await self.tools.call(TOOL, params)
        self.fig.actions += 1
        self.session = str(result.details.get("sessionName") or self.session or "") or None
        shown = " ".join(args) + (f" <<< {stdin}" if stdin else "")
        self.trace.append(f"#{self.fig.actions} {shown}{note} -> {outcome_of(result)}")
        category = category_of(result)
        if result.is_error and category != "stale-ref":
            self.fig.failures[f"{args[0]}: {category}"] += 1
        if any(a.get("id") == "verify-page-target" for a in result.details.get("nextActions", [])):
            await self._call(["get", "url"])  # what the tool asks for when the tab is unknown
        return result

    async def _probe(self, js: str) -> Any:
        """The harness's own `eval` in the session's active tab, bypassing the wrapper."""
        if self.session is None:
            return None
        rt = self.tools.runtime
        proc = await asyncio.create_subprocess_exec(
            rt.engine.path,
            *("--json", "--session", self.session, "eval", js),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=rt.child_env,
        )
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), PROBE_TIMEOUT_S)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            return None
        envelope = loads(out.decode(errors="replace"))
        if not isinstance(envelope, dict) or not envelope.get("success"):
            return None
        return (envelope.get("data") or {}).get("result")
