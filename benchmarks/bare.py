"""The floor every figure is measured against: a bare `MCPServer` from the SDK.

`echo` is the one tool of a minimal server; `chunk` hands out the same text every
call, the bare cost of moving a `read_paper` chunk through the SDK and stdio:
`--chunk-file PATH` names the text (`run.py` passes the very 64 KiB chunk its
figure reads), else it is 64 KiB of "x". The text matters: a chunk of the fake's
multilingual paper is 64 KiB of UTF-8 but 40k characters, 16k of them non-ASCII,
which the JSON encoding escapes, and that costs the bare server about 1.5x what 64
KiB of "x" does. Run as a script it serves stdio with the SDK's own transport, or
with `--our-stdio` through `pwc_local.server.stdio` (to tell the transport's share
of a figure from the tools').
"""

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

CHUNK_BYTES = 64 * 1024
TEXT = (
    Path(sys.argv[sys.argv.index("--chunk-file") + 1]).read_text(encoding="utf-8")
    if "--chunk-file" in sys.argv
    else "x" * CHUNK_BYTES
)

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
