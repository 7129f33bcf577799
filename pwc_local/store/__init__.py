"""Local state on disk: the response cache, cursor signing and the per-machine key."""
