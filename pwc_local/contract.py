"""Bounds and defaults that the tool table and the command line both state.

A module that imports nothing, so that each side can read them without the other's
weight: the tool table (`pwc_local/server/contract.py`) must not load the HTTP
client, and the `library` commands must not load the MCP SDK.
"""

from __future__ import annotations

CHUNK_BYTES = 65536
"""The catalog's Markdown chunk (64 KiB): what a reader asks per read, the largest
`limit` a cursor may carry, the most a section answer holds, a saved piece's size."""

MAX_ROWS = 25  # rows (or passages) one answer may be asked for
MAX_SAVE = 25  # references one `save_papers` call may name (the tool schema's bound)
SEARCH_LIBRARY_LIMIT = 10  # passages `search_library` and `library search` return by default
MAX_REFERENCE_CHARS = 500  # a paper reference: tool schema and `library add` / `remove`
