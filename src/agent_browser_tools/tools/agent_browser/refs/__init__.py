"""Refs the model sees and the proof that each still names its element."""
