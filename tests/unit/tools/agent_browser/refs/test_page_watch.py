"""Reading the page-side change log's answer (pure): what proves a ref unchanged."""

from __future__ import annotations

import json
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.state.models import PageEpoch, RefInfo
from agent_browser_tools.tools.agent_browser.refs import page_watch as pw

EPOCH = PageEpoch(token="t1", seq=5)
SAVE = pw.Question("e3", RefInfo(role="button", name="Save"))
NONCE = "n1"
CHECK = pw.Check(script=["eval", ""], reads=[], nonce=NONCE)


def _said(answer: dict[str, Any]) -> BatchRow:
    return BatchRow(("eval", "..."), True, {"result": json.dumps(answer)}, None)


def _read(value: object, ok: bool = True, ref: str = "@e3") -> BatchRow:
    return BatchRow(("get", "attr", ref, pw.MARK), ok, {"value": value} if ok else None, None)


def _rows(answer: dict[str, Any], read: BatchRow | None = None) -> list[BatchRow]:
    unmark = BatchRow(("eval", pw.UNMARK_JS), True, {"result": True}, None)
    return [_said(answer), read or _read(f"{NONCE}.0"), unmark]


def _answer(
    *candidates: list[Any], removed: bool = False, token: str = "t1", nonce: str = NONCE
) -> dict[str, Any]:
    refs = [{"c": list(candidates), "rm": removed}]
    return {"token": token, "seq": 9, "nonce": nonce, "refs": refs}


def test_the_unchanged_candidate_the_engines_node_carries_proves_the_ref() -> None:
    rows = _rows(_answer([0, 0, True], [1, 1, False]))
    assert pw.proven(EPOCH, CHECK, [SAVE], rows) == {"e3": True}
    second = _rows(_answer([0, 1, True], [1, 0, False]), _read(f"{NONCE}.1"))
    assert pw.proven(EPOCH, CHECK, [SAVE], second) == {"e3": False}


def test_anything_short_of_proof_leaves_it_to_the_full_re_read() -> None:
    """A changed candidate, a node that is no candidate, a marker of another check (a stale
    one left on the page), a look-alike removed, another document, an unresolved ref."""
    one = [0, 0, False]
    cases = {
        "changed": _rows(_answer([0, 1, False])),
        "not a candidate": _rows(_answer(one), _read(f"{NONCE}.4")),
        "no marker": _rows(_answer(one), _read(None)),
        "another check": _rows(_answer(one), _read("old.0")),
        "prefix only": _rows(_answer(one), _read(f"{NONCE}0.0")),
        "not a number": _rows(_answer(one), _read(f"{NONCE}.0x")),
        "other digits": _rows(_answer(one), _read(f"{NONCE}.\u0660")),
        "no nonce": _rows(_answer(one, nonce="")),
        "the page says another nonce": _rows(_answer(one, nonce="old"), _read("old.0")),
        "twice": _rows(_answer(one, one)),
        "removed": _rows(_answer(one, removed=True)),
        "other page": _rows(_answer(one, token="t2")),
        "unresolved": _rows(_answer(one), _read(None, ok=False)),
    }
    for name, rows in cases.items():
        assert pw.proven(EPOCH, CHECK, [SAVE], rows) is None, name


def test_a_role_the_page_cannot_find_is_not_asked() -> None:
    odd = pw.Question("e4", RefInfo(role="clickable", name="Go"))
    assert pw.check_rows(EPOCH, [odd]) is None
    check = pw.check_rows(EPOCH, [SAVE])
    assert check is not None and [r[0] for r in check.rows] == ["eval", "get", "eval"]
    rows = check.rows
    assert rows[1] == ["get", "attr", "@e3", pw.MARK] and rows[2] == ["eval", pw.UNMARK_JS]


def test_each_check_marks_with_its_own_nonce() -> None:
    """A marker another check left behind (its removal never ran) must not prove this one."""
    nonces = set()
    for _ in range(3):
        check = pw.check_rows(EPOCH, [SAVE])
        assert check is not None
        script = check.rows[0][1]
        cfg = json.loads(script.split("const cfg = ", 1)[1].split(", w = window", 1)[0])
        assert cfg["nonce"] == check.nonce
        nonces.add(check.nonce)
    assert len(nonces) == 3


def test_the_epoch_is_read_from_the_begin_answer() -> None:
    assert pw.epoch_of({"result": json.dumps({"token": "t", "seq": 3})}) == PageEpoch(
        token="t", seq=3
    )
    assert pw.epoch_of({"result": "null"}) is None
    assert pw.epoch_of(None) is None


def test_an_absurdly_nested_answer_proves_nothing_and_raises_nothing() -> None:
    """The page can answer the change log's script with anything: 100,000 nested arrays is
    no epoch and no proof (a `RecursionError` here once stopped the call)."""
    deep = "[" * 100_000 + "]" * 100_000
    assert pw.epoch_of({"result": deep}) is None
    said = BatchRow(("eval", "..."), True, {"result": deep}, None)
    assert pw.proven(EPOCH, CHECK, [SAVE], [said, _read(f"{NONCE}.0")]) is None


def test_each_ref_is_proven_on_its_own_for_ids_kept_across_a_page_change() -> None:
    """`proven_each` (ids kept after `back` within one document): the proven ones pass,
    the changed one alone stays out; another document's answer proves none."""
    note = pw.Question("e4", RefInfo(role="textbox", name="Note"))
    reads = [_read(f"{NONCE}.0"), _read(f"{NONCE}.1", ref="@e4")]
    refs = [
        {"c": [[0, 0, False]], "rm": False},
        {"c": [[1, 1, False]], "rm": False},  # changed since the epoch
    ]
    for token, expected in (("t1", {"e3"}), ("t2", set())):
        said = _said({"token": token, "seq": 9, "nonce": NONCE, "refs": refs})
        assert pw.proven_each(EPOCH, CHECK, [SAVE, note], [said, *reads]) == expected
        assert pw.proven(EPOCH, CHECK, [SAVE, note], [said, *reads]) is None  # all or nothing
