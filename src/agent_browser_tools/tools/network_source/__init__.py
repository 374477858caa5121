"""`agent_browser_network_source`: failed network requests correlated with candidate sources.

Modules: `schema` (input), `compile` (input -> read-only native batch), `analyze` (failed rows,
needles, initiators), `workspace` (bounded URL-literal search), `lookup` (the result value),
`run` (handler), `spec` (declaration).
"""
