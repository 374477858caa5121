"""`agent_browser_source`: candidate source locations for a UI element."""
