"""The conversation's `SecretStore`: placeholders in, values scrubbed out."""

from __future__ import annotations

import base64
import json

from agent_browser_tools.credentials.store import (
    READ_PLACEHOLDER,
    TYPED_PLACEHOLDER,
    SecretStore,
    placeholder,
)

PW = 's3cr3t-Pa55 "q" \\ &<'


def test_placeholders_resolve_only_for_known_names() -> None:
    store = SecretStore({"PW": "hunter2-long", "USER": "alice"})
    assert store.resolve("{{secret:PW}}") == "hunter2-long"
    assert store.resolve("u={{secret:USER}}&p={{secret:PW}}") == "u=alice&p=hunter2-long"
    assert store.resolve("{{secret:NOPE}}") == "{{secret:NOPE}}"
    assert store.resolve("{{ secret:PW }}") == "{{ secret:PW }}"


def test_unknown_names_are_listed_with_the_known_ones() -> None:
    store = SecretStore({"PW": "hunter2-long", "API": "abcd-efgh"})
    unknown = store.unknown_names(
        ["fill #a {{secret:X}}", "{{secret:PW}} {{secret:Y}}", "{{secret:X}}"]
    )
    assert unknown == ["X", "Y"]
    message = store.unknown_message(unknown)
    assert "{{secret:X}}" in message and "API, PW" in message
    assert "hunter2" not in message
    empty = SecretStore()
    assert "defined no secrets" in empty.unknown_message(["X"])
    assert "AGENT_BROWSER_TOOLS_SECRETS_FILE" in empty.unknown_message(["X"])


def test_json_stdin_is_resolved_value_by_value() -> None:
    store = SecretStore({"PW": PW})
    rows = json.dumps([["fill", "#pw", "{{secret:PW}}"], ["click", "#go"]])
    sent = store.resolve_stdin(rows)
    assert json.loads(sent) == [["fill", "#pw", PW], ["click", "#go"]]
    assert store.resolve_stdin("document.title = '{{secret:PW}}'") == f"document.title = '{PW}'"
    assert store.resolve_stdin("no placeholder") == "no placeholder"


def test_operator_values_come_back_as_their_placeholder_in_every_spelling() -> None:
    store = SecretStore({"PW": PW})
    forms = [PW, json.dumps(PW)[1:-1], base64.b64encode(PW.encode()).decode()]
    for form in forms:
        assert store.scrub(f"before {form} after") == f"before {placeholder('PW')} after"
    encoded = base64.b64encode(PW.encode()).decode()
    assert store.scrub(encoded) == placeholder("PW")
    assert store.scrub_data({"k": [PW, {"x": f"={PW}="}], PW: 1}) == {
        "k": ["{{secret:PW}}", {"x": "={{secret:PW}}="}],
        "{{secret:PW}}": 1,
    }


def test_data_without_any_registered_value_comes_back_as_is() -> None:
    store = SecretStore({"PW": PW})
    data = {"rows": [{"name": "ordinary", "n": 1}], "k": ("a", "b")}
    assert store.scrub_data(data) is data
    unserializable = {("tuple", "key"): PW}
    assert store.scrub_data(unserializable) == {("tuple", "key"): "{{secret:PW}}"}


def test_a_newer_read_of_a_field_retires_the_prefixes_it_contains() -> None:
    store = SecretStore()
    store.track_field("pw", read="", predicted=["hun"])
    store.track_field("pw", read="hun", predicted=["hunt"])
    store.track_field("pw", read="hunt", predicted=["hunter2x"])
    assert store.scrub("hunter2x") == TYPED_PLACEHOLDER
    assert store.scrub("hunt") == TYPED_PLACEHOLDER, "the latest read stays until a newer one"
    store.track_field("pw", read="hunter2x")
    # The retired prefixes no longer mangle ordinary text or whole tokens.
    assert store.scrub("a hunt for hun") == "a hunt for hun"
    assert store.scrub_data({"v": "hun"}) == {"v": "hun"}
    # A read that does not contain the older value (the field was cleared) keeps both.
    store.track_field("pw", read="other-value")
    assert store.scrub("hunter2x other-value") == f"{TYPED_PLACEHOLDER} {TYPED_PLACEHOLDER}"
    store.track_field("pw", read="other-value-2")
    assert store.scrub("hunter2x") == TYPED_PLACEHOLDER, "kept for good"


def test_a_prediction_never_retires_what_the_field_was_read_to_hold() -> None:
    """A key the field refused: the prediction was never real, the read value is."""
    store = SecretStore()
    store.track_field("pw", read="Zq7Kw2Rm", predicted=["Zq7Kw2RmX"])
    store.track_field("pw", predicted=["Zq7Kw2RmXY"])
    assert store.scrub("v=Zq7Kw2Rm;") == f"v={TYPED_PLACEHOLDER};"
    store.track_field("pw", read="Zq7Kw2Rm", predicted=["Zq7Kw2RmZ"])
    assert store.scrub("v=Zq7Kw2Rm;") == f"v={TYPED_PLACEHOLDER};"


def test_a_value_typed_whole_or_held_by_another_field_is_never_retired() -> None:
    store = SecretStore()
    store.register_typed("secret123")  # `fill #pw secret123`
    store.track_field("other", read="secret123", predicted=["secret1234"])
    store.track_field("other", read="secret1234")
    assert store.scrub("pw=secret123;") == f"pw={TYPED_PLACEHOLDER};"
    twins = SecretStore()
    twins.track_field("pw", read="abcd1")
    twins.track_field("confirm", read="abcd1")
    twins.track_field("confirm", read="abcd12")
    assert twins.scrub("abcd1") == TYPED_PLACEHOLDER, "still what the first field holds"
    unknown = SecretStore()
    unknown.track_field(None, read="abcd", predicted=["abcde"])
    unknown.track_field(None, read="abcde")
    assert unknown.scrub("abcd") == TYPED_PLACEHOLDER, "no field to tell: kept for good"


def test_typed_values_are_scrubbed_from_then_on() -> None:
    store = SecretStore()
    assert not store.active
    assert store.scrub("hunter2secret") == "hunter2secret"
    assert store.register_typed("hunter2secret") is True
    assert store.active
    assert store.scrub("value=hunter2secret;") == f"value={TYPED_PLACEHOLDER};"
    assert store.scrub("hunter2secret%21") == f"{TYPED_PLACEHOLDER}%21"


def test_short_typed_values_are_masked_only_as_whole_tokens() -> None:
    store = SecretStore()
    assert store.register_typed("123") is False
    # Not in free text: it would mangle ordinary numbers and words.
    assert store.scrub("page 1234 of 123") == "page 1234 of 123"
    assert store.scrub_argv(["fill", "#pin", "123"]) == ["fill", "#pin", TYPED_PLACEHOLDER]
    assert store.scrub_argv(["batch", "fill #pin 123", "fill #b 1234"]) == [
        "batch",
        f"fill #pin {TYPED_PLACEHOLDER}",
        "fill #b 1234",
    ]
    assert store.scrub_data({"typed": "123", "n": 123}) == {"typed": TYPED_PLACEHOLDER, "n": 123}


def test_empty_and_operator_values_are_not_registered_as_typed() -> None:
    store = SecretStore({"PW": "hunter2-long"})
    assert store.register_typed("") is False
    assert store.register_typed("{{secret:PW}}") is True
    # Typed by name: the output shows the operator's placeholder, not the typed one.
    assert store.scrub("hunter2-long") == "{{secret:PW}}"


def test_engine_json_is_scrubbed_without_touching_its_syntax() -> None:
    store = SecretStore()
    store.register_typed("true")
    store.register_typed("1234")
    text = json.dumps({"success": True, "data": {"value": "1234", "n": 1234, "t": "true"}})
    out = json.loads(store.scrub_output(text))
    assert out == {
        "success": True,
        "data": {"value": TYPED_PLACEHOLDER, "n": 1234, "t": TYPED_PLACEHOLDER},
    }
    assert store.scrub_output("plain 1234 text") == f"plain {TYPED_PLACEHOLDER} text"
    untouched = '{"success":true}'
    assert store.scrub_output(untouched) is untouched


def test_read_placeholder_differs_from_typed() -> None:
    assert READ_PLACEHOLDER != TYPED_PLACEHOLDER
    assert "{" not in READ_PLACEHOLDER and '"' not in TYPED_PLACEHOLDER
