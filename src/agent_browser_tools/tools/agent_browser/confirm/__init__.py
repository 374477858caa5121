"""The engine's `--confirm-actions` handshake and the probes it keeps away."""
