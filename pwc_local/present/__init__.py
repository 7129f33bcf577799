"""Compact output models and their text, one module per tool family."""
