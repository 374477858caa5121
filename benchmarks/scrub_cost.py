"""What scrubbing registered secrets out of a large engine answer costs.

Every engine answer, result and recorded file passes through `SecretStore` once secrets are
registered, so its cost on a large output is paid by every big `get html`, `snapshot` or
HAR. This builds a store with three operator secrets (one with `<"&+ ` inside) and two typed
passwords, then times (medians over `--iterations`) on about 1 MB of output:

  (a) `scrub` of 1 MB of page text that holds no secret (the common case);
  (b) `scrub` of the same text with each secret planted twice, raw and encoded;
  (c) `scrub_output` of a 1 MB JSON envelope of 20,000 short strings (a snapshot-like answer);
  (d) `scrub_data` of the parsed envelope of (c);
  (e) `scrub` of the clean text with one more secret made only of symbols (`<"&+ /!@#`),
      the worst case: it has no plain run to search for first, so its full pattern scans;
  (f) the same with a secret of symbols and non-ASCII letters (`ä<€ж "&+`), whose every
      character also has its legacy-charset spellings (windows-1252 bytes, `%uXXXX`, ...).

Pure CPU, no browser. Run from the repo root:
    .venv/bin/python benchmarks/scrub_cost.py [--iterations 15]
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import random
import statistics
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from agent_browser_tools.credentials import SecretStore  # noqa: E402

SIZE = 1024 * 1024
OPERATOR = {
    "SHOP_PASSWORD": 'Op3r<"&+ atorPw-9',
    "API_TOKEN": "tok_4f9a0c7e2b1d8e6f",
    "SESSION_KEY": "sessKey/with=chars+more",
}
TYPED = ("hunter2-typed-Pw!", "correct horse battery")


def _prose(rng: random.Random, size: int) -> str:
    words = ["alpha", "beta", "<div>", "&amp;", "%20", 'class="x"', "\\u003c", "lorem"]
    words += ["".join(rng.choice(string.ascii_letters) for _ in range(7)) for _ in range(50)]
    out: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(words)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)[:size]


def _planted(text: str) -> str:
    forms: list[str] = []
    for value in (*OPERATOR.values(), *TYPED):
        forms += [value, html.escape(value), quote(value, safe=""), quote_plus(value)]
        forms += [json.dumps(value)[1:-1], base64.b64encode(b"u:" + value.encode()).decode()]
    step = len(text) // (len(forms) + 1)
    parts = [text[i * step : (i + 1) * step] + " " + form + " " for i, form in enumerate(forms)]
    return "".join(parts) + text[len(forms) * step :]


def _envelope(rng: random.Random) -> str:
    rows: list[dict[str, Any]] = []
    while True:
        rows.append({"ref": f"e{len(rows)}", "role": "link", "name": _prose(rng, 30)})
        if len(rows) % 1000 == 0 and len(json.dumps(rows)) >= SIZE:
            break
    return json.dumps({"success": True, "data": {"rows": rows}, "error": None})


def _median_ms(fn: Callable[[], object], iterations: int) -> float:
    fn()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=15)
    options = parser.parse_args()
    rng = random.Random(7)
    store = SecretStore(OPERATOR)
    for value in TYPED:
        store.register_typed(value)
    clean = _prose(rng, SIZE)
    dirty = _planted(clean)
    envelope = _envelope(rng)
    parsed = json.loads(envelope)
    cases: list[tuple[str, Callable[[], object]]] = [
        ("scrub, 1 MB text, no secret", lambda: store.scrub(clean)),
        ("scrub, 1 MB text, 60 planted forms", lambda: store.scrub(dirty)),
        ("scrub_output, 1 MB JSON, 20k strings", lambda: store.scrub_output(envelope)),
        ("scrub_data, parsed 1 MB JSON", lambda: store.scrub_data(parsed)),
    ]
    symbols = SecretStore({**OPERATOR, "SYMBOLS": '<"&+ /!@#'})
    cases.append(("scrub, 1 MB text, + a symbols-only secret", lambda: symbols.scrub(clean)))
    legacy = SecretStore({**OPERATOR, "NON_ASCII": 'ä<€ж "&+'})
    cases.append(("scrub, 1 MB text, + a non-ASCII symbols secret", lambda: legacy.scrub(clean)))
    print(f"{len(OPERATOR)} operator secrets + {len(TYPED)} typed values")
    for label, fn in cases:
        print(f"{label:<46} {_median_ms(fn, options.iterations):8.1f} ms")


if __name__ == "__main__":
    main()
