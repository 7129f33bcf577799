"""A tiny MCP server served by `pwc_local.server.stdio.run`, for the protocol tests.

Run as a script (`python tests/stdio_tiny_server.py [--drain-timeout S]`). Its tools
exist to poke at the transport, not to be useful:

* `echo(text)` answers with `text`.
* `hold(port)` connects to 127.0.0.1:`port`, reports progress 0 ("started"), then
  waits until the test sends a byte (or closes) on that connection. Tests use it to
  keep a request in flight for exactly as long as they need.
* `noisy()` writes to stdout every way a careless tool could (print, sys.stdout,
  os.write on fd 1, a child process printing and reading stdin) and answers with what
  the child read from its stdin.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer

from pwc_local.logs import configure_logging
from pwc_local.server import stdio

NOISE = "NOISE-FROM-A-TOOL"

server = MCPServer("stdio-tiny", instructions="Test server for the stdio transport.")


@server.tool()
def echo(text: str) -> str:
    """Answer with the text given."""
    return text


@server.tool()
async def hold(port: int, ctx: Context) -> str:
    """Report that the call started, then wait for the test's word on a loopback socket."""
    async with await anyio.connect_tcp("127.0.0.1", port) as release:
        await ctx.report_progress(0, message="started")
        with contextlib.suppress(anyio.EndOfStream):
            await release.receive(1)
    return "released"


@server.tool()
def noisy() -> str:
    """Write to stdout in every careless way; answer with what a child read from stdin."""
    print(NOISE, "print")
    sys.stdout.write(f"{NOISE} sys.stdout\n")
    sys.stdout.flush()
    os.write(1, f"{NOISE} fd1\n".encode())
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; print('{NOISE} child'); print(repr(sys.stdin.read()))",
        ],
        capture_output=False,
        stdout=None,
        check=True,
    )
    assert child.returncode == 0
    grandchild = subprocess.run(
        [sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read())"],
        stdout=subprocess.PIPE,
        check=True,
    )
    return f"child read {grandchild.stdout!r} from stdin"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--drain-timeout", type=float, default=stdio.DEFAULT_DRAIN_TIMEOUT)
    args = parser.parse_args()
    configure_logging("info")
    return stdio.run(server, drain_timeout=args.drain_timeout)


if __name__ == "__main__":
    sys.exit(main())
