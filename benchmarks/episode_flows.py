"""The scripted flows of `episode_chars.py`: what a model would send, with no model in the loop.

Each flow opens one page, then runs a fixed list of steps. A step is an engine argv in which a
`Ref` stands for "the element with this role and name in the last `snapshot -i` the model
read": the runner resolves it from that snapshot's *text* (what the model saw), so a control
that a result hides cannot be used. Success is read from the page at the end (`check`, a
JavaScript expression), never from what a result claimed.

MiniWoB++ flows start a seeded episode after `open` (`MINIWOB_SETUP`, not counted: a harness
hands the task to the agent) and plan their steps from the task's utterance, as an agent
reading the instruction would. The fixture flows run on `tests/fixture_site/`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: Commands whose result lengths make the "median click/fill result" figure.
MEDIAN_COMMANDS = frozenset({"click", "fill"})


@dataclass(frozen=True)
class Ref:
    """The `nth` element with `role` (and `name`, unless None) in the last snapshot text."""

    role: str
    name: str | None = None
    nth: int = 0

    def __str__(self) -> str:
        named = "" if self.name is None else f' "{self.name}"'
        return f"{self.role}{named}" + (f" #{self.nth + 1}" if self.nth else "")


Arg = str | Ref


@dataclass(frozen=True)
class Step:
    """One call; `navigates` marks an action that loads a new document (left out of medians)."""

    args: tuple[Arg, ...]
    navigates: bool = False


def step(*args: Arg, navigates: bool = False) -> Step:
    return Step(tuple(args), navigates)


SNAPSHOT = step("snapshot", "-i")


@dataclass(frozen=True)
class Flow:
    name: str
    url: str
    plan: Callable[[str], list[Step]]  # the steps, from the task's utterance ("" if none)
    check: str  # JavaScript: true when the page shows the goal was reached
    setup: str | None = None  # JavaScript after `open`, not counted; returns the utterance
    group: str = "fixture"  # subtotals: small fixture pages, dense pages, MiniWoB++


def fixed(*steps: Step) -> Callable[[str], list[Step]]:
    return lambda _utterance: list(steps)


def _text_is(selector: str, expected: str) -> str:
    return f"document.querySelector({selector!r}).textContent.trim() === {expected!r}"


def fixture_flows(url: Callable[[str], str]) -> list[Flow]:
    """Flows on the fixture site; `url(page)` is the page's address on the local server."""
    button, textbox = "button", "textbox"
    return [
        Flow(
            "form-fill-submit",
            url("form.html"),
            fixed(
                SNAPSHOT,
                step("fill", Ref(textbox, "Full name"), "Ada Lovelace"),
                step("fill", Ref(textbox, "Email"), "ada@example.com"),
                step("select", Ref("combobox", "Flavor"), "Chocolate"),
                step("check", Ref("checkbox", "Subscribe")),
                step("click", Ref("radio", "Medium")),
                step("click", Ref(button, "Submit")),
            ),
            "['Full name: Ada Lovelace', 'Email: ada@example.com', 'Flavor: chocolate',"
            " 'Subscribe: yes', 'Size: medium'].every("
            "l => document.getElementById('result').textContent.split('\\n').includes(l))",
        ),
        Flow(
            "form-number-textarea",
            url("form.html"),
            fixed(
                SNAPSHOT,
                step("fill", Ref("spinbutton", "Age"), "36"),
                step("fill", Ref(textbox, "Comments"), "Two lines\nof comment"),
                step("click", Ref(button, "Submit")),
            ),
            "document.getElementById('result').textContent.includes('Age: 36')"
            " && document.getElementById('comments').value === 'Two lines\\nof comment'",
        ),
        Flow(
            "login-fields",
            url("login.html"),
            fixed(
                SNAPSHOT,
                step("fill", Ref(textbox, "User"), "ada"),
                step("fill", Ref(textbox, "Code"), "s3cret-Code"),
                step("fill", Ref(textbox, "Note"), "hello"),
            ),
            "document.getElementById('user').value === 'ada'"
            " && document.getElementById('check').textContent.startsWith('Code: 11 characters')"
            " && document.getElementById('note').value === 'hello'",
        ),
        Flow(
            "form-post-redirect",
            url("walk.html"),
            fixed(
                SNAPSHOT,
                step("fill", Ref(textbox, "Comment"), "posted"),
                step("click", Ref(button, "Submit"), navigates=True),
            ),
            "walkEvents.some(e => e.logical === 'form-submit' && e.type === 'click')"
            " && document.querySelector('[name=comment]').value === ''",
        ),
        # Chromium shows a date input as one spinbutton per part (no textbox with its label);
        # the engine's `fill`, `type` and `keyboard type` leave it empty, key presses set it.
        Flow(
            "date-keys",
            url("booking.html"),
            fixed(
                SNAPSHOT,
                step("focus", Ref("spinbutton", "Month Month")),
                *[step("press", key) for key in "12242026"],
                step("fill", Ref("spinbutton", "Guests"), "2"),
                step("click", Ref(button, "Book")),
            ),
            "document.getElementById('checkin').value === '2026-12-24'"
            " && document.getElementById('booked').textContent.startsWith('Booked 2026-12-24')",
        ),
        Flow(
            "dense-search-edit",
            url("dense.html"),
            fixed(
                SNAPSHOT,
                step("fill", Ref("searchbox", "Search rows"), "Row 437"),
                SNAPSHOT,
                step("click", Ref(button, "Edit 437")),
            ),
            _text_is("#editing", "Editing: Row 437"),
            group="dense",
        ),
        Flow(
            "grid-filters",
            url("grid.html"),
            fixed(
                SNAPSHOT,
                step("fill", Ref(textbox, "Customer"), "Ada"),
                step("check", Ref("checkbox", "Only flagged")),
                step("select", Ref("combobox", "Sort by"), "Oldest"),
                step("click", Ref("radio", "Shipped")),
            ),
            "document.getElementById('customer').value === 'Ada'"
            " && document.getElementById('flagged').checked"
            " && document.getElementById('sort').value === 'Oldest'"
            " && document.querySelector('input[value=shipped]').checked",
            group="dense",
        ),
        Flow(
            "dialog-confirm",
            url("dialogs.html"),
            fixed(SNAPSHOT, step("click", Ref(button, "Confirm")), step("dialog", "accept")),
            _text_is("#outcome", "confirm: accepted"),
        ),
        Flow(
            "dialog-prompt",
            url("dialogs.html"),
            fixed(SNAPSHOT, step("click", Ref(button, "Prompt")), step("dialog", "accept", "Ada")),
            _text_is("#outcome", "prompt: Ada"),
        ),
        Flow(
            "dialog-alert",
            url("dialogs.html"),
            fixed(SNAPSHOT, step("click", Ref(button, "Alert"))),
            _text_is("#outcome", "alert closed"),
        ),
        Flow(
            "aria-tabs",
            url("tablist.html"),
            fixed(
                SNAPSHOT,
                step("click", Ref("tab", "Reviews")),
                SNAPSHOT,
                step("fill", Ref(textbox, "Your review"), "Bright enough"),
                step("click", Ref(button, "Post review")),
            ),
            _text_is("#posted", "Posted: Bright enough"),
        ),
        Flow(
            "links-navigate",
            url("links.html"),
            fixed(
                SNAPSHOT,
                step("click", Ref("link", "Go to Page A"), navigates=True),
                SNAPSHOT,
                step("click", Ref("link", "Go to Page B"), navigates=True),
            ),
            "location.pathname === '/page-b.html'",
        ),
        Flow(
            "links-query-back",
            url("links.html"),
            fixed(
                SNAPSHOT,
                step("click", Ref("link", "Page B with query"), navigates=True),
                step("back", navigates=True),
                SNAPSHOT,
                step("click", Ref("link", "Go to Page B"), navigates=True),
            ),
            "location.pathname === '/page-b.html' && !location.search",
        ),
        Flow(
            "modal-close-buy",
            url("modal.html"),
            fixed(
                SNAPSHOT,
                step("click", Ref(button, "Close")),
                SNAPSHOT,
                step("click", Ref(button, "Buy now")),
            ),
            _text_is("#status", "bought"),
        ),
        Flow(
            "clicks-count",
            url("clicks.html"),
            fixed(SNAPSHOT, *[step("click", Ref(button, "Count"))] * 3),
            _text_is("#status", "3"),
        ),
        Flow(
            "clicks-dialog-close",
            url("clicks.html"),
            fixed(
                SNAPSHOT,
                step("click", Ref(button, "Subscribe")),
                SNAPSHOT,
                step("click", Ref(button, "Close")),
            ),
            "document.getElementById('dialog') === null",
        ),
    ]


# --- MiniWoB++ -------------------------------------------------------------------------

MINIWOB_SEED = "agent-browser-tools/episode-chars"
#: Seeded, with a long episode clock (the default 10 s would end slow episodes as failures).
MINIWOB_SETUP = (
    f"(() => {{ Math.seedrandom({MINIWOB_SEED!r}); core.EPISODE_MAX_TIME = 600000;"
    " core.startEpisodeReal(); return core.getUtterance(); })()"
)
MINIWOB_CHECK = "WOB_DONE_GLOBAL === true && WOB_RAW_REWARD_GLOBAL >= 0.999"


def _grab(pattern: str, utterance: str) -> tuple[str, ...]:
    match = re.search(pattern, utterance)
    if match is None:
        raise ValueError(f"utterance {utterance!r} does not match {pattern!r}")
    return match.groups()


def _submit(name: str = "Submit") -> Step:
    return step("click", Ref("button", name))


def _click_button(u: str) -> list[Step]:
    (name,) = _grab(r'Click on the "(.+)" button', u)
    return [SNAPSHOT, step("click", Ref("button", name))]


def _enter_text(u: str) -> list[Step]:
    (text,) = _grab(r'Enter "(.+)" into the text field', u)
    return [SNAPSHOT, step("fill", Ref("textbox"), text), _submit()]


def _click_checkboxes(u: str) -> list[Step]:
    (names,) = _grab(r"Select (.*) and click Submit", u)
    wanted = [] if names == "nothing" else names.split(", ")
    return [SNAPSHOT, *(step("check", Ref("checkbox", n)) for n in wanted), _submit()]


def _login_user(u: str) -> list[Step]:
    user, password = _grab(r'username "(.+)" and the password "(.+)" into', u)
    return [
        SNAPSHOT,
        step("fill", Ref("textbox", nth=0), user),
        step("fill", Ref("textbox", nth=1), password),
        _submit("Login"),
    ]


def _enter_password(u: str) -> list[Step]:
    (password,) = _grab(r'password "(.+)" into both', u)
    fills = [step("fill", Ref("textbox", nth=i), password) for i in (0, 1)]
    return [SNAPSHOT, *fills, _submit()]


def _choose_list(u: str) -> list[Step]:
    (item,) = _grab(r"Select (.+) from the list", u)
    return [SNAPSHOT, step("select", Ref("combobox"), item), _submit()]


def _click_option(u: str) -> list[Step]:
    (name,) = _grab(r"Select (.+) and click Submit", u)
    return [SNAPSHOT, step("click", Ref("radio", name)), _submit()]


def _click_tab(u: str) -> list[Step]:
    (number,) = _grab(r"Click on Tab #(\d)", u)
    return [SNAPSHOT, step("click", Ref("tab", f"Tab #{number}"))]


def _click_dialog(_u: str) -> list[Step]:
    return [SNAPSHOT, step("click", Ref("button", "Close"))]


def _focus_text(_u: str) -> list[Step]:
    return [SNAPSHOT, step("click", Ref("textbox"))]


def _click_collapsible(_u: str) -> list[Step]:
    return [SNAPSHOT, step("click", Ref("tab")), SNAPSHOT, _submit()]


MINIWOB_PLANS: dict[str, Callable[[str], list[Step]]] = {
    "click-button": _click_button,
    "enter-text": _enter_text,
    "click-checkboxes": _click_checkboxes,
    "login-user": _login_user,
    "enter-password": _enter_password,
    "choose-list": _choose_list,
    "click-option": _click_option,
    "click-tab": _click_tab,
    "click-dialog": _click_dialog,
    "focus-text": _focus_text,
    "click-collapsible": _click_collapsible,
}


def miniwob_flows(url: Callable[[str], str]) -> list[Flow]:
    """One seeded episode per task; `url(path)` is the path's address under the html dir."""
    return [
        Flow(
            f"miniwob/{task}",
            url(f"miniwob/{task}.html"),
            plan,
            MINIWOB_CHECK,
            setup=MINIWOB_SETUP,
            group="miniwob",
        )
        for task, plan in MINIWOB_PLANS.items()
    ]
