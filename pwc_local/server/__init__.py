"""The MCP layer: tool, resource and prompt declarations over the catalog layer."""
