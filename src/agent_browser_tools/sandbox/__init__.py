"""sandbox layer."""
