"""pwc-mcp-local: a local stdio MCP server for the Papers With Code catalog."""

__version__ = "0.1.0"
