"""HTTP access to the Papers With Code catalog and the research queries built on it.

Nothing in this package knows about MCP; it can be used and tested on its own.
"""
