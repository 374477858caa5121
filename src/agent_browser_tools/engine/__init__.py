"""The engine layer: finding the `agent-browser` binary, running it, parsing what it prints.

This is the only package that spawns the engine (`runner`). Everything above it works on the
typed `RawOutcome` and `Envelope` values it returns.
"""
