"""state layer."""
