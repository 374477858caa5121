"""Every spelling a browser, a page or the engine writes a secret in is scrubbed.

The spellings here are produced independently of the matchers (stdlib encoders and the
forms Chrome, URL parsers and JSON encoders are known to write), so a matcher that forgot
one fails here.
"""

from __future__ import annotations

import base64
import html
import json
import re
from urllib.parse import quote, quote_plus, unquote_to_bytes

import pytest

from agent_browser_tools.credentials.encodings import BASE64_MIN, Matcher, Secrets, base64_cores
from agent_browser_tools.credentials.store import TYPED_PLACEHOLDER, SecretStore, placeholder
from tests.support.leak_search import js_escape, legacy_form

SECRET = 'Op3r<"&+ ator/Pw-9'
"""The acceptance's five characters `<"&+ ` inside a longer value, plus a `/`."""


def _escaped(char: str) -> bool:
    """Escapers leave letters, digits and `-_.` alone (OWASP's HTML encoder too)."""
    return not (char.isalnum() or char in "-_.")


def _lower_hex(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), text)


def _upper_hex(text: str) -> str:
    return re.sub(r"\\u[0-9a-f]{4}", lambda m: "\\u" + m.group(0)[2:].upper(), text)


def _js_uri_component(value: str) -> str:
    return quote(value, safe="-_.!~*'()")


def _go_json(value: str) -> str:
    """JSON as Go and many servers write it: `<`, `>`, `&` as `\\u003c`-style escapes."""
    inner = json.dumps(value)[1:-1]
    return inner.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _url_parser_query(value: str) -> str:
    """What a WHATWG URL parser keeps of a raw query: `<"` and space encoded, `&+/` raw."""
    return value.replace("<", "%3C").replace('"', "%22").replace(" ", "%20")


def _b64_inside(prefix: bytes, value: str, suffix: bytes, *, urlsafe: bool = False) -> str:
    raw = prefix + value.encode() + suffix
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()


def spellings(value: str) -> dict[str, str]:
    """Independently produced spellings of `value`."""
    forms = {
        "raw": value,
        "html escaped, quotes too": html.escape(value),
        "html text node (Chrome: quote kept)": html.escape(value, quote=False),
        "html numeric decimal": "".join(f"&#{ord(c)};" if _escaped(c) else c for c in value),
        "html numeric hex": "".join(f"&#x{ord(c):X};" if _escaped(c) else c for c in value),
        "html numeric padded": "".join(f"&#x00{ord(c):x};" if _escaped(c) else c for c in value),
        "html attribute, &#34;": html.escape(value, quote=False).replace('"', "&#34;"),
        "percent %20": quote(value, safe=""),
        "percent lower hex": _lower_hex(quote(value, safe="")),
        "percent +": quote_plus(value, safe=""),
        "encodeURIComponent": _js_uri_component(value),
        "url parser query": _url_parser_query(value),
        "percent twice": quote(quote(value, safe=""), safe=""),
        "json": json.dumps(value)[1:-1],
        "json ascii": json.dumps(value, ensure_ascii=True)[1:-1],
        "json slash escaped": json.dumps(value)[1:-1].replace("/", "\\/"),
        "json \\u003c style": _go_json(value),
        "json of html": json.dumps(html.escape(value))[1:-1],
        "json inside json (a trace's console message)": json.dumps(json.dumps(value))[1:-1],
        "json three deep": json.dumps(json.dumps(json.dumps(value)))[1:-1],
        "html in go json": _go_json(html.escape(value)),
    }
    for lead in range(3):
        prefix = b"user:"[: 3 + lead]
        forms[f"base64 after {len(prefix)} bytes"] = _b64_inside(prefix, value, b"")
        forms[f"base64url after {len(prefix)} bytes"] = _b64_inside(
            prefix, value, b"", urlsafe=True
        )
        forms[f"base64 mid-blob {lead}"] = _b64_inside(bytes(lead + 7), value, b"tail-bytes")
    forms["base64 percent-encoded in a URL"] = quote(_b64_inside(b"u:", value, b""), safe="")
    forms["basic auth header"] = _b64_inside(b"alice:", value, b"")
    return forms


@pytest.mark.parametrize("label", sorted(spellings(SECRET)))
def test_every_spelling_of_an_operator_secret_comes_back_as_its_name(label: str) -> None:
    form = spellings(SECRET)[label]
    store = SecretStore({"PW": SECRET})
    out = store.scrub(f"<p>before {form} after</p>")
    assert form not in out
    assert placeholder("PW") in out
    assert out.startswith("<p>before ") and out.endswith(" after</p>")


@pytest.mark.parametrize("label", sorted(spellings(SECRET)))
def test_every_spelling_of_a_typed_value_is_scrubbed(label: str) -> None:
    form = spellings(SECRET)[label]
    store = SecretStore()
    store.register_typed(SECRET)
    out = store.scrub_output(json.dumps({"data": {"html": f"<i>{form}</i>"}}))
    assert form not in out and json.dumps(form)[1:-1] not in out
    assert TYPED_PLACEHOLDER in out


def test_spellings_are_found_inside_the_json_text_of_structured_data() -> None:
    store = SecretStore({"PW": SECRET})
    for label, form in spellings(SECRET).items():
        data = {"rows": [{"url": f"http://x.test/?q={form}&n=1"}], "n": 3}
        assert form not in json.dumps(store.scrub_data(data)), label


def test_non_ascii_secrets_in_utf8_percent_json_and_base64() -> None:
    value = "pässwörd€😀-long"
    store = SecretStore({"PW": value})
    forms = [
        quote(value, safe=""),
        _lower_hex(quote(value, safe="")),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=True)[1:-1],
        _upper_hex(json.dumps(value, ensure_ascii=True)[1:-1]),
        "".join(f"&#{ord(c)};" if _escaped(c) or ord(c) > 127 else c for c in value),
        base64.b64encode(b"k=" + value.encode()).decode(),
    ]
    for form in forms[:-1]:
        assert store.scrub(f"[{form}]") == f"[{placeholder('PW')}]", form
    # base64: what stays is the prefix's own characters (`k=` is `az`).
    assert store.scrub(f"[{forms[-1]}]") == f"[az{placeholder('PW')}]"


def test_look_alikes_are_left_alone() -> None:
    store = SecretStore({"PW": SECRET})
    texts = [
        'Op3r<"&+ ator/Pw-8',  # one character differs
        "Op3r&lt;&quot;&amp;- ator/Pw-9",
        "Op3r%3C%22%26%2B%20ator%2FPw",  # cut short
        base64.b64encode(b"alice:" + b'Op3r<"&+ ator/Pw-8').decode()[:-4],
        '<div class="x">&lt;&amp;&quot; ordinary &#43; text</div>',
    ]
    for text in texts:
        assert store.scrub(text) == text, text


def test_base64_cores_cover_each_alignment_and_replace_the_partial_neighbours() -> None:
    raw = SECRET.encode()
    cores = base64_cores(raw)
    assert len(cores) == 3 and all(len(core) >= BASE64_MIN for core in cores)
    for lead in range(3):
        blob = base64.b64encode(bytes(range(65, 65 + lead)) + raw + b"zz").decode()
        assert any(core in blob for core in cores)
    matcher = Matcher.build(SECRET, "[X]")
    blob = _b64_inside(b"alice:", SECRET, b"")
    out = Secrets([matcher]).scrub(f"Authorization: Basic {blob}")
    assert out.startswith("Authorization: Basic ") and out.endswith("[X]")
    # Nothing of the secret's bits is left: what remains decodes to the user name only.
    kept = out.removeprefix("Authorization: Basic ").removesuffix("[X]")
    assert len(kept) * 6 <= len(b"alice:") * 8


def test_short_values_have_no_base64_matcher() -> None:
    assert Matcher.build("abcd", "[X]").base64 == ()
    assert Matcher.build("abcdefgh", "[X]").base64 != ()


def test_a_value_without_plain_characters_is_still_found() -> None:
    value = '<"&+ /'
    store = SecretStore({"SYM": value})
    for form in (
        value,
        html.escape(value, quote=False),
        quote_plus(value),
        json.dumps(value)[1:-1],
    ):
        assert store.scrub(f"a {form} b") == f"a {placeholder('SYM')} b", form
    assert store.scrub("a <b> & c") == "a <b> & c"


def test_the_longer_value_wins_where_one_contains_another() -> None:
    store = SecretStore({"LONG": "prefix-" + SECRET, "SHORT": SECRET})
    assert store.scrub(html.escape("prefix-" + SECRET)) == placeholder("LONG")
    assert store.scrub(quote(SECRET, safe="")) == placeholder("SHORT")


LEGACY = 'Pä<"&+ wX9z'
"""The issue's operator secret with a Latin-1 letter, as a windows-1252 page submits it."""


@pytest.mark.parametrize(
    "value", [LEGACY, "Ümlaut€-ß<ж>中😀-pass"], ids=["latin-1 letter", "beyond latin-1"]
)
def test_legacy_charset_forms_and_js_escape_are_scrubbed(value: str) -> None:
    store = SecretStore({"PW": value})
    forms = {
        "windows-1252 form": legacy_form(value, "cp1252"),
        "windows-1252 lower hex": _lower_hex(legacy_form(value, "cp1252")),
        "windows-1252 twice": quote(
            quote(value, safe="", encoding="cp1252", errors="xmlcharrefreplace"), safe=""
        ),
        "latin-1 form": legacy_form(value, "latin-1"),
        "windows-1251 form": legacy_form(value, "cp1251"),
        "koi8-r form": legacy_form(value, "koi8_r"),
        "shift_jis form (ASCII trail bytes raw)": legacy_form(value, "cp932"),
        "gb18030 form": legacy_form(value, "gb18030"),
        "big5 form": legacy_form(value, "big5hkscs"),
        "euc-kr form": legacy_form(value, "cp949"),
        "escape()": js_escape(value),
        "escape() twice": quote(js_escape(value), safe=""),
    }
    for label, form in forms.items():
        assert form != quote_plus(value), label  # not the UTF-8 form already covered
        assert store.scrub(f"/q?pw={form}&n=1") == f"/q?pw={placeholder('PW')}&n=1", label


def test_the_issues_windows_1252_spelling_is_scrubbed_and_look_alikes_are_not() -> None:
    store = SecretStore({"PW": LEGACY})
    assert store.scrub("?pw=P%E4%3C%22%26%2B+wX9z") == f"?pw={placeholder('PW')}"
    for text in ("?pw=P%E5%3C%22%26%2B+wX9z", "?pw=Pa%3C%22%26%2B+wX9z", "%u00E4"):
        assert store.scrub(text) == text, text


def test_legacy_bytes_read_back_as_lossy_utf8_are_scrubbed() -> None:
    """The engine's HAR decodes a windows-1252 query string as UTF-8, each byte that is not
    UTF-8 becoming U+FFFD: `P\\ufffd<"&+ wX9z`, raw or JSON-escaped."""
    store = SecretStore({"PW": LEGACY})
    lossy = legacy_form(LEGACY).replace("+", " ")
    lossy = unquote_to_bytes(lossy).decode("utf-8", errors="replace")
    assert "\ufffd" in lossy
    for form in (lossy, json.dumps(lossy)[1:-1], json.dumps(lossy, ensure_ascii=True)[1:-1]):
        assert store.scrub(f'"value": "{form}"') == f'"value": "{placeholder("PW")}"', form
    assert store.scrub('"P\ufffd\ufffd<"') == '"P\ufffd\ufffd<"'
