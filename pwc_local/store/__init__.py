"""Local state on disk: the response cache and the per-machine cursor key."""
