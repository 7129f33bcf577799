"""Smoke-test an installed `pwc-mcp-local` (a pipx install of the built wheel, in CI).

    python -m tests.installed_smoke /path/to/pwc-mcp-local

Runs `--version`, then starts the program over stdio as an MCP client would, with
the loopback fake catalog as its catalog and a throwaway home directory, completes
the handshake, lists the tools, calls one (`get_paper_info` for 1706.03762) and reads
the leaderboard view (package data: the wheel must carry it).
Prints one line per step; exits 1 with the reason on the first failure. Not
collected by pytest: `.ci/run` calls it on the artefact it just built.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.fake_catalog import FakeCatalog


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    program = argv[0]
    version = subprocess.run(
        [program, "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    if version.returncode != 0 or not version.stdout.startswith("pwc-mcp-local, version "):
        print(f"FAIL --version: {version.stdout}{version.stderr}", file=sys.stderr)
        return 1
    print(f"ok   {version.stdout.strip()}")
    fake = FakeCatalog().start()
    try:
        with tempfile.TemporaryDirectory() as home:
            return anyio.run(_session, program, fake, Path(home))
    finally:
        fake.stop()


async def _session(program: str, fake: FakeCatalog, home: Path) -> int:
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "PWC_API_URL": fake.api_url,
    }
    params = StdioServerParameters(command=program, args=[], env=env)
    with (home / "stderr.log").open("w+") as errlog:
        try:
            with anyio.fail_after(60):
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    print(f"ok   handshake (protocol {client.protocol_version})")
                    tools = (await client.list_tools()).tools
                    print(f"ok   tools/list: {len(tools)} tools")
                    result = await client.call_tool("get_paper_info", {"paper": "1706.03762"})
                    view = (await client.read_resource("ui://pwc/leaderboard")).contents[0]
        except Exception as exc:
            errlog.seek(0)
            print(f"FAIL MCP session: {exc!r}\n{errlog.read()}", file=sys.stderr)
            return 1
    structured = result.structured_content or {}
    if result.is_error or "Attention" not in str(structured):
        print(f"FAIL get_paper_info: {result.content}", file=sys.stderr)
        return 1
    print("ok   tools/call get_paper_info 1706.03762 answered from the fake catalog")
    html = getattr(view, "text", "")
    if view.mime_type != "text/html;profile=mcp-app" or not html.startswith("<!doctype html>"):
        print(f"FAIL resources/read ui://pwc/leaderboard: {view.mime_type}", file=sys.stderr)
        return 1
    print(f"ok   resources/read ui://pwc/leaderboard: {len(html):,} characters of HTML")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
