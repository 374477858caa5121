"""hosts layer."""
