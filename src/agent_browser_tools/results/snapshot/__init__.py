"""Snapshot results: compaction, controls, native deltas, diffs, probes and views (pure)."""
