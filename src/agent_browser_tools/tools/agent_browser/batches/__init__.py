"""Native batches: their steps, segments, merged scripts and watchdog recovery."""
