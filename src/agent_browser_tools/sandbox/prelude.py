"""The JavaScript prelude of a code cell: the cell globals and the hardening of the context.

The worker evaluates `PRELUDE` once in a fresh QuickJS context, before any user code. The text
is an expression that evaluates to a factory; the worker calls it with the limits (JSON text)
and receives the private `control(op, ...)` function it drives the cell with. Nothing the
prelude defines for the worker is reachable from user code: the host `send` callable is
captured in a closure and deleted from `globalThis`, and `control` is held only by Python.

What user code gets (all plain JavaScript, no host object ever crosses):

- `browser({ args, stdin?, timeoutMs? })` posts a JSON request and returns a promise that the
  parent settles with a JSON observation (parsed here, so it is an ordinary JS object). It
  never rejects: a failed command is an observation with `success: false`.
- `emit(value)` records JSON output (64 KiB in total; going over throws and fails the cell).
- `emitImage(handle)` selects an image observation object that `browser()` returned in this
  cell (object identity is checked here, and id/path again in the parent).

Hardening: string code generation is disabled by replacing `eval`, the `Function` global and
the `constructor` of the Function/AsyncFunction/GeneratorFunction/AsyncGeneratorFunction
prototypes with a throwing function. QuickJS has no host switch for this through the Python
binding (the C API could omit the eval intrinsic, the binding cannot), so this is done from
inside the context: the original constructors still exist inside the engine, but no property
path from user code reaches them any more.
"""

from __future__ import annotations

PRELUDE = r"""
(function (limitsText) {
  "use strict";
  const send = globalThis.__abt_send;
  delete globalThis.__abt_send;
  const limits = JSON.parse(limitsText);
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const PromiseCtor = Promise;
  const pending = new Map();
  const knownImages = new WeakSet();
  const selectedImages = new Set();
  let nextId = 1;
  let settled = false;
  let emitBytes = 0;
  let emitCount = 0;

  function utf8Length(text) {
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) { bytes += 4; i++; }
      else bytes += 3;
    }
    return bytes;
  }

  // The binding cannot convert QuickJS rope strings (lazy `a + b` results) to Python, so every
  // string handed to `send` is built by JSON.stringify or Array.join, which produce flat ones.
  function post(message) { send(stringify(message)); }
  function sendParts(parts) { send(parts.join("")); }

  function jsonText(value, what) {
    let text;
    try { text = stringify(value); } catch (err) {
      throw new TypeError(what + " must be JSON-serializable: " + String(err && err.message));
    }
    if (text === undefined) {
      throw new TypeError(what + " must be a JSON value, not " + typeof value);
    }
    return text;
  }

  function browser(request) {
    const id = nextId++;
    let text = null;
    let encodeError = null;
    try { text = jsonText(request, "browser() request"); } catch (err) {
      encodeError = err.message;
    }
    return new PromiseCtor(function (resolve) {
      pending.set(id, resolve);
      if (text === null) post({ type: "call", id: id, request: null, encodeError: encodeError });
      else sendParts(['{"type":"call","id":', String(id), ',"request":', text, "}"]);
    });
  }

  function emit(value) {
    const text = jsonText(value, "emit() value");
    const size = utf8Length(text);
    if (emitBytes + size > limits.emitBytes) {
      post({ type: "emitOverflow", bytes: emitBytes + size, limit: limits.emitBytes });
      throw new RangeError("emit(): emitted JSON would reach " + (emitBytes + size) +
        " bytes, over the " + limits.emitBytes + "-byte limit; emit a smaller selection");
    }
    emitBytes += size;
    emitCount += 1;
    sendParts(['{"type":"emit","value":', text, "}"]);
  }

  function emitImage(handle) {
    if (handle === null || typeof handle !== "object" || !knownImages.has(handle)) {
      throw new TypeError("emitImage() takes an entry of imageObservations returned by " +
        "browser() in this cell; paths, copies and other objects are not image handles");
    }
    const id = String(handle.id);
    if (selectedImages.has(id)) return;
    if (selectedImages.size >= limits.maxImages) {
      throw new RangeError("emitImage(): at most " + limits.maxImages + " images per cell");
    }
    selectedImages.add(id);
    post({ type: "emitImage", id: id, path: String(handle.path) });
  }

  function describe(err) {
    const out = { name: "Error", message: "", stack: "" };
    try {
      if (err !== null && typeof err === "object") {
        out.name = String(err.name);
        out.message = String(err.message);
        out.stack = String(err.stack || "");
      } else {
        out.name = "Thrown";
        out.message = String(err);
      }
    } catch (inner) {
      out.message = "an exception whose message could not be read";
    }
    return out;
  }

  function finish(value) {
    if (settled) return;
    settled = true;
    if (emitCount > 0 || value === undefined) { post({ type: "done", hasValue: false }); return; }
    let text;
    try { text = jsonText(value, "the cell's return value"); } catch (err) {
      post({ type: "error", error: describe(err) });
      return;
    }
    sendParts(['{"type":"done","hasValue":true,"value":', text, "}"]);
  }

  function fail(err) {
    if (settled) return;
    settled = true;
    post({ type: "error", error: describe(err) });
  }

  function deliver(id, text) {
    const resolve = pending.get(id);
    if (resolve === undefined) return;
    pending.delete(id);
    const observation = parse(text);
    const images = observation && observation.imageObservations;
    if (Array.isArray(images)) {
      for (const image of images) {
        if (image !== null && typeof image === "object" && typeof image.id === "string") {
          knownImages.add(image);
        }
      }
    }
    resolve(observation);
  }

  const blocked = function Function() {
    throw new EvalError("code generation from strings (eval, Function) is disabled in " +
      "agent_browser_code");
  };
  const fixed = { writable: false, enumerable: false, configurable: false };
  const prototypes = [
    Function.prototype,
    Object.getPrototypeOf(async function () {}),
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async function* () {}),
  ];
  for (const proto of prototypes) {
    Object.defineProperty(proto, "constructor", Object.assign({ value: blocked }, fixed));
  }
  blocked.prototype = Function.prototype;
  Object.defineProperty(globalThis, "Function", Object.assign({ value: blocked }, fixed));
  const evalBlocked = function () { return blocked(); };
  Object.defineProperty(globalThis, "eval", Object.assign({ value: evalBlocked }, fixed));
  for (const [name, value] of [["browser", browser], ["emit", emit], ["emitImage", emitImage]]) {
    Object.defineProperty(globalThis, name, Object.assign({ value: value }, fixed));
  }

  return function control(op, a, b) {
    if (op === "start") {
      let promise;
      try { promise = a(); } catch (err) { fail(err); return; }
      PromiseCtor.resolve(promise).then(finish, fail);
      return;
    }
    if (op === "deliver") { deliver(a, b); return; }
    if (op === "status") return stringify({ settled: settled, waiting: pending.size });
    throw new Error("unknown control op");
  };
})
"""

WRAPPER_HEAD = "(async function () {\n"
WRAPPER_TAIL = "\n})"
WRAPPER_LINE_OFFSET = 1
"""User code line N is line N + 1 of the evaluated source (the wrapper's first line)."""


def wrap_code(code: str) -> str:
    """The user's async body as one function expression the worker evaluates."""
    return WRAPPER_HEAD + code + WRAPPER_TAIL
