"""Reading `react tree` / `react inspect` answers and ranking candidates (pure)."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.tools.source import lookup, react, workspace
from agent_browser_tools.tools.source.lookup import Evidence

# Verbatim engine 0.39.4 output on the React fixture.
TREE = (
    "# React component tree\n# Columns: depth id parent name [key=...]\n"
    "# Use `react inspect <id>` for props/hooks/state. IDs valid until next navigation.\n"
    "0 1 - Root\n1 2 1 App\n2 3 2 main\n3 4 3 h1\n3 5 3 Toolbar\n4 6 5 nav\n"
    "5 7 6 SaveButton\n6 8 7 button\n7 9 8 li key=row-1"
)
BUTTON = {
    "source": None,
    "text": 'button #8\nprops:\n  id: "save"\n  type: "button"\n  onClick: onClick() {}\n'
    '  children: "Save"\nrendered by: SaveButton > Toolbar > App',
}
SAVE_BUTTON = {
    "source": ["http://127.0.0.1:1/react/dist/app.js", 24483, 25],
    "text": 'SaveButton #7\nprops:\n  label: "Save"\nhooks:\n  State2: undefined (1 sub)\n'
    "rendered by: Toolbar > App",
}


def test_tree_rows() -> None:
    fibers = react.parse_tree(TREE)
    assert [(f.id, f.parent, f.name) for f in fibers][:3] == [
        (1, None, "Root"),
        (2, 1, "App"),
        (3, 2, "main"),
    ]
    assert fibers[-1].name == "li" and fibers[-1].key == "row-1"
    assert [f.name for f in fibers if f.is_host] == ["main", "h1", "nav", "button", "li"]


def test_inspect_props_owners_and_source() -> None:
    button = react.parse_inspect(8, BUTTON)
    assert button is not None
    assert button.name == "button" and button.props["id"] == '"save"'
    assert button.owners == ("SaveButton", "Toolbar", "App") and button.source is None
    assert react.owner_component(button) == "SaveButton"
    component = react.parse_inspect(7, SAVE_BUTTON)
    assert component is not None
    assert component.source == ("http://127.0.0.1:1/react/dist/app.js", 24483, 25)
    assert react.parse_inspect(7, {"no": "text"}) is None


def test_react_failures_are_told_apart() -> None:
    missing = (
        "Evaluation error: Error: React DevTools hook not installed - relaunch with "
        "--enable react-devtools"
    )
    assert react.react_failure(missing) == react.HOOK_MISSING
    assert react.react_failure("Error: No React renderer attached") == react.NO_RENDERER
    assert react.react_failure("timeout") is None


def test_selector_parts_and_element_match() -> None:
    parts = react.selector_parts('form > button#save.primary[data-testid="s"]:hover')
    assert parts.tag == "button" and parts.ids == ("save",)
    assert parts.classes == ("primary",) and parts.attrs == (("data-testid", "s"),)
    button = react.parse_inspect(8, BUTTON)
    assert button is not None
    assert react.element_match(button, react.selector_parts("#save"), None) == 'props id="save"'
    assert react.element_match(button, react.selector_parts("#other"), "Save") is None
    assert react.element_match(button, react.selector_parts("@e3"), "Save") is not None
    hosts = react.host_fibers_for(react.parse_tree(TREE), react.selector_parts("button#save"))
    assert [f.id for f in hosts] == [8]


def test_statuses(tmp_path: Path) -> None:
    assert lookup.build(Evidence(root=tmp_path))["status"] == "no-candidates"
    unsupported = lookup.build(Evidence(root=tmp_path, react=react.HOOK_MISSING))
    assert unsupported["status"] == "unsupported"
    assert "--enable react-devtools" in unsupported["limitations"][0]
    dom = lookup.build(
        Evidence(root=tmp_path, selector="#a", visible=True, react=react.NO_RENDERER)
    )
    assert dom["status"] == "candidates-found" and dom["candidates"][0]["source"] == "dom"


def test_element_literal_in_the_owner_file_ranks_first(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "SaveButton.tsx").write_text(
        'export function SaveButton() {\n  return <button id="save" />;\n}\n'
    )
    (src / "Other.tsx").write_text('export const Other = () => <i id="save" />;\n')
    needles = [*workspace.component_needles("SaveButton"), workspace.attribute_needle("id", "save")]
    ev = Evidence(root=tmp_path, selector="#save", visible=True)
    ev.element = react.parse_inspect(8, BUTTON)
    ev.element_match = 'props id="save"'
    ev.scan = workspace.scan(tmp_path, needles)
    found = lookup.build(ev)
    first = found["candidates"][0]
    assert (first["file"], first["line"], first["confidence"]) == ("src/SaveButton.tsx", 2, "high")
    assert first["component"] == "SaveButton"
    other = next(c for c in found["candidates"] if c.get("file") == "src/Other.tsx")
    assert other["confidence"] == "medium"
    assert lookup.candidate_lines(found)[0].startswith("- src/SaveButton.tsx:2:")


def test_bundle_source_is_a_script_url_not_a_file(tmp_path: Path) -> None:
    ev = Evidence(root=tmp_path, components=[react.parse_inspect(7, SAVE_BUTTON)])  # type: ignore[list-item]
    (candidate,) = lookup.build(ev)["candidates"]
    assert candidate["source"] == "react-inspect" and "file" not in candidate
    assert candidate["scriptUrl"].endswith("/dist/app.js") and candidate["confidence"] == "low"


def test_served_module_maps_to_a_workspace_file_only_inside_it(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "App.tsx").write_text("x")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "app.js").write_text("x")
    assert lookup.served_workspace_file(tmp_path, "http://h:5173/src/App.tsx?t=1") == "src/App.tsx"
    assert lookup.served_workspace_file(tmp_path, "http://h/dist/app.js") is None
    assert lookup.served_workspace_file(tmp_path, "http://h/../etc/passwd.js") is None
    assert lookup.served_workspace_file(tmp_path, "http://h/src/Missing.tsx") is None
    outside = tmp_path.parent / "outside_src"
    outside.mkdir(exist_ok=True)
    (outside / "B.tsx").write_text("x")
    (tmp_path / "linked").symlink_to(outside)
    assert lookup.served_workspace_file(tmp_path, "http://h/linked/B.tsx") is None


def test_script_urls_are_redacted(tmp_path: Path) -> None:
    source = {**SAVE_BUTTON, "source": ["http://u:pw@h/app.js?token=abc123", 1, 1]}
    ev = Evidence(root=tmp_path, components=[react.parse_inspect(7, source)])  # type: ignore[list-item]
    text = str(lookup.build(ev))
    assert "pw@" not in text and "abc123" not in text
