"""`agent_browser_action` (advanced): locator and accessible-select actions compiled to argv."""
