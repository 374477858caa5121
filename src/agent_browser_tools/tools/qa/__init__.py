"""`agent_browser_qa` (advanced): a page check that ends in a verdict."""
