"""Credential fields before dispatch: targets, the probe batch, verdicts, redacted reads."""

from __future__ import annotations

from typing import Any

from agent_browser_tools.credentials import READ_PLACEHOLDER, TYPED_PLACEHOLDER, SecretStore
from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.tools.agent_browser import secret_fields as sf
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
                ["keyboard", "type", "x"],  # focus unknown after a fill? no: fill focuses @e5
                ["press", "Tab"],
                ["keyboard", "type", "y"],  # focus moved: the focused element is read
            ],
        ),
        REFS,
    )
    rows, keys = sf.probe_rows(found, REFS)
    attrs = [row for row in rows if row[0] == "get"]
    assert {row[2] for row in attrs} == {"@e3"}  # shown @e7 goes out as the engine's e3
    assert [row[3] for row in attrs] == [
        "type",
        "autocomplete",
        "name",
        "id",
        "aria-label",
        "placeholder",
    ]
    assert rows[-1][0] == "eval" and keys[-1] is None
    assert keys[:-1] == ["@e7"] * 6


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
