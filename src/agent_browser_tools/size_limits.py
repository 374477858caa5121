"""Every size limit of an answer or of a per-command input, in one place, each with its why.

Answers: a whole MCP message stays within `MESSAGE_BUDGET_BYTES` (`results/message_budget.py`),
one huge string value of a command's answer is moved to a file (`results/large_values.py`),
and the engine's output is read only up to `ENGINE_OUTPUT_READ_LIMIT_BYTES`. Inputs: typed
text, stdin and batch rows are refused over their limits (`planning/command_limits.py`).
"""

from __future__ import annotations

CLIENT_MESSAGE_LIMIT_BYTES = 1024 * 1024
"""What the official MCP Python client accepts in one message (its SSE event limit over HTTP):
a bigger answer is dropped and the model gets nothing."""

MESSAGE_BUDGET_BYTES = 768 * 1024
"""The largest whole answer we send: content text, images and `_meta` details, measured as
ASCII-escaped JSON (the longest form any JSON encoder gives, so non-ASCII text cannot push it
over). 256 KiB under the client's 1 MiB leaves room for the JSON-RPC and SSE framing; 768 KiB
still carries a full-HD screenshot inline (a PNG of up to ~570 KB, base64 grows it by 4/3)."""

LARGE_VALUE_CHARS = 1024 * 1024
"""A string in a command's answer (`eval` result, `get text|html|value`, console text) longer
than this is moved to a spill file: nobody reads it inline (the visible text shows 16,000
characters), and carrying it through redaction, details and the message costs memory and time
for nothing. It is the most a code cell can receive in one reply (the sandbox's 1 MiB message
limit), so no value a cell could have used whole is cut."""

LARGE_VALUE_HEAD_CHARS = 8_000
"""How much of a moved value stays in the answer: half the visible text limit, so the rendered
answer (value, page facts, next actions) still fits without a second spill."""

ENGINE_OUTPUT_READ_LIMIT_BYTES = 64 * 1024 * 1024
"""The most engine output the wrapper reads and parses. Parsing keeps a few copies in memory
(text, decoded JSON, redacted value), so an unbounded answer (an `eval` returning a gigabyte)
could take the whole server down; beyond this the output is discarded while it streams and the
call fails saying so. A 50 MB value is still read (and then moved to a spill file)."""

TYPED_TEXT_LIMIT_BYTES = 100 * 1024
"""Text one `fill`, `type`, `keyboard type|inserttext` (or `find ... fill|type`) may enter.
The engine gets it as one command-line argument, and Linux refuses any single argument over
128 KiB (the spawn would fail as if the engine were missing); 100 KiB is above what real
forms take (GitHub bodies 65,536 characters, Stack Overflow 30,000)."""

ARGUMENT_LIMIT_BYTES = 128 * 1024 - 1
"""One argv token handed to the engine. Linux refuses to start a program with a single
command-line argument of 128 KiB or more (`MAX_ARG_STRLEN`, the terminating NUL included), and
the failed spawn would read as a missing engine; long script goes through `stdin` instead."""

STDIN_LIMIT_BYTES = 4 * 1024 * 1024
"""The `stdin` of `eval --stdin`, `batch` and `auth save --password-stdin`. An injected
library (axe-core is ~0.5 MB) or a 10,000-row batch (~0.2 MB of ordinary rows) fits many
times over; a larger stdin is a mistake (a file pasted by accident), not a browser step."""

BATCH_ROWS_LIMIT = 10_000
"""Rows in one `batch`. Real flows are tens to hundreds of steps; past 10,000 one answer can no
longer report them usefully and one stuck row holds the browser for the whole watchdog, so
split the work into several batches."""
