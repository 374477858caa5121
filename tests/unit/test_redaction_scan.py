"""The fast scans must say exactly what the rules' pattern says, or redaction would skip text."""

from __future__ import annotations

import random

import pytest

from agent_browser_tools.redaction import _MAYBE, REDACTED, SENSITIVE_KEY, redact_data
from agent_browser_tools.redaction_scan import all_plain, maybe_secret, plain_table

# The four letters outside ASCII that a case-blind pattern takes for i, s and k.
FOLDS = {"i": ("\u0130", "\u0131"), "s": ("\u017f",), "k": ("\u212a",)}
WORDS = ["bearer", "basic", "token", "passw", "secret", "apikey", "api_key", "akia", "sk-", "://"]


@pytest.mark.parametrize(
    "text",
    [
        "Edit",
        "Select item 42",
        "pa\u017f\u017fword=hunter22",  # long s
        "Ba\u0131ic abcdef",  # dotless i
        "BAS\u0130C abcdef",  # dotted capital I
        "\u212aey sk-\u212a",  # Kelvin sign
        "TOKEN",
        "caf\u00e9 ://x",
        "",
    ],
)
def test_scan_agrees_with_the_pattern(text: str) -> None:
    assert maybe_secret(text) is (_MAYBE.search(text) is not None)


def test_scan_agrees_with_the_pattern_on_random_spellings() -> None:
    rng = random.Random(28)
    noise = "abcXYZ _-:/\u00e9\u0130\u0131\u017f\u212a"
    for _ in range(5000):
        word = "".join(
            rng.choice((*FOLDS.get(c, (c,)), c.upper())) if rng.random() < 0.4 else c
            for c in rng.choice(WORDS)
        )
        cut = rng.randint(0, len(word))
        text = "".join(rng.choice(noise) for _ in range(rng.randint(0, 5)))
        text += word[: cut if rng.random() < 0.3 else len(word)]
        assert maybe_secret(text) is (_MAYBE.search(text) is not None), repr(text)


def test_one_scan_over_many_texts_finds_the_one_secret() -> None:
    names = [f"Item {n}" for n in range(3000)]
    assert all_plain(names)
    names[1777] = "Copy sk-live-" + "9" * 24
    assert not all_plain(names)


def test_a_large_ref_map_with_one_secret_name_is_still_redacted() -> None:
    refs = {f"e{n}": {"role": "link", "name": f"Item {n}"} for n in range(500)}
    refs["e321"] = {"role": "button", "name": "Authorization: Bearer abcdefghijkl"}
    assert plain_table(refs, SENSITIVE_KEY) is None
    out = redact_data({"refs": refs})
    assert out["refs"]["e321"]["name"] == f"Authorization: Bearer {REDACTED}"
    assert out["refs"]["e7"] == {"role": "link", "name": "Item 7"}


def test_a_large_table_with_a_sensitive_key_is_still_redacted() -> None:
    rows = {f"r{n}": {"label": f"row {n}"} for n in range(500)}
    rows["r9"] = {"label": "row 9", "password": "plain words here"}
    out = redact_data({"rows": rows})
    assert out["rows"]["r9"]["password"] == REDACTED


def test_a_long_text_read_again_is_judged_line_by_line_as_the_pattern_does() -> None:
    """A tree over 64 KiB is asked line by line, its plain lines remembered: the same tree
    read again, and again with one line that now holds a word (or splits one across a line
    break, which the pattern does not match either), is judged as the pattern judges it."""
    lines = [f'- link "Item {n}" [ref=e{n}]' for n in range(4000)]
    tree = "\n".join(lines)
    assert len(tree) > 64 * 1024
    assert maybe_secret(tree) is False and maybe_secret(tree) is False
    lines[2500] = '- textbox "Api-Key" [ref=e2500]'
    assert maybe_secret("\n".join(lines)) is True
    lines[2500] = '- text "tok' + "\n" + 'en"'
    assert maybe_secret("\n".join(lines)) is (_MAYBE.search("\n".join(lines)) is not None)
