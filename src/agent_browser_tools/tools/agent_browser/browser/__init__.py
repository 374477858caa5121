"""The session's browser: attachments, lifecycle, loss and cleanup."""
