"""Load only the parts of the MCP SDK the server uses, so a client's first `tools/list` is quick.

Why: an MCP client starts the server and waits for `initialize` and `tools/list` before the
model can do anything, and nearly all of that wait was importing. The SDK's package
`__init__`s (`mcp`, `mcp.server`) import the whole SDK on the way to any submodule: the client
side (`mcp.client`, a quarter of a second) and the high-level `MCPServer` with its resource
templates, none of which a server on the lowlevel `Server` touches.

`skip_sdk_package_inits()` registers those two packages without running their `__init__`, so
`import mcp.server.stdio` loads what that module imports and nothing else. The first attribute
asked of either package (`from mcp import Client`, `mcp.server.MCPServer`) runs its `__init__`
there and then, so every other user of the SDK in the process sees it unchanged. Nothing of
the SDK is copied or replaced: the same modules load, fewer of them.

`gc_paused()` keeps the cyclic garbage collector off while the server's modules load: an import
creates tens of thousands of objects that nearly all stay alive (classes, validators), so the
collections it triggers find next to nothing (the stdio host's imports leave ~800 unreachable
objects among ~80,000 tracked ones) and cost close to a tenth of the start. On the way out
everything is frozen (`gc.freeze`): otherwise the first allocation after it would start a
collection of all those objects (~0.1 s here) on the way to the client's first answer; the few
cycles the imports left stay for the life of the process.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import sys
from collections.abc import Iterator
from types import ModuleType

LAZY_PACKAGES = ("mcp", "mcp.server")
"""Parent first: finding `mcp.server` imports `mcp`, which must be the lazy one by then."""


def skip_sdk_package_inits() -> None:
    """Register `LAZY_PACKAGES` with their `__init__` deferred to the first attribute asked
    of them; a package already imported (by anyone) is left as it is."""
    for name in LAZY_PACKAGES:
        if name not in sys.modules:
            _register_lazy(name)


def _register_lazy(name: str) -> None:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return  # not an installed package: the ordinary import reports it
    loader = spec.loader
    module = importlib.util.module_from_spec(spec)

    def complete(attr: str) -> object:
        # A module-level __getattr__ (PEP 562) is asked only for names the module lacks.
        del module.__dict__["__getattr__"]
        loader.exec_module(module)
        return getattr(module, attr)

    module.__dict__["__getattr__"] = complete
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)


def is_deferred(module: ModuleType) -> bool:
    """`module` is one of the lazy packages whose `__init__` has not run yet."""
    return "__getattr__" in module.__dict__ and module.__name__ in LAZY_PACKAGES


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector off for the block (if it was on), survivors frozen after it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
