"""The installed `pwc-mcp-local`, spawned over stdio the way an MCP client does it.

End-to-end tests talk to the console script of the environment running the tests
(`$(dirname sys.executable)/pwc-mcp-local`, so `pip install -e '.[test]'` is what
is tested), each server with a private home: its own config directory (cursor
key), cache directory and log, under one test directory. Every process started
from one `InstalledServer` shares that home, so a second process sees the cache
and key the first one left, as on a real machine.

    async with installed_server.session() as session:      # the conftest fixture
        result = await session.call_tool("get_task", {"task": "ocr"})

`params()` gives the `StdioServerParameters` for tests that drive their own client
(`mcp.Client`, or several sessions at once). Tests using this are `e2e`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EXECUTABLE = Path(sys.executable).parent / "pwc-mcp-local"
NOWHERE = "http://127.0.0.1:9/api/v1"  # nothing listens: for tests that call no tool


class InstalledServer:
    """How to spawn the installed server with a private home under `root`.

    `api_url` is the catalog it talks to; `settings` are further environment
    variables (`PWC_MCP_LOCAL_TIMEOUT="3"` ...). `env` may be edited before spawning.
    The server's stderr goes to `log`, appended across processes.
    """

    def __init__(self, root: Path, api_url: str = NOWHERE, **settings: str) -> None:
        assert EXECUTABLE.exists(), "install the project first: pip install -e '.[test]'"
        self.root = root
        self.log = root / "server.log"
        self.config_dir = root / "config" / "pwc-mcp-local"
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("PWC_")}
        self.env.update(
            {
                "HOME": str(root / "home"),
                "XDG_CONFIG_HOME": str(root / "config"),
                "XDG_CACHE_HOME": str(root / "xdg-cache"),
                "XDG_DATA_HOME": str(root / "data"),  # the reading library
                "PWC_MCP_LOCAL_CACHE_DIR": str(root / "cache"),
                "PWC_API_URL": api_url,
                **settings,
            }
        )

    @property
    def api_url(self) -> str:
        """The catalog the next spawned server talks to (settable)."""
        return self.env["PWC_API_URL"]

    @api_url.setter
    def api_url(self, url: str) -> None:
        self.env["PWC_API_URL"] = url

    def params(self, *args: str) -> StdioServerParameters:
        """The command, arguments and environment of one server process."""
        return StdioServerParameters(command=str(EXECUTABLE), args=list(args), env=dict(self.env))

    @asynccontextmanager
    async def session(self, *args: str) -> AsyncIterator[ClientSession]:
        """One server process and an initialized client session with it."""
        self.root.mkdir(parents=True, exist_ok=True)
        with self.log.open("a", encoding="utf-8") as errlog:
            async with (
                stdio_client(self.params(*args), errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                yield session
