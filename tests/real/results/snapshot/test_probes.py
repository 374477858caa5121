"""The snapshot search/viewport probes and compaction, live against the engine and Chromium.

Why: the probe scripts are JavaScript that only a real browser can judge (visibility rules,
`checkVisibility`, label association), and compaction parses the engine's snapshot text, whose
format an engine upgrade could change. The unit tests use captured results; these re-check
the same facts live.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from agent_browser_tools.results.snapshot.compaction import SPILL_LINE_RESERVE, compact_snapshot
from agent_browser_tools.results.snapshot.controls import (
    collect_controls,
    coverage,
    group_controls,
)
from agent_browser_tools.results.snapshot.probes import (
    VIEWPORT_PROBE_JS,
    parse_search_probe,
    parse_viewport_probe,
    search_probe_counts,
    search_probe_js,
)
from agent_browser_tools.results.snapshot.tree import named_lines
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import ENGINE_CALL_TIMEOUT_S, RealSession

pytestmark = pytest.mark.real_engine


def eval_stdin(session: RealSession, script: str) -> Any:
    """`eval --stdin` in the session (the harness's `run` has no stdin); return data.result."""
    proc = subprocess.run(
        [str(session.engine.binary), "--json", "--session", session.name, "eval", "--stdin"],
        env=session.engine.env,
        input=script,
        capture_output=True,
        text=True,
        timeout=ENGINE_CALL_TIMEOUT_S,
        check=False,
    )
    envelope = json.loads(proc.stdout)
    assert envelope.get("success") is True, proc.stdout[:2000]
    return envelope["data"]["result"]


def test_search_probe_skips_hidden_text_and_maps_refs(
    fixture_site: FixtureServer, real_session: RealSession
) -> None:
    real_session.ok("open", fixture_site.url("grid.html"))
    refs = real_session.ok("snapshot", "-i")["refs"]
    result = eval_stdin(real_session, search_probe_js("EXPORT FAILED"))
    assert search_probe_counts(result) == (1, False)
    [match] = parse_search_probe(result, refs)
    assert (match["kind"], match["offscreen"], match["tagName"]) == ("validation", True, "p")
    [label] = parse_search_probe(eval_stdin(real_session, search_probe_js("promo")), refs)
    assert refs[label["ref"]] == {"role": "textbox", "name": "Promo code"}


def test_viewport_probe_reads_scroll_state_without_changing_it(
    fixture_site: FixtureServer, real_session: RealSession
) -> None:
    real_session.ok("open", fixture_site.url("long.html"))
    eval_stdin(real_session, "window.scrollTo(0, 900); 1")
    first = parse_viewport_probe(eval_stdin(real_session, VIEWPORT_PROBE_JS))
    second = parse_viewport_probe(eval_stdin(real_session, VIEWPORT_PROBE_JS))
    assert first is not None and first == second
    assert first["scrollY"] == 900
    assert [c["selector"] for c in first["containers"]] == ["div#scroller"]


def test_live_dense_snapshot_compacts_within_budget_and_keeps_controls_reachable(
    fixture_site: FixtureServer, real_session: RealSession
) -> None:
    real_session.ok("open", fixture_site.url("dense.html"))
    data = real_session.ok("snapshot", "-i")
    result = compact_snapshot(data["snapshot"], data["refs"], budget=15_000)
    assert result.compacted and len(result.text) <= 15_000 - SPILL_LINE_RESERVE
    groups = group_controls(collect_controls(*named_lines(data["snapshot"], data["refs"])))
    visible = set(result.shown_ref_ids) | set(result.high_value_ref_ids)
    assert coverage(groups, visible).complete
