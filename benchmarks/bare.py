"""The floor every figure is measured against: a bare `MCPServer` from the SDK.

`echo` is the one tool of a minimal server; `chunk` hands out the same 64 KiB of
text every call, the bare cost of moving a `read_paper` chunk through the SDK and
stdio. Run as a script it serves stdio with the SDK's own transport, or with
`--our-stdio` through `pwc_local.server.stdio` (to tell the transport's share of
a figure from the tools').
"""

import sys

from mcp.server.mcpserver import MCPServer

CHUNK_BYTES = 64 * 1024
TEXT = "x" * CHUNK_BYTES

server = MCPServer("bare")


@server.tool()
def echo(text: str) -> str:
    """Answer with the text given."""
    return text


@server.tool()
def chunk(index: int = 0) -> str:
    """64 KiB of text."""
    return TEXT


if __name__ == "__main__":
    if "--our-stdio" in sys.argv:
        from pwc_local.server import stdio

        sys.exit(stdio.run(server))
    server.run("stdio")
