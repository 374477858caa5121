"""Which form fields count as credentials (`credentials.fields`)."""

from __future__ import annotations

import pytest

from agent_browser_tools.credentials.fields import (
    credential_reason,
    marks_credential,
    selector_reason,
    words,
)


def test_words_split_on_case_digits_and_punctuation() -> None:
    assert words("newPassword2") == ["new", "password", "2"]
    assert words("APIKey") == ["api", "key"]
    assert words("user_pwd-field") == ["user", "pwd", "field"]


@pytest.mark.parametrize(
    "text",
    [
        "password",
        "userPassword",
        "new_pwd",
        "pw",
        "passcode",
        "api-key",
        "apiKey",
        "X-Api-Key",
        "otp",
        "one-time code",
        "PIN",
        "card_pin",
        "cvv",
        "CVC",
        "security code",
        "secret",
        "client_secret",
        "auth token",
        "confirmpassword",
        "cardnumber",
    ],
)
def test_credential_words(text: str) -> None:
    assert marks_credential(text)


@pytest.mark.parametrize(
    "text",
    ["username", "email", "spinner", "shipping", "passport", "search", "Code", "comment", "", "q"],
)
def test_ordinary_words_are_not_credentials(text: str) -> None:
    assert not marks_credential(text)


def test_password_type_wins_whatever_the_label() -> None:
    # The engine's snapshot shows this field as `textbox "Code"`: only the type tells.
    reason = credential_reason({"type": "password", "aria-label": "Code"})
    assert reason == "input type=password"
    assert credential_reason({"type": "PASSWORD"}) == "input type=password"


@pytest.mark.parametrize(
    "autocomplete",
    [
        "current-password",
        "new-password",
        "one-time-code",
        "cc-number",
        "cc-csc",
        "section-pay billing cc-number",
    ],
)
def test_credential_autocomplete_tokens(autocomplete: str) -> None:
    reason = credential_reason({"type": "text", "autocomplete": autocomplete})
    assert reason is not None and reason.startswith("autocomplete=")


def test_names_ids_labels_and_placeholders_mark_credentials() -> None:
    assert credential_reason({"name": "otp"}) == "name 'otp' marks a credential"
    assert credential_reason({"id": "api_key"}) == "id 'api_key' marks a credential"
    assert credential_reason({"aria-label": "PIN"}) is not None
    assert credential_reason({"placeholder": "Your password"}) is not None
    assert credential_reason({}, ["Security code"]) == "label 'Security code' marks a credential"


def test_ordinary_fields_are_not_credentials() -> None:
    attrs = {
        "type": "text",
        "autocomplete": "username",
        "name": "user",
        "id": "login",
        "aria-label": "User",
        "placeholder": "name@example.com",
    }
    assert credential_reason(attrs, ["User name", None]) is None
    assert credential_reason({"type": "email", "autocomplete": "off"}) is None


def test_selector_text_is_judged_when_the_element_cannot_be_read() -> None:
    assert selector_reason("#password") is not None
    assert selector_reason("input[type=password]") is not None
    assert selector_reason("[name=otp]") is not None
    assert selector_reason("#pw") is not None
    assert selector_reason("@e2") is None
    assert selector_reason("#search") is None
