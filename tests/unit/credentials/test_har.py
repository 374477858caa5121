"""HAR and trace scrubbing rules (`credentials.har`)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from agent_browser_tools.credentials.har import (
    credential_param,
    scrub_har,
    scrub_json_text,
    scrub_url,
)
from agent_browser_tools.credentials.store import TYPED_PLACEHOLDER, SecretStore
from agent_browser_tools.redaction import REDACTED, URL_USERINFO_REDACTED

TYPED = "typed-Secret-42"


def _har(request: dict[str, Any], response: dict[str, Any] | None = None) -> dict[str, Any]:
    base_response = {"status": 200, "headers": [], "cookies": [], "content": {}}
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "agent-browser", "version": "0.39.4"},
            "entries": [{"request": request, "response": {**base_response, **(response or {})}}],
        }
    }


def _scrubbed(doc: dict[str, Any]) -> dict[str, Any]:
    store = SecretStore()
    store.register_typed(TYPED)
    out: dict[str, Any] = scrub_har(doc, store.scrub)
    return out


@pytest.mark.parametrize(
    "name",
    [
        "token",
        "access_token",
        "key",
        "api_key",
        "apiKey",
        "secret",
        "password",
        "auth",
        "code",
        "sig",
        "X-Amz-Signature",
        "session",
        "sessionid",
        "client_secret",
        "otp",
    ],
)
def test_credential_param_names(name: str) -> None:
    assert credential_param(name)


@pytest.mark.parametrize("name", ["q", "page", "author", "keyword", "monkey", "lang", "x"])
def test_ordinary_param_names(name: str) -> None:
    assert not credential_param(name)


def test_urls_lose_userinfo_and_credential_query_values_only() -> None:
    url = "https://alice:wonderland99@api.test/p?q=shoes&token=tok123456&page=2#frag"
    assert scrub_url(url) == (
        f"https://alice:{URL_USERINFO_REDACTED}@api.test/p?q=shoes&token={REDACTED}&page=2#frag"
    )
    assert (
        scrub_url("https://ghp_abcdef@host.test/") == f"https://{URL_USERINFO_REDACTED}@host.test/"
    )
    assert scrub_url("https://plain.test/a?b=c") == "https://plain.test/a?b=c"


def test_request_side_is_scrubbed() -> None:
    request = {
        "method": "POST",
        "url": "http://bob:hunter2pass@127.0.0.1/login?token=tok123456&x=1",
        "headers": [
            {"name": "Authorization", "value": "Bearer abcdefSECRETTOKEN123"},
            {"name": "Cookie", "value": "sid=abc123456"},
            {"name": "X-Custom-Token", "value": "zzz-111"},
            {"name": "Referer", "value": "https://a.test/?api_key=k-12345&lang=en"},
            {"name": "Accept", "value": "text/html"},
        ],
        "cookies": [{"name": "sid", "value": "abc123456"}],
        "queryString": [{"name": "token", "value": "tok123456"}, {"name": "x", "value": "1"}],
        "postData": {
            "mimeType": "application/x-www-form-urlencoded",
            "text": f"user=bob&password=pw-999999&note={TYPED}",
            "params": [
                {"name": "password", "value": "pw-999999"},
                {"name": "user", "value": "bob"},
            ],
        },
    }
    entry = _scrubbed(_har(request))["log"]["entries"][0]["request"]
    dumped = json.dumps(entry)
    for leak in (
        "hunter2pass",
        "tok123456",
        "abcdefSECRETTOKEN123",
        "abc123456",
        "zzz-111",
        "k-12345",
        "pw-999999",
        TYPED,
    ):
        assert leak not in dumped, leak
    headers = {h["name"]: h["value"] for h in entry["headers"]}
    assert headers["Authorization"] == REDACTED and headers["Accept"] == "text/html"
    assert headers["Referer"] == f"https://a.test/?api_key={REDACTED}&lang=en"
    assert entry["queryString"][1] == {"name": "x", "value": "1"}
    assert entry["postData"]["params"][1] == {"name": "user", "value": "bob"}
    assert "user=bob" in entry["postData"]["text"]
    assert entry["url"].endswith(f"/login?token={REDACTED}&x=1")


def test_json_and_multipart_bodies_and_response_side() -> None:
    request = {
        "url": "https://a.test/api",
        "postData": {
            "mimeType": "application/json",
            "text": json.dumps({"user": "bob", "creds": {"apiKey": "ak-7777777"}}),
        },
    }
    multipart = (
        '--b\r\nContent-Disposition: form-data; name="password"\r\n\r\nmp-8888888\r\n'
        '--b\r\nContent-Disposition: form-data; name="user"\r\n\r\nbob\r\n--b--\r\n'
    )
    body = json.dumps({"access_token": "at-5555555", "items": [1, 2]})
    response = {
        "headers": [{"name": "Set-Cookie", "value": "sid=sc-6666666; HttpOnly"}],
        "cookies": [{"name": "sid", "value": "sc-6666666"}],
        "content": {
            "mimeType": "application/json",
            "encoding": "base64",
            "text": base64.b64encode(body.encode()).decode(),
        },
        "redirectURL": "https://a.test/cb?code=oauth-code-1",
    }
    doc = _har(request, response)
    doc["log"]["entries"].append(
        {
            "request": {
                "url": "https://a.test/up",
                "postData": {"mimeType": "multipart/form-data; boundary=b", "text": multipart},
            }
        }
    )
    out = _scrubbed(doc)
    dumped = json.dumps(out)
    for leak in ("ak-7777777", "sc-6666666", "oauth-code-1", "mp-8888888"):
        assert leak not in dumped, leak
    content = out["log"]["entries"][0]["response"]["content"]
    decoded = json.loads(base64.b64decode(content["text"]))
    assert decoded == {"access_token": REDACTED, "items": [1, 2]}
    assert 'name="user"\r\n\r\nbob' in out["log"]["entries"][1]["request"]["postData"]["text"]


def test_registered_values_are_scrubbed_anywhere_in_the_document() -> None:
    doc = _har({"url": "https://a.test/"}, {"content": {"mimeType": "text/html", "text": TYPED}})
    doc["log"]["pages"] = [{"title": f"Hello {TYPED}"}]
    out = _scrubbed(doc)
    assert out["log"]["pages"][0]["title"] == f"Hello {TYPED_PLACEHOLDER}"
    assert TYPED not in json.dumps(out)


def test_not_a_har_is_refused() -> None:
    with pytest.raises(ValueError, match="not a HAR"):
        scrub_har({"traceEvents": []}, str)
    with pytest.raises(ValueError, match="not a HAR"):
        scrub_har([1, 2], str)


def test_trace_text_is_scrubbed_textually() -> None:
    store = SecretStore({"PW": "op-secret-1"})
    text = json.dumps(
        {
            "traceEvents": [
                {"args": {"url": "https://u:p4ss@h.test/?token=t-1&a=b", "v": "op-secret-1"}}
            ]
        }
    )
    out = scrub_json_text(text, store.scrub)
    assert json.loads(out)["traceEvents"][0]["args"] == {
        "url": f"https://u:{URL_USERINFO_REDACTED}@h.test/?token={REDACTED}&a=b",
        "v": "{{secret:PW}}",
    }


def test_a_base64_body_is_scrubbed_of_registered_values_in_any_spelling() -> None:
    store = SecretStore({"PW": 'Op3r<"&+ ator'})
    page = '<input value="Op3r&lt;&quot;&amp;+ ator"><p>Op3r&lt;"&amp;+ ator</p>'
    encoded = base64.b64encode(page.encode()).decode()
    doc = {
        "log": {
            "entries": [
                {
                    "request": {"url": "http://x.test/"},
                    "response": {
                        "content": {"mimeType": "text/html", "encoding": "base64", "text": encoded}
                    },
                }
            ]
        }
    }
    out = scrub_har(doc, store.scrub)
    body = base64.b64decode(out["log"]["entries"][0]["response"]["content"]["text"]).decode()
    assert body == '<input value="{{secret:PW}}"><p>{{secret:PW}}</p>'
