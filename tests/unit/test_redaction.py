"""Redaction rules added for the planted-secrets acceptance test (issue 4)."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest

from agent_browser_tools.redaction import (
    REDACTED,
    argv_secrets,
    redact_argv,
    redact_data,
    redact_text,
    redact_url,
    scrub_exact,
)
from agent_browser_tools.redaction_native import redact_native_batch_text, redact_native_text
from agent_browser_tools.results.response import rejected

SECRET = "abtSecret01_Qw3rTyUi0pAsDf"


# ----- URLs ---------------------------------------------------------------------------------


def test_masked_userinfo_keeps_the_url_parseable_and_is_stable() -> None:
    masked = redact_url(f"http://user:{SECRET}@127.0.0.1:8080/clean.html?x=1")
    assert SECRET not in masked
    parts = urlsplit(masked)  # `[REDACTED]@host` would raise: it reads as an IPv6 literal
    assert (parts.hostname, parts.port, parts.username) == ("127.0.0.1", 8080, "user")
    assert redact_url(masked) == masked
    assert urlsplit(redact_url(f"http://{SECRET}@example.test/")).hostname == "example.test"


# ----- quoted assignments -------------------------------------------------------------------


def test_quoted_credential_assignments_are_masked() -> None:
    for text in (
        json.dumps({"password": SECRET, "theme": "dark"}),
        f"({{apiKey: '{SECRET}'}})",
        f'{{"access_token":"{SECRET}"}}',
    ):
        out = redact_text(text)
        assert SECRET not in out and REDACTED in out, text
    assert (
        redact_text('{"theme": "dark", "token": "short"}') == '{"theme": "dark", "token": "short"}'
    )


# ----- argv ---------------------------------------------------------------------------------


def test_local_password_assignment_is_masked_even_when_short() -> None:
    argv = ["auth", "save", "p", "--url", "http://x", "--password=abc12"]
    assert redact_argv(argv)[-1] == f"--password={REDACTED}"
    assert "abc12" in argv_secrets(argv)


def test_raw_batch_rows_are_redacted_token_by_token_inside_their_strings() -> None:
    rows = ["batch", f"cookies set sid {SECRET}", "auth save p --password=abc12", "get url"]
    shown = redact_argv(rows)
    assert shown == [
        "batch",
        f"cookies set sid {REDACTED}",
        f"auth save p --password={REDACTED}",
        "get url",
    ]
    assert "abc12" in argv_secrets(rows) and SECRET in argv_secrets(rows)
    quoted = redact_argv(["batch", f'cookies set sid "{SECRET} two"'])
    assert quoted == ["batch", f'cookies set sid "{REDACTED}"']


def test_unparsable_or_escaped_batch_rows_still_hide_the_value() -> None:
    unparsable = ["batch", f"cookies set sid '{SECRET}"]
    assert SECRET not in json.dumps(redact_argv(unparsable))
    assert SECRET in argv_secrets(unparsable)
    escaped = redact_argv(["batch", "cookies set sid abc\\ defgh", "get url"])
    assert escaped == ["batch", f"cookies set sid {REDACTED}", "get url"]


def test_argv_after_a_stray_binary_name_is_redacted() -> None:
    binary = ["agent-browser", "cookies", "set", "sid", SECRET]
    assert redact_argv(binary) == ["agent-browser", "cookies", "set", "sid", REDACTED]
    assert SECRET in argv_secrets(binary)


def test_argv_secrets_include_the_parts_a_message_may_quote_alone() -> None:
    headers = json.dumps({"Authorization": f"Bearer {SECRET}", "Accept": "application/json"})
    found = argv_secrets(["set", "headers", headers])
    assert headers in found and SECRET in found and f"Bearer {SECRET}" in found
    assert "application/json" not in found, "benign header values are not secrets"
    proxy = argv_secrets(["--proxy=http://user:pw0rd99@127.0.0.1:9", "open", "http://a"])
    assert "http://user:pw0rd99@127.0.0.1:9" in proxy and "pw0rd99" in proxy


def test_scrub_exact_also_removes_the_json_escaped_spelling() -> None:
    literal = json.dumps({"X-Api-Key": SECRET})
    message = f"args {json.dumps(['--headers', literal])} hold only global flags"
    assert literal not in message  # quoted, it is escaped
    assert SECRET not in scrub_exact(message, [literal])


# ----- native batch text --------------------------------------------------------------------


def test_native_batch_text_gets_cookie_and_storage_rules_from_its_rows() -> None:
    text = f"✓ Done\n\nsid={SECRET}\ntheme=dark\n\napi_key: {SECRET}\nmode: dark\n"
    out = redact_native_batch_text(text, [("cookies", "set"), ("cookies",), ("storage", "local")])
    assert SECRET not in out
    assert "sid=[REDACTED]" in out and "mode: dark" in out
    plain = "a=b\nnote: fine\n"
    assert redact_native_batch_text(plain, [("get", "url")]) == plain


# ----- validation messages ------------------------------------------------------------------


def test_rejected_calls_redact_the_argv_their_message_quotes() -> None:
    params = {"args": ["agent-browser", "cookies", "set", "sid", SECRET]}
    message = f"do not include the binary name; send args {json.dumps(params['args'][1:])}"
    result = rejected(message, params, wants_json=False)
    assert SECRET not in result.text
    assert SECRET not in json.dumps(result.details)
    assert result.details["failureCategory"] == "validation-error"


def test_storage_get_marks_a_redacted_value_and_says_why() -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ"
    hidden = redact_data({"key": "profile", "value": jwt}, path=("storage", "local"))
    assert hidden == {
        "key": "profile",
        "value": REDACTED,
        "valueRedacted": True,
        "valueRedactionReason": "credential-value",
    }
    by_key = redact_data({"key": "authToken", "value": "plain"}, path=("storage", "local"))
    assert by_key["valueRedactionReason"] == "sensitive-key"
    benign = redact_data({"key": "theme", "value": "dark"}, path=("storage", "local"))
    assert benign == {"key": "theme", "value": "dark"}


def test_storage_listing_hides_only_risky_entries() -> None:
    data = {"data": {"theme": "dark", "session_id": "abc", "count": 3}}
    assert redact_data(data, path=("storage", "local")) == {
        "data": {"theme": "dark", "session_id": REDACTED, "count": 3}
    }


def test_native_single_key_storage_read_hides_the_whole_value() -> None:
    text = "authToken: first line\nsecond line\n"
    out = redact_native_text(text, ("storage", "local"), single_key=True)
    assert out == f"authToken: {REDACTED}\n"
    assert redact_native_text("theme: dark", ("storage", "local"), single_key=True) == (
        "theme: dark"
    )


def test_native_cookie_lines_always_hide_the_value() -> None:
    out = redact_native_text("sid=abc123\nlang=en", ("cookies",))
    assert out == f"sid={REDACTED}\nlang={REDACTED}"


def test_sensitive_flags_are_masked_on_commands_that_do_not_declare_them() -> None:
    argv = ["auth", "login", "x", "--password", "pwLEAKzz12345", "--api-key=k-123456789"]
    shown = redact_argv(argv)
    assert shown == ["auth", "login", "x", "--password", REDACTED, f"--api-key={REDACTED}"]
    row = redact_argv(["batch", "auth login x --password pwLEAKrow1234"])
    assert row == ["batch", f"auth login x --password {REDACTED}"]
    assert "pwLEAKbatch999" in argv_secrets(["auth", "login", "x", "--password", "pwLEAKbatch999"])


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        # A declared sensitive flag masks its value whatever it looks like.
        (["--proxy", "--http://u:p@h", "open", "u"], ["--proxy", REDACTED, "open", "u"]),
        # Undeclared but credential-like names: masked unless the next token is a known flag.
        (["open", "u", "--password", "--hunter2"], ["open", "u", "--password", REDACTED]),
        (["open", "u", "--password", "--headed"], ["open", "u", "--password", "--headed"]),
        (
            ["open", "u", "--http-credentials", "a:pw"],
            ["open", "u", "--http-credentials", REDACTED],
        ),
        # Not credential names: nothing after them is hidden.
        (["--session-id", "open", "https://x.test"], ["--session-id", "open", "https://x.test"]),
        (
            ["open", "u", "--no-auth", "https://y.test"],
            ["open", "u", "--no-auth", "https://y.test"],
        ),
    ],
)
def test_flag_values_are_masked_by_declaration_or_credential_like_name(
    argv: list[str], shown: list[str]
) -> None:
    assert redact_argv(argv) == shown
    hidden = [a for a, b in zip(argv, shown, strict=True) if b == REDACTED]
    assert all(secret in argv_secrets(argv) for secret in hidden)


def test_secret_placeholders_are_names_not_values() -> None:
    """`{{secret:API_TOKEN}}` looks like a `secret: value` pair but holds no value: echoes keep
    it, so the model can see (and reuse) which secret it named."""
    assert redact_text("{{secret:MY_PASSWORD}}") == "{{secret:MY_PASSWORD}}"
    assert redact_argv(["fill", "#pw", "{{secret:LOGIN_PASSWORD}}"]) == [
        "fill",
        "#pw",
        "{{secret:LOGIN_PASSWORD}}",
    ]
    mixed = redact_text("use {{secret:API_TOKEN}} not password=hunter2secret")
    assert mixed == "use {{secret:API_TOKEN}} not password=[REDACTED]"


def test_state_show_hides_cookie_values_and_credential_storage() -> None:
    data = {
        "encrypted": True,
        "path": "/w/s.json.enc",
        "state": {
            "cookies": [
                {"name": "server_session", "value": "sess-1234567890", "httpOnly": True},
                {"name": "theme", "value": "dark"},
            ],
            "origins": [
                {
                    "origin": "http://a.test",
                    "localStorage": [
                        {"name": "api_key", "value": "k-1234567890abcdef"},
                        {"name": "theme", "value": "dark"},
                    ],
                    "sessionStorage": [
                        {"name": "note", "value": "eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl"}
                    ],
                }
            ],
        },
        "summary": "2 cookies, 1 origins",
    }
    out = redact_data(data, path=("state", "show"))
    cookies = out["state"]["cookies"]
    assert [c["value"] for c in cookies] == [REDACTED, REDACTED]
    assert cookies[0]["httpOnly"] is True and cookies[0]["name"] == "server_session"
    origin = out["state"]["origins"][0]
    assert [e["value"] for e in origin["localStorage"]] == [REDACTED, "dark"]
    assert origin["localStorage"][0]["valueRedactionReason"] == "sensitive-key"
    assert origin["sessionStorage"][0]["value"] == REDACTED
    assert out["summary"] == "2 cookies, 1 origins" and out["path"] == "/w/s.json.enc"
