"""Local state on disk: the response cache and the per-machine cursor key.

Two light modules sit beside them because the tool layer must reach the cache
without importing it at start-up: `freshness` (was a stale entry served?) and
`held_writes` (write only once the responses proved usable).
"""
