"""Code-cell sandbox: QuickJS in a throwaway child process, driven over JSON-lines IPC.

Binding choice: `quickjs-ng` (PyPI, genotrance). Compared with `quickjs` (PetterS; last
release 2023, older Bellard engine), `python-quickjs-ng` (the same project's superseded
name), `edwh-quickjs-ng` (a fork that trails upstream), `jsbox` (young 0.1.x rquickjs
binding) and `quickjs-bindings` (young, CPython-version-specific wheels only): it tracks
upstream quickjs-ng releases, ships abi3 manylinux wheels (CPython 3.10+ on x86_64 Linux),
and has what a hand-driven cell needs: a heap limit (`set_memory_limit`), a stack limit,
`execute_pending_job` to drive promises, and host callables. Its time limit cannot be
combined with host callables, so the deadline is the parent's SIGKILL of the worker's
process group. None of QuickJS's std/os modules are loaded: the context has no
filesystem, network, process, module loader, timer or WebAssembly API; string code
generation is switched off from inside the context (see `prelude`).

- `prelude`: the JavaScript that defines `browser`, `emit`, `emitImage` and hardens the context.
- `worker`: the child process (stdlib + the binding only).
- `bridge`: the parent side: spawn, IPC caps, the call queue, the deadline.
- `protocol`: limits, the host protocol and the outcome type.
"""
