"""Property: a ref from a superseded snapshot, or from a page the browser has left, never
reaches the engine.

The test drives the direct tool's own pure stages (`build_plan`, `guards.refusal` before
dispatch, `followups.wants_probe` and `record.effects_of` after, journal intent + completion)
against a small model engine written here. The model knows the truth the wrapper cannot see:
which *document* is loaded (a new one after every real navigation) and which snapshot
generation the engine's ref map comes from.
Whenever the guard lets a ref-using command through, the model checks that the ref belongs to
the engine's latest snapshot, that the snapshot was taken on the current page (URL compared
without the fragment) and that no navigation happened since.

Deliberately outside the model, because the contract leaves them undetectable for the wrapper:
a click that reloads the *same* URL (including dropping a `#fragment`, which browsers treat as a
full load) and same-URL rerenders without a snapshot. A click that only changes the fragment
stays in the same document, so its refs legitimately remain valid.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.plan import build_plan
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.effects import Probe
from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.models import ConversationState, Effect, SessionKey
from agent_browser_tools.state.reducers import fold
from agent_browser_tools.state.stale_refs import normalize_url
from agent_browser_tools.tools.agent_browser import followups, guards, record
from agent_browser_tools.tools.agent_browser.batches import segments
from agent_browser_tools.tools.agent_browser.refs import ref_proof
from agent_browser_tools.tools.agent_browser.safety.editable_guard import TAKES_NO_TEXT

KEY = SessionKey(session="abt-property")
PAGES = (
    "http://site.test/a",
    "http://site.test/a#one",
    "http://site.test/a#two",
    "http://site.test/a?q=1",
    "http://site.test/a?q=2#one",
    "http://site.test/b",
)
ROLES = ("button", "link", "checkbox", "radio", "textbox")
#: Roles whose clicks never navigate in the model (the batch latch exempts checkbox/radio).
STATIC_ROLES = frozenset({"checkbox", "radio", "textbox", "combobox"})
_ENGINE_REF = re.compile(r"^(?:@|ref=)?(e\d+)$")


# ----- actions --------------------------------------------------------------------------


@dataclass(frozen=True)
class Navigate:
    """`open URL`; `outcome` models a failure before or after the new document committed."""

    url: str
    outcome: str = "ok"  # "ok" | "fail-before" | "fail-after"

    def tokens(self) -> tuple[str, ...]:
        return ("open", self.url)


@dataclass(frozen=True)
class Snapshot:
    """`snapshot -i` producing refs e1..eN with these roles (N = len(roles))."""

    roles: tuple[str, ...]

    def tokens(self) -> tuple[str, ...]:
        return ("snapshot", "-i")


@dataclass(frozen=True)
class UseRef:
    """`click eK` / `fill eK text`; a click on a non-static role may move to `dest`."""

    verb: str  # "click" | "fill"
    k: int
    spelling: str  # "@" | "" | "ref="
    dest: str | None = None

    def tokens(self) -> tuple[str, ...]:
        ref = f"{self.spelling}e{self.k}"
        return ("click", ref) if self.verb == "click" else ("fill", ref, f"e{self.k + 1}")


@dataclass(frozen=True)
class Batch:
    """`batch --bail` over these rows (stdin rows, as the direct tool receives them)."""

    rows: tuple[Navigate | Snapshot | UseRef, ...]


Action = Navigate | Snapshot | UseRef | Batch


# ----- the model engine ------------------------------------------------------------------


class StaleRefReachedEngine(AssertionError):
    """The property failed: the engine received a ref it could misuse."""


@dataclass
class EngineSnapshot:
    generation: int
    document: int
    url: str
    refs: dict[str, str]


@dataclass
class ModelEngine:
    """The browser as it really is; the wrapper only sees what results report."""

    url: str = "about:blank"
    document: int = 0
    snapshot: EngineSnapshot | None = None
    generations: int = 0
    trace: list[str] = field(default_factory=list)

    def _navigate_to(self, url: str) -> None:
        self.url, self.document = url, self.document + 1

    def _click_moves(self, dest: str | None) -> None:
        if dest is None or dest == self.url:
            return
        same_page = normalize_url(dest) == normalize_url(self.url)
        if same_page and "#" not in dest:
            return  # a same-URL reload: outside the model (see module docstring)
        if same_page:
            self.url = dest  # fragment navigation: same document, refs stay valid
        else:
            self._navigate_to(dest)

    def _check_ref(self, ref: str, *, after_batch_snapshot: bool) -> bool:
        """Apply the property to one received ref; return whether the engine resolves it."""
        snap = self.snapshot
        if snap is None:
            return False  # no ref map at all: the engine answers "Unknown ref"
        fresh = snap.document == self.document and normalize_url(snap.url) == normalize_url(
            self.url
        )
        # After a snapshot row in the same batch the wrapper cannot know the new ref ids
        # (contract: the snapshot step clears the latch as pre-spawn intent); the engine
        # rejects unknown ids itself, so only freshness is required there.
        known = ref in snap.refs
        if not fresh or (not known and not after_batch_snapshot):
            raise StaleRefReachedEngine(
                f"engine received {ref} from snapshot generation {snap.generation} "
                f"(document {snap.document}, {snap.url}, refs {sorted(snap.refs)}) while on "
                f"document {self.document} at {self.url}; trace: {self.trace}"
            )
        return known

    def execute(
        self, action: Navigate | Snapshot | UseRef, *, after_batch_snapshot: bool = False
    ) -> tuple[bool, dict[str, Any] | None, str | None]:
        """Run one command: (success, data, error)."""
        self.trace.append(repr(action))
        if isinstance(action, Navigate):
            if action.outcome == "fail-before":
                return False, None, "Navigation failed: net::ERR_CONNECTION_REFUSED"
            self._navigate_to(action.url)
            if action.outcome == "fail-after":
                return False, None, "Timeout 25000ms exceeded waiting for load"
            return True, {"url": action.url, "title": "T"}, None
        if isinstance(action, Snapshot):
            self.generations += 1
            refs = {f"e{i}": role for i, role in enumerate(action.roles, start=1)}
            self.snapshot = EngineSnapshot(self.generations, self.document, self.url, refs)
            data = {
                "origin": self.url,
                "refs": {ref: {"role": role, "name": f"n-{ref}"} for ref, role in refs.items()},
                "snapshot": "(model)",
            }
            return True, data, None
        ref = f"e{action.k}"
        if not self._check_ref(ref, after_batch_snapshot=after_batch_snapshot):
            return False, None, f"Unknown ref: {ref}"
        assert self.snapshot is not None
        if action.verb == "click" and self.snapshot.refs[ref] not in STATIC_ROLES:
            self._click_moves(action.dest)
            return True, {"clicked": f"@{ref}"}, None
        return True, {"clicked" if action.verb == "click" else "filled": f"@{ref}"}, None

    def reread(self) -> dict[str, Any]:
        """What the wrapper's identity re-read sees: the same nodes while the document is the
        one the snapshot was taken on, none of them after a navigation."""
        snap = self.snapshot
        if snap is None or snap.document != self.document:
            return {"snapshot": "", "refs": {}}
        refs = {ref: {"role": role, "name": f"n-{ref}"} for ref, role in snap.refs.items()}
        return {"snapshot": "(model)", "refs": refs}

    def probe(self) -> Probe:
        return Probe(url=self.url, title="T")


# ----- the wrapper pipeline: the direct tool's own pure stages ---------------------------


SESSION = ("--session", "abt-property")
SETTINGS = Settings(env={}, state_dir=Path("/nonexistent-state"))


def _plan(tokens: tuple[str, ...], state: ConversationState, stdin: str | None = None) -> Any:
    inp = AgentBrowserInput(args=[*SESSION, *tokens], stdin=stdin)
    return build_plan(inp, state, SETTINGS, root_id="root", native_default=None)


def _envelope(success: bool, data: Any, error: str | None) -> Envelope:
    return Envelope(mode=OutputMode.JSON, success=success, data=data, error=error)


@dataclass
class Stats:
    dispatched_ref_uses: int = 0
    blocked: int = 0


class Wrapper:
    """The direct tool's pipeline over one session: plan, `guards.refusal`, intent, the model
    engine, `followups.wants_probe`, `record.effects_of`, completion."""

    def __init__(self, engine: ModelEngine) -> None:
        self.engine = engine
        self.log = ConversationLog()
        self.calls = 0
        self.stats = Stats()

    def _dispatch(self, plan: Any, run: Callable[[], tuple[bool, list[Effect]]]) -> None:
        assert plan.session.key == KEY
        self.calls += 1
        call_id = f"c{self.calls}"
        self.log.intent(call_id, "agent_browser", KEY, tuple(plan.effective_args))
        success, effects = run()
        self.log.complete(call_id, KEY, success, effects)

    def direct(self, action: Navigate | Snapshot | UseRef) -> bool:
        """Run one direct call; False when the guard blocked it before dispatch."""
        plan = _plan(action.tokens(), self.log.state)
        if guards.refusal(plan, self.log.state) is not None or self._changed(plan):
            self.stats.blocked += 1
            return False

        def run() -> tuple[bool, list[Effect]]:
            success, data, error = self.engine.execute(action)
            envelope = _envelope(success, data, error)
            probe = self.engine.probe() if followups.wants_probe(plan, envelope) else None
            return success, record.effects_of(plan, envelope, probe)

        self._dispatch(plan, run)
        self.stats.dispatched_ref_uses += isinstance(action, UseRef)
        return True

    def _changed(self, plan: Any) -> bool:
        """The identity re-read before dispatch (`ref_proof.refs_to_verify` + `check`)."""
        entry = self.log.state.session(KEY)
        ids = ref_proof.refs_to_verify(plan, entry)
        if not ids or entry.ref_snapshot is None:
            return False
        return ref_proof.check(ids, entry.ref_snapshot.refs, self.engine.reread()) is not None

    def batch(self, batch: Batch) -> bool:
        rows = [list(row.tokens()) for row in batch.rows]
        self.engine.trace.append(f"batch of {len(rows)}:")
        plan = _plan(("batch", "--bail"), self.log.state, stdin=json.dumps(rows))
        if guards.refusal(plan, self.log.state) is not None or self._changed(plan):
            self.stats.blocked += 1
            return False

        entry = self.log.state.session(KEY)
        parts = segments.split(plan, entry) or []
        verify_at = {part.start: part.verify for part in parts if part.verify}
        recorded = entry.ref_snapshot.refs if entry.ref_snapshot is not None else {}

        def run() -> tuple[bool, list[Effect]]:
            results: list[BatchRow] = []
            seen_snapshot = False
            for index, action in enumerate(batch.rows):
                if index in verify_at:  # a later segment: its refs are re-read first
                    stale = ref_proof.check(verify_at[index], recorded, self.engine.reread())
                    if stale is not None:
                        self.stats.blocked += 1
                        refused = f"Stale ref blocked before dispatch: {stale.reason}"
                        results.append(BatchRow(action.tokens(), False, None, refused))
                        break
                success, data, error = self.engine.execute(
                    action, after_batch_snapshot=seen_snapshot
                )
                results.append(BatchRow(action.tokens(), success, data, error))
                seen_snapshot = seen_snapshot or isinstance(action, Snapshot)
                self.stats.dispatched_ref_uses += isinstance(action, UseRef)
                if not success:
                    break  # --bail: later rows are never reached
            ok = all(row.success for row in results)
            envelope = Envelope(mode=OutputMode.JSON, success=ok, rows=tuple(results))
            probe = self.engine.probe() if followups.wants_probe(plan, envelope) else None
            return ok, record.effects_of(plan, envelope, probe)

        self._dispatch(plan, run)
        return True


def _types_into_a_non_text_role(action: UseRef, snapshot: Snapshot) -> bool:
    """`fill`/`type` on a button is refused for its role (`editable_guard`), not for staleness."""
    return action.verb in ("fill", "type") and snapshot.roles[action.k - 1] in TAKES_NO_TEXT


def run_actions(actions: list[Action]) -> Wrapper:
    engine = ModelEngine()
    wrapper = Wrapper(engine)
    previous: Action | None = None
    for action in actions:
        if isinstance(action, Batch):
            wrapper.batch(action)
        else:
            allowed = wrapper.direct(action)
            # Liveness: the guard is not allowed to pass the property by blocking everything.
            # A ref taken from the snapshot the previous call just returned must go through.
            if (
                isinstance(action, UseRef)
                and isinstance(previous, Snapshot)
                and action.k <= len(previous.roles)
                and not _types_into_a_non_text_role(action, previous)
            ):
                assert allowed, f"fresh ref e{action.k} was blocked; trace: {engine.trace}"
        previous = action
    # The live state is the fold of its journal (a resumed conversation guards the same way).
    assert fold(wrapper.log.journal.events()) == wrapper.log.state
    return wrapper


# ----- strategies --------------------------------------------------------------------------

pages = st.sampled_from(PAGES)
navigate = st.builds(
    Navigate,
    url=pages,
    outcome=st.sampled_from(("ok", "ok", "ok", "ok", "fail-before", "fail-after")),
)
snapshot = st.builds(
    Snapshot, roles=st.lists(st.sampled_from(ROLES), min_size=1, max_size=4).map(tuple)
)
use_ref = st.builds(
    UseRef,
    verb=st.sampled_from(("click", "fill")),
    k=st.integers(min_value=1, max_value=5),
    spelling=st.sampled_from(("@", "", "ref=")),
    dest=st.none() | pages,
)
# Half of the batches start with their own snapshot: rows after it use ids the wrapper has
# not seen yet, which is where role metadata from the previous snapshot must not be trusted.
batch = st.builds(
    lambda lead, rows: Batch((*lead, *rows)),
    st.just(()) | snapshot.map(lambda s: (s,)),
    st.lists(navigate | snapshot | use_ref, min_size=1, max_size=5),
)
actions = st.lists(st.one_of(navigate, snapshot, use_ref, batch, batch), min_size=1, max_size=12)

_A, _AQ, _B = "http://site.test/a", "http://site.test/a?q=1", "http://site.test/b"


@settings(max_examples=300, deadline=None)
@given(actions)
# A failed `open` may still have committed the new document (load timeout).
@example([Navigate(_A), Snapshot(("button",)), Navigate(_B, "fail-after"), UseRef("fill", 1, "@")])
# In-batch snapshot: roles from the pre-batch snapshot must not exempt a click from the latch.
@example(
    [
        Navigate(_A),
        Snapshot(("checkbox", "textbox")),
        Batch(
            (
                Snapshot(("link", "textbox")),
                UseRef("click", 1, "@", _B),
                UseRef("fill", 2, "@"),
            )
        ),
    ]
)
# A navigating click observed by the probe: old refs are from another page now.
@example([Navigate(_A), Snapshot(("link", "button")), UseRef("click", 1, "", _AQ),
          UseRef("click", 2, "ref=")])  # fmt: skip
# A fragment-only click keeps the document: its refs stay usable (liveness, not safety).
@example([Navigate(_A), Snapshot(("link", "button")), UseRef("click", 1, "@", _A + "#one"),
          UseRef("click", 2, "@")])  # fmt: skip
def test_superseded_refs_never_reach_the_engine(actions: list[Action]) -> None:
    run_actions(actions)


def test_the_model_catches_a_guard_that_lets_everything_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The property can fail: with the guards disabled the model reports the stale ref."""
    monkeypatch.setattr(guards, "guard_direct", lambda match, entry, **_: None)
    with pytest.raises(StaleRefReachedEngine):
        run_actions([Navigate(_A), Snapshot(("button",)), Navigate(_B), UseRef("click", 1, "@")])


def test_a_batch_ref_after_a_navigating_step_is_refused_where_it_runs() -> None:
    """The navigating step runs; the old ref after it is re-read and refused, never sent."""
    wrapper = run_actions(
        [
            Navigate(_A),
            Snapshot(("link", "textbox")),
            Batch((UseRef("click", 1, "@", _B), UseRef("fill", 2, "@"))),
        ]
    )
    assert wrapper.stats.blocked == 1
    assert wrapper.engine.url == _B  # the click ran; the fill never reached the engine
    assert not any("fill" in step for step in wrapper.engine.trace)


def test_a_fragment_only_click_keeps_refs_usable() -> None:
    """Liveness: same document after `#one`, so the second ref is dispatched, not blocked."""
    wrapper = run_actions(
        [
            Navigate(_A),
            Snapshot(("link", "button")),
            UseRef("click", 1, "@", _A + "#one"),
            UseRef("click", 2, "@"),
        ]
    )
    assert wrapper.stats.blocked == 0
    assert wrapper.stats.dispatched_ref_uses == 2
    assert wrapper.engine.url == _A + "#one"
