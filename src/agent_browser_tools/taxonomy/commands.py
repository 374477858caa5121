"""Rows of the command taxonomy for agent-browser 0.39.4 (types: `spec.py`, lookup: `lookup.py`).

Each row is written with `_cmd` (`row_spelling.command_row`), whose keyword names are short on
purpose so a row fits on a few lines; the field docstrings on `CommandSpec` say what each
capability means and why it exists. Newer columns (`access`, `files`) are passed to `_cmd` under
their `CommandSpec` field names. Local flags use a tiny spelling: `--name/-s` (short form), a
trailing `=` for a required value, `?` for an optional value and `!` for a secret value, e.g.
`--output/-o=` or `--password=!`. Operands are spelled as usage writes them (`args="<selector>
<text>"`, `[url]` optional, `<value...>` any number, `<selector|ms|--url>` a flag may stand in).

Sources, in order of authority: the tool contract (and its 0.9.4 diff), the live engine's
`--help` and per-command help, then the upstream skills reference. Choices the contract leaves
open are documented next to the row.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent_browser_tools.taxonomy.row_spelling import command_row as _cmd
from agent_browser_tools.taxonomy.spec import (
    ArtifactSlot,
    CommandSpec,
    FieldValue,
    FileSlots,
    Fulfilment,
    GroupDefault,
    PageScript,
)
from agent_browser_tools.taxonomy.vocabulary import (
    ArtifactKind,
    ConfirmationRole,
    FieldEdit,
    ModelAccess,
    PageEffect,
    RecordingStep,
    SessionNeed,
    TimeoutFamily,
)
from agent_browser_tools.taxonomy.vocabulary import Diagnostic as DG

LOCAL = SessionNeed.SESSIONLESS
NAV = PageEffect.NAVIGATES
MAY = PageEffect.MAY_NAVIGATE
HIST = PageEffect.HISTORY
SWITCH = PageEffect.TARGET_SWITCH
LONG = TimeoutFamily.LONG_RUNNING
A = ArtifactKind
OP = ModelAccess.OPERATOR
SHARED = ModelAccess.SHARED_STORE
URL0 = FileSlots(urls=(0,))
TYPES1 = FieldValue(target=0, text=1)
FILLS1 = FieldValue(target=0, text=1, edit=FieldEdit.FILL)
FOCUSED = FieldValue(target=None, text=0)
KEY = FieldValue(target=None, text=0, edit=FieldEdit.KEY)
URL_FLAG = FileSlots(url_flags=("--url",))

FORM_TOGGLE = "checkbox radio"
"""Roles whose same-snapshot toggles do not re-render the page (contract: check/uncheck and
direct click/tap on checkbox or radio refs; select on combobox refs)."""


def _refs_maker(path: str, summary: str, **fields: Any) -> CommandSpec:
    """A command whose answer is a ref map (the session's latest refs)."""
    return replace(_cmd(path, summary, **fields), produces_refs=True)


def _toggle(path: str, summary: str, *, checked: bool) -> CommandSpec:
    """`check` / `uncheck` one box by ref or selector; leaves it `checked`."""
    spec = _cmd(
        path,
        summary,
        refs=(0,),
        guard=True,
        latch=True,
        exempt=FORM_TOGGLE,
        change=True,
        args="<selector>",
    )
    return replace(spec, sets_checked=checked)


def _element(path: str, summary: str, **columns: Any) -> CommandSpec:
    """A read-only query of one element: its selector operand resolves refs."""
    return _cmd(path, summary, refs=(0,), ro=True, args="<selector>", **columns)


_DIFF_MATCHED = (("match", True), ("differentPixels", 0), ("dimensionMismatch", None))
_STOP = ("record", "stop")
_RECORDING = (
    ArtifactSlot(A.VIDEO, path_operand=0, pending_until=_STOP),
    ArtifactSlot(A.CONTACT_SHEET, data_fields=("contactSheetPath",), pending_until=_STOP),
)
_RECORD_FLAGS = "--fps= --cursor --contact-sheet --contact-sheet-threshold="
_STORAGE = tuple(
    spec
    for area in ("local", "session")
    for spec in (
        _cmd(f"storage {area} get", f"Read {area}Storage (all, or one key)", ro=True, args="[key]"),
        _cmd(f"storage {area} set", f"Set a {area}Storage key", args="<key> <value>", secret=(1,)),
        _cmd(f"storage {area} clear", f"Clear {area}Storage"),
    )
)

# The rows below are kept one-command-per-line-group on purpose; the formatter would explode them.
# fmt: off
COMMANDS: tuple[CommandSpec, ...] = (
    # Navigation. `open` without a URL only launches; the wrapper runs it as `get url`.
    _cmd("open", "Launch the browser, optionally navigate", aliases=("goto", "navigate"),
         effect=NAV, latch=True, change=True, args="[url]", files=URL0),
    _cmd("back", "Go back", effect=HIST, latch=True, nav=True, probe=True, change=True,
         prose=("Went back to {url}.", "Went back.")),
    _cmd("forward", "Go forward", effect=HIST, latch=True, nav=True, probe=True, change=True,
         prose=("Went forward to {url}.", "Went forward.")),
    _cmd("reload", "Reload page", effect=HIST, latch=True, nav=True, probe=True, change=True,
         prose=("Reloaded {url}.", "Reloaded the page.")),
    _cmd("pushstate", "SPA client-side navigation", effect=NAV, latch=True, change=True,
         args="<url>", files=URL0),
    _cmd("connect", "Connect to a browser via CDP", effect=SWITCH, latch=True, probe=True,
         args="<port|url>", access=OP, attaches_browser=True),
    _cmd("close", "Close the browser (--all closes every session)",
         aliases=("quit", "exit"), effect=PageEffect.CLOSE, flags="--all",
         prose=("Closed sessions: {sessions}; failed: {failed}.", "Closed the browser session.")),
    # Reading. Explicit-URL `read` fetches over HTTP without navigating the browser.
    _cmd("read", "Fetch agent-readable text", ro=True, args="[url]", files=URL0,
         flags="--raw --require-md --llms= --outline --filter= --timeout=",
         confirmation=ConfirmationRole.URL_READ),
    _refs_maker("snapshot", "Accessibility tree with refs", ro=True,
         flags="--interactive/-i --urls/-u --compact/-c --depth/-d= --selector/-s= --delta --full"),
    _element("get text", "Get text content of element", diagnostic=DG.SELECTOR_TEXT),
    _element("get html", "Get inner HTML of element"),
    replace(_element("get value", "Get value of input element"), field_value=FieldValue()),
    _cmd("get attr", "Get attribute value (selector first, then name)", refs=(0,), ro=True,
         args="<selector> <name>"),
    _cmd("get title", "Get page title", ro=True),
    _cmd("get url", "Get current URL", ro=True),
    _cmd("get count", "Count matching elements (CSS/XPath, never refs)", ro=True,
         args="<selector>"),
    _element("get box", "Get bounding box"),
    _element("get styles", "Get computed styles"),
    _cmd("get cdp-url", "Get CDP WebSocket URL", ro=True, access=OP),
    _element("is visible", "Check if element is visible"),
    _element("is enabled", "Check if element is enabled"),
    _element("is checked", "Check if checkbox/radio is checked"),
    _element("highlight", "Highlight element"),
    # Element actions. Only the selector slot resolves refs; typed text never does.
    _cmd("click", "Click element", refs=(0,), guard=True, latch=True, exempt=FORM_TOGGLE,
         effect=MAY, nav=True, change=True, args="<selector>", flags="--new-tab --human",
         moves_focus=True, click_probes=True),
    _cmd("dblclick", "Double-click element", refs=(0,), guard=True, latch=True, effect=MAY,
         nav=True, change=True, args="<selector>", moves_focus=True),
    _cmd("tap", "Tap element (touch)", refs=(0,), guard=True, latch=True, exempt=FORM_TOGGLE,
         effect=MAY, change=True, args="<selector>", moves_focus=True),
    _cmd("type", "Type into element", refs=(0,), guard=True, latch=True, change=True,
         args="<selector> <text>", field_value=TYPES1, moves_focus=True),
    _cmd("fill", "Clear and fill", refs=(0,), guard=True, change=True, args="<selector> <text>",
         field_value=FILLS1, moves_focus=True),
    _cmd("hover", "Hover element", refs=(0,), guard=True, latch=True, change=True,
         args="<selector>"),
    _cmd("focus", "Focus element", refs=(0,), guard=True, args="<selector>", moves_focus=True),
    _toggle("check", "Check checkbox", checked=True),
    _toggle("uncheck", "Uncheck checkbox", checked=False),
    _cmd("select", "Select dropdown option(s)", refs=(0,), guard=True, latch=True,
         exempt="combobox", change=True, args="<selector> <value...>"),
    _cmd("drag", "Drag and drop", refs=(0, 1), guard=True, latch=True, args="<source> <target>",
         flags="--human"),
    _cmd("upload", "Upload files", refs=(0,), guard=True, latch=True, args="<selector> <file...>",
         files=FileSlots(reads_from=1, must_exist=True)),
    _cmd("download", "Download file by clicking element", refs=(0,), guard=True, change=True,
         args="<selector> <path>", artifacts=(ArtifactSlot(A.DOWNLOAD, path_operand=1),)),
    _cmd("scrollintoview", "Scroll element into view", aliases=("scrollinto",), refs=(0,),
         guard=True, latch=True, change=True, args="<selector>"),
    _cmd("scroll", "Scroll (up/down/left/right)", latch=True, change=True, args="[direction] [px]",
         flags="--selector/-s="),
    _cmd("frame", "Switch to an iframe (selector or ref) or back to main", refs=(0,),
         args="<selector|main>"),
    # Keyboard and pointer: key names and coordinates are not refs.
    _cmd("press", "Press key", aliases=("key",), latch=True, effect=MAY, change=True,
         args="<key>", moves_focus=None, field_value=KEY),
    _cmd("keydown", "Press a key down", latch=True, change=True, args="<key>", moves_focus=None),
    _cmd("keyup", "Release a key", latch=True, change=True, args="<key>"),
    _cmd("keyboard type", "Type text with real keystrokes", latch=True, change=True,
         args="<text>", field_value=FOCUSED),
    _cmd("keyboard inserttext", "Insert text without key events", latch=True, change=True,
         aliases=("keyboard insertText",), args="<text>", field_value=FOCUSED),
    _cmd("mouse move", "Move mouse", latch=True, args="<x> <y>",
         flags="--duration= --steps= --human --seed="),
    _cmd("mouse down", "Press mouse button", latch=True, args="[button]"),
    _cmd("mouse up", "Release mouse button", latch=True, args="[button]"),
    # `mouse wheel` alone scrolls 100 px down on both releases, though their help says <dy>.
    _cmd("mouse wheel", "Scroll mouse wheel", latch=True, args="[dy] [dx]"),
    _cmd("swipe", "Swipe gesture (iOS)", latch=True, change=True, args="<direction> [distance]"),
    # Locators resolve upstream, so no ref slot; `find ... click` can navigate.
    _cmd("find", "Find element by locator and act", latch=True, effect=MAY, moves_focus=None,
         args="<locator> <value> [action] [text] [nth-text]", flags="--name= --exact",
         field_value=FieldValue(target=0, text=3, locator=True, action=(2, ("fill", "type")))),
    _cmd("wait", "Wait for element, time, text, URL, load state or download", refs=(0,),
         ro=True, timeout=TimeoutFamily.WAIT, timeout_flag="--timeout", duration=0,
         args="<selector|ms|--url|--load|--fn|--text|--download>",
         flags="--url/-u= --load/-l= --fn/-f= --text/-t= --download? --timeout= "
         "--state=^@0.41.2",
         artifacts=(ArtifactSlot(A.DOWNLOAD, path_flag="--download", only_with_flag=True),),
         page_script=PageScript(flag="--fn", polled=True),
         prose=("Waited {ms} ms.", "Waited for {selector}.", "Waited for {waited}.")),
    _cmd("eval", "Run JavaScript", latch=True, effect=MAY, probe=True, stdin="--stdin",
         args="<script|--stdin>", flags="--base64/-b --stdin", diagnostic=DG.SCRIPT_RESULT,
         page_script=PageScript(base64_flag="--base64")),
    # Artifacts.
    _cmd("screenshot", "Take screenshot", refs=(0,), ro=True, change=True, args="[selector] [path]",
         flags="--full/-f --if-changed --threshold=",
         artifacts=(ArtifactSlot(A.IMAGE, path_operand=-1, leading_selector=True),)),
    _cmd("pdf", "Save as PDF", ro=True, change=True, args="<path>",
         artifacts=(ArtifactSlot(A.PDF, path_operand=0),)),
    _cmd("trace start", "Start Chrome DevTools trace", timeout=LONG, stop="trace stop"),
    _cmd("trace stop", "Stop and save trace", args="[path]",
         artifacts=(ArtifactSlot(A.TRACE, path_operand=0),)),
    _cmd("profiler start", "Start DevTools profile", timeout=LONG, stop="profiler stop",
         flags="--categories="),
    _cmd("profiler stop", "Stop and save profile", args="[path]",
         artifacts=(ArtifactSlot(A.PROFILE, path_operand=0),)),
    # Recording swaps the page it captures in older natives, so start always latches; restart
    # latches only when it navigates (URL operand).
    _cmd("record start", "Start video recording", latch=True, retires_refs=True, effect=MAY,
         timeout=LONG,
         stop="record stop", args="<path> [url]", flags=_RECORD_FLAGS, artifacts=_RECORDING,
         files=FileSlots(urls=(1,)), recording=RecordingStep.OPENS),
    _cmd("record restart", "Stop current recording and start a new one", latch=True,
         retires_refs=True, latch_min=2, effect=MAY, timeout=LONG, stop="record stop",
         args="<path> [url]",
         flags=_RECORD_FLAGS, artifacts=_RECORDING, files=FileSlots(urls=(1,)),
         recording=RecordingStep.REOPENS),
    _cmd("record stop", "Stop and save video", artifacts=(
        ArtifactSlot(A.VIDEO), ArtifactSlot(A.CONTACT_SHEET, data_fields=("contactSheetPath",))),
         recording=RecordingStep.FINALIZES),
    _cmd("diff snapshot", "Compare current vs last snapshot (selector is CSS only)", ro=True,
         flags="--baseline/-b= --selector/-s= --compact/-c --depth/-d=",
         files=FileSlots(read_flags=("--baseline",))),
    _cmd("diff screenshot", "Compare current vs baseline image", ro=True,
         flags="--baseline/-b= --output/-o= --threshold/-t= --selector/-s= --full",
         artifacts=(ArtifactSlot(A.DIFF_IMAGE, path_flag="--output", data_fields=("diffPath",),
                                 unwritten_when=_DIFF_MATCHED),),
         files=FileSlots(read_flags=("--baseline",))),
    _cmd("diff url", "Compare two pages", effect=SWITCH, latch=True, nav=True, args="<url1> <url2>",
         flags="--screenshot --full --wait-until= --selector/-s= --compact/-c --depth/-d=",
         files=FileSlots(urls=(0, 1))),
    # Browser settings (emulation does not re-render refs away).
    _cmd("set viewport", "Set viewport size", args="<width> <height> [scale]"),
    _cmd("set device", "Emulate device", args="<name>"),
    _cmd("set geo", "Set geolocation", aliases=("set geolocation",), args="<lat> <lng>"),
    _cmd("set offline", "Toggle offline mode", args="[on|off]"),
    _cmd("set headers", "Set extra HTTP headers", args="<json>", secret=(0,)),
    _cmd("set credentials", "HTTP basic auth", aliases=("set auth",), args="<user> <pass>",
         secret=(1,)),
    _cmd("set media", "Emulate color scheme / reduced motion",
         args="[dark|light] [reduced-motion]"),
    # Network.
    _cmd("network route", "Intercept requests", args="<url>", diagnostic=DG.ROUTE_ADD,
         flags="--abort --body=! --resource-type= --resource-types= --allow-origin=@0.41.2",
         fulfils=Fulfilment()),
    _cmd("network unroute", "Remove routes", args="[url]", diagnostic=DG.ROUTE_REMOVE),
    _cmd("network requests", "List captured requests", ro=True,
         flags="--clear --filter= --type= --method= --status=", diagnostic=DG.REQUEST_LIST),
    _cmd("network request", "Full request/response detail", ro=True, args="<id>"),
    _cmd("network har start", "Record a HAR", stop="network har stop", flags="--content="),
    _cmd("network har stop", "Stop and save HAR", args="[path]",
         artifacts=(ArtifactSlot(A.HAR, path_operand=0),)),
    # Storage.
    _cmd("cookies get", "Get all cookies", ro=True),
    _cmd("cookies set", "Set a cookie (or import with --curl <file>)", secret=(1,),
         args="<name|--curl> <value|--curl>",
         flags="--url= --domain= --path= --httpOnly --secure --sameSite= --expires= --curl= "
         "--http-only@0.41.2 --same-site=@0.41.2",
         files=FileSlots(read_flags=("--curl",))),
    _cmd("cookies clear", "Clear cookies"),
    *_STORAGE,
    # Tabs and windows. `tab <id|label|target>` is spelled without a verb upstream.
    _cmd("tab list", "List tabs", ro=True),
    _cmd("tab new", "Open a new tab (and switch to it)", effect=SWITCH, latch=True, args="[url]",
         flags="--label=", files=URL0, confirmation=ConfirmationRole.OPENS_TAB, moves_tab=True,
         prose=("Opened tab {tabId} on {url} ({total} tabs open).", "Opened tab {tabId}.")),
    _cmd("tab close", "Close a tab", effect=SWITCH, latch=True, nav=True, args="[tab]",
         moves_tab=True, prose=("Closed tab {tabId}.", "Closed the tab.")),
    _cmd("tab select", "Switch to a tab by id, label or target id", synthetic=True,
         effect=SWITCH, latch=True, nav=True, probe=True, args="<tab>", moves_tab=True),
    _cmd("window new", "Open a new window", effect=SWITCH, latch=True, nav=True, moves_tab=True),
    # Dialogs get the short dialog budget; accepting can navigate or re-render.
    _cmd("dialog accept", "Accept dialog", effect=MAY, latch=True, change=True,
         timeout=TimeoutFamily.DIALOG, args="[text]"),
    _cmd("dialog dismiss", "Dismiss dialog", effect=MAY, latch=True, change=True,
         timeout=TimeoutFamily.DIALOG),
    _cmd("dialog status", "Is a dialog open?", ro=True, timeout=TimeoutFamily.DIALOG),
    # Debugging.
    _cmd("console", "View console logs", ro=True, flags="--clear"),
    _cmd("errors", "View page errors", ro=True, flags="--clear"),
    _cmd("inspect", "Open DevTools for the active page", ro=True, timeout=LONG, access=OP),
    _cmd("clipboard read", "Read clipboard", ro=True),
    _cmd("clipboard write", "Write clipboard", args="<text>", secret=(0,)),
    _cmd("clipboard copy", "Copy current selection"),
    _cmd("clipboard paste", "Paste from clipboard", change=True),
    # The stream server accepts any page on a loopback origin (screen frames, remote input):
    # the wrapper keeps it off (`engine.stream_guard`), and only the operator may turn it on.
    _cmd("stream enable", "Start WebSocket streaming", timeout=LONG, stop="stream disable",
         flags="--port=", diagnostic=DG.IDEMPOTENT_START, access=OP),
    _cmd("stream disable", "Stop WebSocket streaming"),
    _cmd("stream status", "Streaming status", ro=True),
    # WebMCP: invoke/result/cancel can swap or navigate the page (contract: they latch).
    _cmd("webmcp list", "WebMCP tool metadata", ro=True, args="[tool]", flags="--frame="),
    _cmd("webmcp invoke", "Invoke a page tool", effect=MAY, latch=True, retires_refs=True,
         change=True,
         timeout=TimeoutFamily.WEBMCP, timeout_flag="--timeout", args="<tool>",
         flags="--params= --frame= --detach --timeout=",
         files=FileSlots(at_file_flags=("--params",)), detached_page_work=True),
    _cmd("webmcp result", "Wait for a detached invocation", effect=MAY, latch=True,
         retires_refs=True, change=True,
         timeout=TimeoutFamily.WEBMCP, timeout_flag="--timeout", args="<id>", flags="--timeout=",
         detached_page_work=True, settles_detached_work=True),
    _cmd("webmcp cancel", "Cancel an invocation", effect=MAY, latch=True, retires_refs=True,
         change=True, args="<id>", detached_page_work=True, settles_detached_work=True),
    _cmd("react tree", "React component tree", ro=True),
    _cmd("react inspect", "Inspect one fiber", ro=True, args="<fiber-id>"),
    _cmd("react renders start", "Start recording re-renders", stop="react renders stop"),
    _cmd("react renders stop", "Stop and print render profile", ro=True),
    _cmd("react suspense", "Suspense boundaries report", ro=True, flags="--only-dynamic"),
    # `vitals <url>` / `a11y <url>` navigate first, so they latch only with a URL.
    _cmd("vitals", "Core Web Vitals", aliases=("web-vitals",), effect=MAY, latch=True,
         latch_min=1, args="[url]", files=URL0),
    _cmd("a11y", "axe-core accessibility audit", effect=MAY, latch=True, latch_min=1,
         args="[url]", flags="--tags= --selector/-s=", files=URL0),
    _cmd("removeinitscript", "Remove a runtime init script", args="<id>"),
    _cmd("addinitscript", "Register an init script at runtime (documented; 0.39.4 CLI rejects)",
         args="<script>", cli=False),
    _cmd("batch", "Run commands sequentially (args or JSON stdin)", stdin_always=True,
         args="[command...]", flags="--bail"),
    # Auth vault: local profile maintenance is sessionless; login drives the browser.
    _cmd("auth save", "Save an auth profile", session=LOCAL, stdin="--password-stdin",
         args="<name>", flags="--url= --username= --password=! --password-stdin "
         "--username-selector= --password-selector= --submit-selector=", access=SHARED,
         files=URL_FLAG),
    # The vault is decrypted with the browser's state key, which is each conversation's own
    # on a shared server (`engine.state_key`): every vault command is the user's there.
    _cmd("auth login", "Log in with a saved profile", effect=MAY, latch=True, args="<name>",
         flags="--credential-provider= --item= --url= --no-navigate --username-selector= "
         "--password-selector= --submit-selector=", files=URL_FLAG, access=SHARED),
    _cmd("auth list", "List auth profiles", session=LOCAL, ro=True, access=SHARED),
    _cmd("auth show", "Show auth profile metadata", session=LOCAL, ro=True, args="<name>",
         access=SHARED),
    _cmd("auth delete", "Delete auth profile", session=LOCAL, aliases=("auth remove",),
         args="<name>", access=SHARED),
    # Plugins are local config (brief: sessionless; the contract does not name them).
    # The engine also spells `add` as `install`; adding runs `npx` on the plugin reference.
    _cmd("plugin add", "Add a plugin", session=LOCAL, args="<package>", access=OP,
         aliases=("plugins add", "plugin install", "plugins install"),
         flags="--name= --capability= --project --no-manifest --global"),
    _cmd("plugin list", "List plugins", session=LOCAL, aliases=("plugins list",), ro=True),
    _cmd("plugin show", "Show a plugin", session=LOCAL, aliases=("plugins show",), ro=True,
         args="<name>"),
    _cmd("plugin run", "Run a plugin request", session=LOCAL, aliases=("plugins run",),
         args="<name> <request>", flags="--payload=!", access=OP),
    # Confirming runs the pending action, which may navigate.
    _cmd("confirm", "Approve a pending action", effect=MAY, latch=True, args="<confirmation-id>",
         confirmation=ConfirmationRole.APPROVE),
    _cmd("deny", "Deny a pending action", args="<confirmation-id>",
         confirmation=ConfirmationRole.DENY,
         prose=("Denied `{action}`; it did not run.", "Denied the pending action.")),
    _cmd("session", "Show current session name", ro=True),
    _cmd("session id", "Generate a stable session id (local)", session=LOCAL, ro=True,
         flags="--scope= --prefix="),
    _cmd("session info", "Daemon, launch and restore diagnostics", ro=True,
         daemon_diagnostic=True),
    _cmd("session list", "List active sessions", session=LOCAL, ro=True),
    # State files: save/load need the browser, the rest is local file lifecycle.
    # Every browser gets an encryption key (`engine.state_key`): saved state is `<path>.enc`.
    _cmd("state save", "Save cookies and storage to a file", args="<path>",
         artifacts=(ArtifactSlot(A.STATE, path_operand=0, also_written=(".enc",)),)),
    # Restoring an origin's storage navigates the active tab to that origin (same tab, new
    # document): the page is read back after the load, so the target stays known.
    _cmd("state load", "Load state from a file", effect=HIST, latch=True, nav=True, probe=True,
         args="<path>", files=FileSlots(reads=(0,)), diagnostic=DG.SAVED_STATE),
    _cmd("state list", "List saved state files", session=LOCAL, ro=True, access=SHARED),
    # `state show <path>` reads any path (relative to the working dir) and prints it.
    _cmd("state show", "Show state summary", session=LOCAL, ro=True, args="<path>",
         access=SHARED, files=FileSlots(reads=(0,))),
    _cmd("state rename", "Rename a state file", session=LOCAL, args="<old> <new>", access=SHARED),
    _cmd("state clear", "Clear saved states", session=LOCAL, args="[name]", flags="--all/-a",
         access=SHARED),
    _cmd("state clean", "Delete expired state files", session=LOCAL, flags="--older-than=",
         access=SHARED),
    # Servers, setup and skills.
    # Servers and installers reach past the browser (ports, packages, another agent loop that
    # bypasses this policy): operator-only.
    _cmd("chat", "Natural-language browser control", effect=MAY, latch=True, timeout=LONG,
         args="[message]", access=OP),
    _cmd("mcp", "Start an MCP stdio server", session=LOCAL, timeout=LONG,
         flags="--tools=", access=OP),
    _cmd("mcp call", "Run one engine MCP tool", session=LOCAL, access=OP, args="<tool> [arguments]",
         flags="--tools=", since="0.41.2"),
    _cmd("dashboard start", "Start the dashboard server", session=LOCAL, timeout=LONG,
         stop="dashboard stop", flags="--port= --allowed-origins=", access=OP),
    _cmd("dashboard stop", "Stop the dashboard server", session=LOCAL, access=OP),
    _cmd("install", "Install browser binaries", session=LOCAL, timeout=LONG,
         flags="--with-deps/-d", access=OP),
    _cmd("upgrade", "Upgrade agent-browser", session=LOCAL, timeout=LONG, access=OP),
    # doctor's own switches (--offline, --quick, --fix, --webgpu, --headed, --debug) are all
    # stripped by the global parser, so it has no local flags.
    _cmd("doctor", "Diagnose the install", session=LOCAL, timeout=LONG),
    _cmd("profiles", "List Chrome profiles", session=LOCAL, ro=True, access=OP),
    _cmd("skills list", "List bundled skills", session=LOCAL, ro=True),
    _cmd("skills get", "Print a skill", session=LOCAL, ro=True, args="[name...]",
         flags="--full --all --ref=@0.41.2"),
    _cmd("skills path", "Print a skill directory", session=LOCAL, ro=True, args="[name]"),
    _cmd("device list", "List iOS simulators", session=LOCAL, ro=True),
    # The wrapper's own: a result too large to show names its saved spill, which lives in the
    # state dir the model may never open, so the tool reads it back (`results.spill_reader`).
    _cmd("spill", "Read a saved output a result named, a window at a time", session=LOCAL,
         ro=True, args="<name>", flags="--offset=", wrapper_only=True),
)
# fmt: on

GROUP_DEFAULTS: tuple[GroupDefault, ...] = (
    GroupDefault(("tab",), bare=("tab", "list"), operand=("tab", "select")),
    GroupDefault(("cookies",), bare=("cookies", "get")),
    GroupDefault(("storage", "local"), ("storage", "local", "get"), ("storage", "local", "get")),
    GroupDefault(
        ("storage", "session"), ("storage", "session", "get"), ("storage", "session", "get")
    ),
    GroupDefault(("skills",), bare=("skills", "list")),
    GroupDefault(("plugin",), bare=("plugin", "list")),
    GroupDefault(("plugins",), bare=("plugin", "list")),
    GroupDefault(("dashboard",), bare=("dashboard", "start")),
    GroupDefault(("device",), bare=("device", "list")),
)
