"""Local state on disk: the response cache and the per-machine cursor key.

One light module sits beside them because the tool layer must reach it without
importing the cache at start-up: `freshness` (was a stale entry served?).
"""
