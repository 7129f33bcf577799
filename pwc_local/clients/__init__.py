"""Registration of pwc-mcp-local in MCP client configuration files."""
