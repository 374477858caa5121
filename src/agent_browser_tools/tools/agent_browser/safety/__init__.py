"""Checks before dispatch that keep a call off what it must not touch."""
