"""Direct tool, just before dispatch: is the call typing into (or reading) a credential field?

Why: a password typed with `fill` used to come back from `get value`, in `details.args`, batch
rows, code-cell data and the journal. The snapshot does not say which textbox is a password
field, so before a `fill`/`type`/`press`/`keyboard type`/`keyboard inserttext`/`get value`
(direct or as batch rows) the wrapper reads the target's attributes in one engine `batch` of
`get attr` rows (plus one `eval` of the focused element for keyboard typing) on the call's own
session, and judges them with `credentials.fields`.

- A value typed into a credential field is registered in the conversation's `SecretStore`
  before the intent is journaled, so the journal, details, batch rows and every later output
  show `[redacted: typed into a credential field]` instead.
- So is the value the field will hold: a password typed key by key (`press h`, `press u`,
  ...) or inserted into text already there is never one argv token. The same read returns
  the field's value (and, for the focused element, its selection) and the call's edits are
  played forward on it (`credentials.typing`); the value read and the values the edits
  should give it are tracked per field (`SecretStore.track_field`: a prediction retires
  nothing, a newer read retires the older values it contains). The focused element is read
  again after the call (`focused_field`), and that read stands in for the next typing call's
  own when nothing ran in between. A selector's value read back scrubbed (it holds a
  registered value already) counts as unknown, and then only what the call types is
  registered.
- `get value` of a credential field answers `[redacted: credential field]`, with the reason in
  `details.redacted`; the value read is registered too.

Cost: one extra engine call for a call that types or reads a field whose selector, ref name
or label does not already say it is a credential, or that types into text already there
(`type`, `press` of an editing key, `keyboard type`); none for `fill` of a known credential,
`press Enter`, or a `press` right after another typing call (its post-action read is
used). The verdict is the union of what the page read says and what the selector or ref name
says, so a read can only add a credential, never clear one. Limits: a field that does
not exist yet when the call starts (revealed or navigated to by an earlier step of the same
batch) is judged by its selector and ref name only, and so is `find ... fill` by its locator
text; `eval` that sets a field's value is not seen at all; a caret a selector's read cannot
see is assumed at either end of the value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent_browser_tools.credentials import READ_PLACEHOLDER, TYPED_PLACEHOLDER, SecretStore
from agent_browser_tools.credentials.fields import (
    ATTRIBUTES,
    FieldRead,
    credential_reason,
    selector_reason,
)
from agent_browser_tools.credentials.typing import Field, candidates, key_edit, play
from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import SECRET_PLACEHOLDER
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import RefInfo, SessionKey
from agent_browser_tools.taxonomy import CommandMatch, FieldEdit, FieldValue
from agent_browser_tools.tools.agent_browser.call import DirectCall, Spawned
from agent_browser_tools.tools.agent_browser.effects import focused_read
from agent_browser_tools.tools.agent_browser.effects.focused_read import FOCUSED_JS
from agent_browser_tools.tools.agent_browser.helpers import helper_call
from agent_browser_tools.tools.agent_browser.refs import refmap

BATCH_TEXT_REDACTED = (
    "[redacted: this batch read a credential field; run it with JSON output to see the other steps]"
)


@dataclass(frozen=True)
class Target:
    """One field a call types into or reads. `selector` None: the focused element."""

    step: int | None
    command: str
    selector: str | None
    value: str | None = None
    hint: str = ""
    """Text judged without reading the page: the selector, or `find`'s locator."""
    label: str | None = None
    """The ref's accessible name from the model's snapshot, when the selector is a ref."""
    probe: bool = True
    edit: FieldEdit = FieldEdit.INSERT
    """How `value` changes the field (`FILL` for fill, `KEY` when `value` is a key name)."""
    slot: tuple[str | None, int] = (None, 0)
    """Which field the edits of a batch accumulate in: the selector, or the focused element
    and how many times focus moved somewhere unknown before this step."""


@dataclass
class Findings:
    """The credential fields of one call: typed ones are registered, read ones redacted."""

    fields: list[dict[str, Any]] = field(default_factory=list)
    reads: set[int | None] = field(default_factory=set)
    short: bool = False


@dataclass
class Found:
    """This call's findings (`inspect`, before the dispatch), for the answer's redaction and
    its `details.redacted` after it."""

    findings: Findings = field(default_factory=Findings)


def targets(plan: ExecutionPlan, table: Mapping[str, RefInfo]) -> list[Target]:
    """The fields this call types into or reads, with their step in a batch (pure)."""
    if not plan.is_batch:
        target, _focus, _moved = _row_targets(None, plan.match, None, 0, table)
        return [target] if target is not None else []
    out: list[Target] = []
    focus: str | None = None
    moved = 0
    for step, match in enumerate(plan.row_matches or (), start=1):
        target, focus, moved = _row_targets(step, match, focus, moved, table)
        if target is not None:
            out.append(target)
    return out


def _row_targets(
    step: int | None,
    match: CommandMatch | None,
    focus: str | None,
    moved: int,
    table: Mapping[str, RefInfo],
) -> tuple[Target | None, str | None, int]:
    """(this row's target, the selector focused after it, how often focus moved somewhere
    unknown), read from the taxonomy's `field_value` and `moves_focus` columns. A key that
    edits the focused field (`press a`) keeps focus; any other key may move it (`Tab`)."""
    if match is None:
        return None, focus, moved
    spec, ops = match.spec, match.operands
    rule = spec.field_value
    target = _target(step, match, rule, focus, moved, table) if rule is not None else None
    if spec.moves_focus is None:
        keeps = rule is not None and rule.edit is FieldEdit.KEY and target is not None
        if not keeps:
            focus, moved = None, moved + 1
    elif spec.moves_focus and ops:
        focus = ops[0]
    return target, focus, moved


def _target(
    step: int | None,
    match: CommandMatch,
    rule: FieldValue,
    focus: str | None,
    moved: int,
    table: Mapping[str, RefInfo],
) -> Target | None:
    ops, name = match.operands, match.spec.name
    if rule.action is not None:
        index, words = rule.action
        if len(ops) <= index or ops[index] not in words:
            return None
    if rule.text is not None and len(ops) <= rule.text:
        return None
    text = ops[rule.text] if rule.text is not None else None
    if rule.edit is FieldEdit.KEY and (text is None or key_edit(text) is None):
        return None  # `press Enter`: the field's value stays as it is
    if rule.locator and rule.target is not None:
        hint = " ".join([*ops[rule.target : rule.target + 2], match.flag_value("--name") or ""])
        return Target(step, name, None, text, hint=hint, probe=False, edit=rule.edit)
    selector = (
        focus if rule.target is None else (ops[rule.target] if len(ops) > rule.target else None)
    )
    if selector is None:
        if rule.target is not None:
            return None
        return Target(step, name, None, text, edit=rule.edit, slot=(None, moved))
    ref = selector.removeprefix("@").removeprefix("ref=")
    info = table.get(ref)
    label = info.name if info is not None else None
    return Target(
        step, name, selector, text, hint=selector, label=label, edit=rule.edit, slot=(selector, 0)
    )


def _known(target: Target) -> str | None:
    """A verdict that needs no page read: the selector or the ref's name says credential."""
    return credential_reason({}, [target.label]) or selector_reason(target.hint)


def _needs_value(target: Target) -> bool:
    """Typing into text already there needs it read (a fill replaces it; the focused element
    after focus moved mid-batch is not the one the read sees)."""
    return target.edit is not FieldEdit.FILL and target.slot[1] == 0 and target.value is not None


def probe_rows(
    found: Sequence[Target], table: Mapping[str, RefInfo], *, focused_known: bool = False
) -> tuple[list[list[str]], list[str | None]]:
    """One engine batch reading every undecided target (pure): `get attr` rows per selector
    and a `get value` row when its text is typed into; one `eval` of the focused element
    (attributes, value, selection) unless `focused_known`; and the key (selector or None) of
    each row."""
    rows: list[list[str]] = []
    keys: list[str | None] = []
    done: set[tuple[str | None, str]] = set()
    for target in found:
        attrs, value = _known(target) is None, _needs_value(target)
        if not target.probe or not (attrs or value):
            continue
        selector = target.selector
        if selector is None:
            if not focused_known and (None, "eval") not in done:
                done.add((None, "eval"))
                rows.append(["eval", FOCUSED_JS])
                keys.append(None)
            continue
        if attrs and (selector, "attr") not in done:
            done.add((selector, "attr"))
            rows += [["get", "attr", selector, attribute] for attribute in ATTRIBUTES]
            keys += [selector] * len(ATTRIBUTES)
        if value and (selector, "value") not in done:
            done.add((selector, "value"))
            rows.append(["get", "value", selector])
            keys.append(selector)
    return refmap.rows_to_engine(rows, table), keys


def read_attributes(
    envelope: Envelope | None, keys: Sequence[str | None]
) -> dict[str | None, FieldRead]:
    """What the probe batch found per key (pure); a key whose element could not be read is
    absent."""
    rows = envelope.rows if envelope is not None and envelope.rows is not None else ()
    return read_rows(rows, keys)


def read_rows(rows: Sequence[BatchRow], keys: Sequence[str | None]) -> dict[str | None, FieldRead]:
    """`read_attributes` over the answered rows themselves (from any batch they rode in)."""
    out: dict[str | None, FieldRead] = {}
    for index, row in enumerate(rows[: len(keys)]):
        key = keys[index]
        result = row.result if row.success and isinstance(row.result, Mapping) else None
        if result is None:
            continue
        if key is None:
            focused = focused_read.parse(result)
            if focused is not None:
                out[None] = focused
            continue
        read = out.setdefault(key, FieldRead())
        if tuple(row.command[1:2]) == ("value",):
            out[key] = replace(read, value=_unscrubbed(result.get("value")))
        else:
            attribute = row.command[3] if len(row.command) > 3 else ""
            read.attrs[attribute] = _text(result.get("value"))
    return out


def _unscrubbed(value: object) -> str | None:
    """A read value, or None when scrubbing replaced part of it (so the real one is unknown)."""
    if not isinstance(value, str):
        return None
    if TYPED_PLACEHOLDER in value or READ_PLACEHOLDER in value or SECRET_PLACEHOLDER.search(value):
        return None
    return value


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Page:
    """Where a call's fields are: its session and the page it is on (names fields apart)."""

    key: SessionKey | None = None
    url: str = ""

    def field(self, target: Target, info: FieldRead) -> str | None:
        """The name a target's field is tracked by (`SecretStore.track_field`), None when
        it cannot be told apart (focus moved somewhere unknown earlier in the batch)."""
        if self.key is None or target.slot[1] != 0:
            return None
        if target.selector is None:
            return focused_read.field_id(self.key, info)
        label = f"{self.key.namespace or ''}/{self.key.session}"
        return f"{label}|{self.url}|selector|{target.selector}"


def judge(
    found: Sequence[Target],
    read: Mapping[str | None, FieldRead],
    store: SecretStore,
    page: Page | None = None,
) -> Findings:
    """Register typed credential values (and the values their fields reach) and collect the
    redactions for this call."""
    page = page or Page()
    findings = Findings()
    fields: dict[tuple[str | None, int], list[Field] | None] = {}
    for target in found:
        info = read.get(target.selector) or FieldRead()
        reason = credential_reason(info.attrs, [target.label, *info.labels]) or selector_reason(
            target.hint
        )
        first = target.slot not in fields
        reached = _play(fields, target, info)
        if reason is None or target.value == "":
            continue
        entry: dict[str, Any] = {"command": target.command, "why": reason}
        if target.step is not None:
            entry["step"] = target.step
        if target.selector is not None:
            entry["target"] = target.selector
        if target.value is None:
            findings.reads.add(target.step)
            entry["value"] = "read"
        else:
            entry["value"] = "typed"
            if target.edit is not FieldEdit.KEY:
                findings.short = findings.short or not store.register_typed(target.value)
            fresh = first and target.slot[1] == 0 and target.edit is not FieldEdit.FILL
            store.track_field(
                page.field(target, info),
                read=info.value if fresh else None,
                predicted=reached,
            )
        findings.fields.append(entry)
    return findings


def _play(
    fields: dict[tuple[str | None, int], list[Field] | None], target: Target, info: FieldRead
) -> list[str]:
    """Play the target's edit on its field's candidates; the values it may now hold. A field
    whose state became unknown stays unknown for the rest of the call."""
    if target.value is None:
        return []
    if target.slot not in fields:
        # After focus moved somewhere unknown, the read describes another element.
        fresh = target.slot[1] == 0
        start = candidates(info.value if fresh else None, info.selection if fresh else None)
        fields[target.slot] = start
    before = fields[target.slot]
    after = play(before, target.edit, target.value) if before is not None else None
    fields[target.slot] = after
    return [field.value for field in after or () if field.value]


Planned = tuple[list[Target], list[list[str]], list[str | None]]
"""The call's credential-field targets, the read rows for them and each row's key."""


@dataclass
class PreReads:
    """What this call reads, decided once (`_planned`), and the answers when they rode in
    the pre-dispatch batch (None: they did not)."""

    decided: bool = False
    planned: Planned | None = None
    focused: FieldRead | None = None
    """The previous call's read of the focused field, when the rows were made without a read
    of their own (the memo lapses once any engine call ran, the pre-dispatch batch included:
    rows and keys must come from the same moment)."""
    answered: tuple[BatchRow, ...] | None = None


def _planned(call: DirectCall) -> Planned | None:
    """This call's credential-field targets and the read rows for them, or None when there is
    nothing to read (no session, no target, or a page this conversation does not know).
    Decided on first use and kept for the call (see `PreReads.focused`)."""
    state = call.part(PreReads)
    if not state.decided:
        state.decided = True
        state.focused = focused_read.remembered(call)
        state.planned = _plan(call, focused_known=state.focused is not None)
    return state.planned


def _plan(call: DirectCall, *, focused_known: bool) -> Planned | None:
    if call.key is None:
        return None
    found = targets(call.plan, call.ref_table)
    if not found:
        return None
    rows, keys = probe_rows(found, call.ref_table, focused_known=focused_known)
    entry = call.rt.log.state.session(call.key)
    if not rows or (entry.target is None and entry.ref_snapshot is None):
        return found, [], keys
    return found, rows, keys


def pre_rows(call: DirectCall) -> list[list[str]]:
    """The field reads `inspect` needs, to ride in the call's pre-dispatch batch (the identity
    check's) instead of a batch of their own; their answers go to `take_pre`."""
    planned = _planned(call)
    return planned[1] if planned is not None else []


def take_pre(call: DirectCall, answered: Sequence[BatchRow]) -> None:
    """Keep what the pre-dispatch batch answered for `pre_rows`."""
    call.part(PreReads).answered = tuple(answered)


async def inspect(call: DirectCall) -> Findings:
    """Find this call's credential fields (at most one engine call, none when the reads rode
    in the pre-dispatch batch: their answers meet the keys the rows were made with) and
    register values.

    A session with no page this conversation knows of is not read: the read would launch its
    browser behind the call's back (the call's own answer then says nothing was launched), and
    a blank page has no field to read anyway.
    """
    planned = _planned(call)
    if planned is None:
        return Findings()
    found, rows, keys = planned
    assert call.key is not None  # `_planned` answers only for a session
    answered: Sequence[BatchRow] = ()
    pre = call.part(PreReads).answered
    if pre is not None:
        answered = pre
    elif rows:
        envelope = await helper_call(call.rt, call.plan, ["batch"], stdin=json.dumps(rows))
        answered = (envelope.rows or ()) if envelope is not None else ()
    read = read_rows(answered, keys)
    focused = call.part(PreReads).focused
    if focused is not None:
        read[None] = focused
    entry = call.rt.log.state.session(call.key)
    page = Page(call.key, entry.target.url if entry.target is not None else "")
    return judge(found, read, call.rt.secrets, page)


def redacted(spawned: Spawned, findings: Findings, store: SecretStore) -> Spawned:
    """The spawned call with its credential-field reads redacted."""
    if not findings.reads:
        return spawned
    return replace(spawned, envelope=redact_reads(spawned.envelope, findings, store))


def redact_reads(envelope: Envelope, findings: Findings, store: SecretStore) -> Envelope:
    """`get value` answers of credential fields replaced (values registered first)."""
    if not findings.reads:
        return envelope
    if envelope.mode is OutputMode.TEXT and findings.reads != {None}:
        # Native batch text has no row boundaries: the whole text goes.
        return replace(envelope, text=BATCH_TEXT_REDACTED + "\n")
    if envelope.rows is not None:
        rows = tuple(
            replace(row, result=_redacted_value(row.result, store))
            if step in findings.reads and row.success
            else row
            for step, row in enumerate(envelope.rows, start=1)
        )
        return replace(envelope, rows=rows)
    if not envelope.success:
        return envelope
    if envelope.mode is OutputMode.TEXT:
        text = (envelope.text or "").rstrip("\n")
        if text:
            store.register_typed(text)
            return replace(envelope, text=READ_PLACEHOLDER + "\n")
        return envelope
    return replace(envelope, data=_redacted_value(envelope.data, store))


def _redacted_value(data: Any, store: SecretStore) -> Any:
    if not isinstance(data, Mapping) or not isinstance(data.get("value"), str):
        return data
    if not data["value"]:
        return data
    store.register_typed(data["value"])
    return {**data, "value": READ_PLACEHOLDER}


def annotate(obs: Observation, findings: Findings) -> None:
    """`details.redacted`: which fields were treated as credentials, and why."""
    if not findings.fields:
        return
    info: dict[str, Any] = {"reason": "credential-field", "fields": findings.fields}
    if findings.short:
        info["note"] = (
            "A typed value shorter than 4 characters is masked in argv echoes and batch rows "
            "only, not in page text (it would mangle ordinary text)."
        )
    obs.extra["redacted"] = info
    if findings.reads:
        obs.warnings.append(
            "The value of a credential field is not shown ("
            + "; ".join(f["why"] for f in findings.fields if f.get("value") == "read")
            + "); use it by typing, not by reading it back."
        )
