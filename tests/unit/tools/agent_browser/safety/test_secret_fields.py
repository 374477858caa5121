"""Credential fields before dispatch: targets, the probe batch, verdicts, redacted reads."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from agent_browser_tools.credentials import READ_PLACEHOLDER, TYPED_PLACEHOLDER, SecretStore
from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import RefInfo, SessionKey
from agent_browser_tools.taxonomy import FieldEdit
from agent_browser_tools.tools.agent_browser.effects import focused_read
from agent_browser_tools.tools.agent_browser.effects.focused_read import FOCUSED_JS
from agent_browser_tools.tools.agent_browser.safety import secret_fields as sf
from tests.support.fake_calls import fake_call
from tests.support.plans import plan

REFS = {
    "e2": RefInfo(role="textbox", name="Code"),
    "e5": RefInfo(role="textbox", name="Password"),
    "e7": RefInfo(role="textbox", name="Search", engine="e3"),
}


def test_direct_fill_type_keyboard_and_get_value_targets() -> None:
    (fill,) = sf.targets(plan(["fill", "@e2", "hunter2secret"]), REFS)
    assert (fill.step, fill.command, fill.selector, fill.value, fill.label) == (
        None,
        "fill",
        "@e2",
        "hunter2secret",
        "Code",
    )
    (typed,) = sf.targets(plan(["type", "#pw", "abc"]), REFS)
    assert typed.selector == "#pw" and typed.value == "abc"
    (keys,) = sf.targets(plan(["keyboard", "type", "9876543"]), REFS)
    assert keys.selector is None and keys.value == "9876543"
    (read,) = sf.targets(plan(["get", "value", "#pw"]), REFS)
    assert read.command == "get value" and read.value is None
    assert sf.targets(plan(["click", "#go"]), REFS) == []
    assert sf.targets(plan(["get", "text", "#pw"]), REFS) == []


def test_batch_rows_know_their_step_and_the_focused_field() -> None:
    rows = [
        ["open", "https://a.test/"],
        ["click", "#otp"],
        ["keyboard", "inserttext", "123456"],
        ["press", "Tab"],
        ["keyboard", "type", "after-tab"],
        ["find", "label", "Password", "fill", "pw-from-find"],
        ["find", "label", "Email", "click"],
        ["get", "value", "@e5"],
    ]
    found = sf.targets(plan(["batch"], rows=rows), REFS)
    assert [(t.step, t.command, t.selector, t.value) for t in found] == [
        (3, "keyboard inserttext", "#otp", "123456"),
        (5, "keyboard type", None, "after-tab"),
        (6, "find", None, "pw-from-find"),
        (8, "get value", "@e5", None),
    ]
    assert found[2].hint.strip() == "label Password" and not found[2].probe


def test_probe_reads_only_undecided_targets_in_one_batch() -> None:
    found = sf.targets(
        plan(
            ["batch"],
            rows=[
                ["fill", "@e7", "shoes"],  # a ref named Search: read it
                ["fill", "#password", "pw-123456"],  # the selector already says so
                ["fill", "@e5", "pw-123456"],  # the ref's name already says so
                ["keyboard", "type", "x"],  # fill focuses @e5: its value is read
                ["press", "Tab"],
                ["keyboard", "type", "y"],  # focus moved: the focused element is read
            ],
        ),
        REFS,
    )
    rows, keys = sf.probe_rows(found, REFS)
    attrs = [row for row in rows if row[:2] == ["get", "attr"]]
    assert {row[2] for row in attrs} == {"@e3"}  # shown @e7 goes out as the engine's e3
    assert [row[3] for row in attrs] == [
        "type",
        "autocomplete",
        "name",
        "id",
        "aria-label",
        "placeholder",
    ]
    assert rows[-2:] == [["get", "value", "@e5"], ["eval", FOCUSED_JS]]
    assert keys == ["@e7"] * 6 + ["@e5", None]


def _attr_row(selector: str, attribute: str, value: str | None) -> BatchRow:
    return BatchRow(("get", "attr", selector, attribute), True, {"value": value}, None)


def test_verdicts_register_typed_values_and_collect_reads() -> None:
    found = sf.targets(
        plan(
            ["batch"],
            rows=[
                ["fill", "#a", "hunter2secret"],
                ["fill", "#b", "12"],
                ["fill", "#c", "ordinary"],
                ["get", "value", "#a"],
                ["press", "Tab"],
                ["keyboard", "type", "otp-99999"],
            ],
        ),
        {},
    )
    rows, keys = sf.probe_rows(found, {})
    answers = []
    values = {
        ("#a", "type"): "password",
        ("#b", "autocomplete"): "one-time-code",
        ("#c", "type"): "text",
    }
    for row in rows[:-1]:
        answers.append(_attr_row(row[2], row[3], values.get((row[2], row[3]))))
    focused = {"type": "text", "name": "otp", "labels": []}
    answers.append(BatchRow(("eval", "js"), True, {"result": focused}, None))
    envelope = Envelope(mode=OutputMode.JSON, success=True, rows=tuple(answers))
    store = SecretStore()
    findings = sf.judge(found, sf.read_attributes(envelope, keys), store)
    assert [(f.get("step"), f["value"], f["why"]) for f in findings.fields] == [
        (1, "typed", "input type=password"),
        (2, "typed", "autocomplete=one-time-code"),
        (4, "read", "input type=password"),
        (6, "typed", "name 'otp' marks a credential"),
    ]
    assert findings.reads == {4} and findings.short
    assert store.scrub("x hunter2secret otp-99999 ordinary") == (
        f"x {TYPED_PLACEHOLDER} {TYPED_PLACEHOLDER} ordinary"
    )
    obs = Observation(success=True)
    sf.annotate(obs, findings)
    assert obs.extra["redacted"]["reason"] == "credential-field"
    assert "shorter than 4" in obs.extra["redacted"]["note"]
    assert obs.warnings and "not shown" in obs.warnings[0]


def test_an_unreadable_element_falls_back_to_its_selector() -> None:
    found = sf.targets(
        plan(["batch"], rows=[["fill", "#pwd", "pw-1234567"], ["fill", "#q", "shoes"]]), {}
    )
    failed = BatchRow(("get", "attr", "#q", "type"), False, None, "Element not found: #q")
    envelope = Envelope(mode=OutputMode.JSON, success=False, rows=(failed,) * 6)
    store = SecretStore()
    findings = sf.judge(found, sf.read_attributes(envelope, ["#q"] * 6), store)
    assert [f["target"] for f in findings.fields] == ["#pwd"]
    assert store.scrub("pw-1234567 shoes") == f"{TYPED_PLACEHOLDER} shoes"


def _reads(*steps: int | None) -> sf.Findings:
    return sf.Findings(fields=[], reads=set(steps))


def test_direct_get_value_answers_redacted_and_registers_the_value() -> None:
    store = SecretStore()
    data: dict[str, Any] = {"value": "prefilled-9", "origin": "http://a.test/"}
    envelope = Envelope(mode=OutputMode.JSON, success=True, data=data)
    out = sf.redact_reads(envelope, _reads(None), store)
    assert out.data == {"value": READ_PLACEHOLDER, "origin": "http://a.test/"}
    assert store.scrub("prefilled-9") == TYPED_PLACEHOLDER
    empty = Envelope(mode=OutputMode.JSON, success=True, data={"value": ""})
    assert sf.redact_reads(empty, _reads(None), store).data == {"value": ""}
    text = Envelope(mode=OutputMode.TEXT, success=True, text="prefilled-9\n")
    assert sf.redact_reads(text, _reads(None), store).text == READ_PLACEHOLDER + "\n"


def test_batch_get_value_rows_are_redacted_by_step() -> None:
    rows = (
        BatchRow(("get", "value", "#a"), True, {"value": "plain"}, None),
        BatchRow(("get", "value", "#pw"), True, {"value": "pw-read-1"}, None),
    )
    store = SecretStore()
    out = sf.redact_reads(Envelope(OutputMode.JSON, True, rows=rows), _reads(2), store)
    assert out.rows is not None
    assert [row.result for row in out.rows] == [{"value": "plain"}, {"value": READ_PLACEHOLDER}]
    native = Envelope(OutputMode.TEXT, True, text="plain\npw-read-1\n")
    assert sf.redact_reads(native, _reads(2), store).text == sf.BATCH_TEXT_REDACTED + "\n"


PAGE = sf.Page(SessionKey(session="abt-test"), "http://a.test/login")


def _focused_answer(value: str, selection: tuple[int, int], **attrs: Any) -> Envelope:
    focused = {
        "type": "password",
        "labels": [],
        "value": [ord(c) for c in value],
        "selection": list(selection),
        "element": "http://a.test/login HTML:0/BODY:1/INPUT:0",
        **attrs,
    }
    row = BatchRow(("eval", FOCUSED_JS), True, {"result": focused}, None)
    return Envelope(mode=OutputMode.JSON, success=True, rows=(row,))


def test_press_targets_only_keys_that_edit_the_focused_field() -> None:
    (typed,) = sf.targets(plan(["press", "h"]), REFS)
    assert (typed.command, typed.selector, typed.value) == ("press", None, "h")
    assert typed.edit is FieldEdit.KEY
    assert sf.targets(plan(["press", "Enter"]), REFS) == []
    assert sf.targets(plan(["press", "Tab"]), REFS) == []
    rows, keys = sf.probe_rows([typed], REFS)
    assert rows == [["eval", FOCUSED_JS]] and keys == [None]


def test_a_password_pressed_key_by_key_is_registered_whole() -> None:
    store = SecretStore()
    typed = 'Pw<"&+ 9'
    for index, key in enumerate([*typed[:-3], "Space", typed[-2], typed[-1]]):
        found = sf.targets(plan(["press", key]), REFS)
        so_far = typed[:index]
        read = sf.read_attributes(_focused_answer(so_far, (index, index)), [None])
        findings = sf.judge(found, read, store, PAGE)
        assert [f["value"] for f in findings.fields] == ["typed"]
        assert not findings.short  # key-by-key prefixes do not raise the short-value note
    assert store.scrub(f"<p>{typed}</p>") == f"<p>{TYPED_PLACEHOLDER}</p>"
    # Prefixes were retired on the way: ordinary text that repeats one is left alone.
    assert store.scrub('Pw<"&') == 'Pw<"&'


def _press_all(store: SecretStore, keys: str, holds: Callable[[str], str]) -> None:
    """Press `keys` one call each into a password field whose value after each key is
    `holds(value + key)`: the page's rule, which the wrapper does not know."""
    value = ""
    for key in keys:
        found = sf.targets(plan(["press", key]), REFS)
        read = sf.read_attributes(_focused_answer(value, (len(value), len(value))), [None])
        sf.judge(found, read, store, PAGE)
        value = holds(value + key)


def test_a_key_that_changes_nothing_never_uncovers_the_value_the_field_holds() -> None:
    """A full field (maxlength 8), a key the page cancels, an input filter: the keys that
    did nothing predicted values the field never held; what it holds stays covered."""
    full = SecretStore()
    _press_all(full, "Zq7Kw2RmXY", lambda v: v[:8])
    assert full.scrub("value: Zq7Kw2Rm") == f"value: {TYPED_PLACEHOLDER}"
    nines = SecretStore()
    _press_all(nines, "Pq9Wz9Xy79", lambda v: v.replace("9", ""))
    assert nines.scrub("value: PqWzXy7") == f"value: {TYPED_PLACEHOLDER}"
    assert nines.scrub("a PqWz b") == "a PqWz b", "the prefixes are still retired"


def test_the_value_read_after_the_call_is_registered_and_retires_the_read_before() -> None:
    store = SecretStore()
    found = sf.targets(plan(["press", "X"]), REFS)
    before = sf.read_attributes(_focused_answer("Zq7Kw2R", (7, 7)), [None])
    sf.judge(found, before, store, PAGE)
    after = sf.read_attributes(_focused_answer("Zq7Kw2R", (7, 7)), [None])[None]
    field = focused_read.field_id(SessionKey(session="abt-test"), after)
    store.track_field(field, read=after.value)  # the key did nothing
    assert store.scrub("v=Zq7Kw2R;") == f"v={TYPED_PLACEHOLDER};"
    longer = sf.read_attributes(_focused_answer("Zq7Kw2Rm", (8, 8)), [None])[None]
    store.track_field(field, read=longer.value)
    assert store.scrub("v=Zq7Kw2Rm;") == f"v={TYPED_PLACEHOLDER};"
    assert store.scrub("Zq7Kw2R") == "Zq7Kw2R", "a newer read retires the prefix"


def test_two_fields_whose_values_contain_each_other_are_tracked_apart() -> None:
    """A change-password form: the current password, then a new one that extends it, both
    pressed key by key. The new field's reads never retire the current field's value."""
    store = SecretStore()
    for element, typed in (("INPUT:0", "hunter22"), ("INPUT:1", "hunter22!x")):
        value = ""
        for key in typed:
            found = sf.targets(plan(["press", key]), REFS)
            answer = _focused_answer(value, (len(value), len(value)), element=element)
            sf.judge(found, sf.read_attributes(answer, [None]), store, PAGE)
            value += key
    assert store.scrub("old=hunter22&new=hunter22!x") == (
        f"old={TYPED_PLACEHOLDER}&new={TYPED_PLACEHOLDER}"
    )


def test_keyboard_type_into_text_already_there_registers_the_whole_value() -> None:
    store = SecretStore()
    found = sf.targets(plan(["keyboard", "type", "tail"]), REFS)
    read = sf.read_attributes(_focused_answer("head--mid", (5, 5)), [None])
    sf.judge(found, read, store)
    assert store.scrub("head-tail-mid") == TYPED_PLACEHOLDER
    assert store.scrub("x tail y") == f"x {TYPED_PLACEHOLDER} y"


def test_a_batch_plays_focus_fill_and_keys_on_one_field() -> None:
    rows = [
        ["focus", "#pw"],
        ["press", "Control+a"],
        ["press", "s"],
        ["keyboard", "type", "ecret"],
        ["press", "Backspace"],
        ["press", "T"],
        ["press", "Enter"],
        ["press", "x"],  # Enter may have moved focus: a new, unread field
    ]
    found = sf.targets(plan(["batch"], rows=rows), {})
    assert [t.slot for t in found] == [("#pw", 0)] * 5 + [(None, 1)]
    probe, keys = sf.probe_rows(found, {})
    assert ["get", "value", "#pw"] in probe and ["eval", FOCUSED_JS] in probe
    answers = [
        _attr_row(row[2], row[3], "password" if row[3] == "type" else None)
        if row[1] == "attr"
        else BatchRow(tuple(row), True, {"value": "old"}, None)
        for row in probe[:-1]
    ]
    envelope = Envelope(mode=OutputMode.JSON, success=True, rows=tuple(answers))
    store = SecretStore()
    sf.judge(found, sf.read_attributes(envelope, keys), store)
    assert store.scrub("v=secreT;") == f"v={TYPED_PLACEHOLDER};"


def test_a_value_read_back_scrubbed_is_unknown_so_only_the_typed_text_counts() -> None:
    found = sf.targets(plan(["type", "#password", "more"]), {})
    probe, keys = sf.probe_rows(found, {})
    assert probe == [["get", "value", "#password"]]  # the selector says credential already
    answer = BatchRow(("get", "value", "#password"), True, {"value": TYPED_PLACEHOLDER}, None)
    envelope = Envelope(mode=OutputMode.JSON, success=True, rows=(answer,))
    read = sf.read_attributes(envelope, keys)
    assert read["#password"].value is None
    store = SecretStore()
    sf.judge(found, read, store)
    assert store.scrub("more") == TYPED_PLACEHOLDER
    assert TYPED_PLACEHOLDER not in store.scrub("redacted")


def test_type_into_a_field_with_text_covers_a_caret_at_either_end() -> None:
    found = sf.targets(plan(["type", "#password", "abcd"]), {})
    answer = BatchRow(("get", "value", "#password"), True, {"value": "pre1"}, None)
    envelope = Envelope(mode=OutputMode.JSON, success=True, rows=(answer,))
    store = SecretStore()
    sf.judge(found, sf.read_attributes(envelope, ["#password"]), store)
    assert store.scrub("abcdpre1 pre1abcd") == f"{TYPED_PLACEHOLDER} {TYPED_PLACEHOLDER}"


async def test_reads_that_rode_before_dispatch_meet_the_keys_they_were_made_with(
    monkeypatch: Any,
) -> None:
    """The previous call's focused-field read stands in for a read of its own only while no
    engine call ran; the pre-dispatch batch is one. Rows made with the memo must still be
    judged with it, or the first field's answers shift onto the focused slot (seen: the
    password `type` attribute dropped, the text typed into it never registered)."""
    store = SecretStore()
    focused = sf.read_attributes(_focused_answer("hun", (3, 3)), [None])[None]
    memo: list[Any] = [focused]
    monkeypatch.setattr(focused_read, "remembered", lambda call: memo[0])
    key = SessionKey(session="abt-test")
    entry = SimpleNamespace(target=SimpleNamespace(url=PAGE.url), ref_snapshot=None)
    rt = SimpleNamespace(log=SimpleNamespace(state=SimpleNamespace(session=lambda k: entry)))
    rt.secrets = store
    rows = [["keyboard", "type", "ter2"], ["fill", "@e5", "bob-secret"]]
    call = fake_call(rt=rt, key=key, plan=plan(["batch"], rows=rows), ref_table=REFS)
    sent = sf.pre_rows(call)
    assert ["eval", FOCUSED_JS] not in sent  # the memo stands in for the focused read
    memo[0] = None  # the pre-dispatch batch ran: the memo has lapsed
    attrs = {"type": "password", "autocomplete": "current-password"}
    answers = [
        BatchRow(tuple(row), True, {"value": attrs.get(row[3]) if len(row) > 3 else None}, None)
        for row in sent
    ]
    sf.take_pre(call, answers)
    findings = await sf.inspect(call)
    assert [(f.get("step"), f["value"]) for f in findings.fields] == [(1, "typed"), (2, "typed")]
    assert store.scrub("x bob-secret y") == f"x {TYPED_PLACEHOLDER} y"
    assert store.scrub("hunter2") == TYPED_PLACEHOLDER
