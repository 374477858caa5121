"""`agent_browser_code`: sandboxed JavaScript cells over the persistent browser."""
