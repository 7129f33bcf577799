"""The installed `pwc-mcp-local`, reached the ways an MCP client and a user reach it.

End-to-end tests run the console script of the environment running the tests
(`$(dirname sys.executable)/pwc-mcp-local`, so `pip install -e '.[test]'` is what
is tested), each with a private home: its own config directory (cursor key), cache
directory, data directory (the reading library) and log, under one test directory.
Every process started from one `InstalledServer` shares that home, so a second
process sees the cache, key and library the first one left, as on a real machine.

Most tests get one from the `installed_server` fixture (tests/conftest.py):

    async with installed_server.session() as session:      # the SDK's client session
        result = await call(session, "get_task", task="ocr")
    done = installed_server.command("cache", "clear")       # the CLI, same home
    with installed_server.peer() as peer:                    # raw JSON-RPC lines
        peer.initialize()

`LiveSession` and `module_session` share one spawned server among a module's
synchronous tests, for speed; `params()` gives the `StdioServerParameters` for a
test that drives its own client (several sessions at once, `mcp.Client`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, PromptReference, ResourceTemplateReference

from tests.fake_catalog import FakeCatalog
from tests.stdio_peer import StdioPeer

EXECUTABLE = Path(sys.executable).parent / "pwc-mcp-local"
NOWHERE = "http://127.0.0.1:9/api/v1"  # nothing listens: for tests that call no tool


class InstalledServer:
    """How to start the installed server (or its CLI) with a private home under `root`.

    `api_url` is the catalog it talks to; `settings` are further environment
    variables (`PWC_MCP_LOCAL_TIMEOUT="3"` ...), also given later with `set()`.
    `env` may be edited before spawning. Each server's stderr goes to `log`,
    appended across processes.
    """

    def __init__(self, root: Path, api_url: str = NOWHERE, **settings: str) -> None:
        assert EXECUTABLE.exists(), "install the project first: pip install -e '.[test]'"
        self.root = root
        self.log = root / "server.log"
        self.config_dir = root / "config" / "pwc-mcp-local"
        self.cache_dir = root / "cache"
        self.library_dir = root / "data" / "pwc-mcp-local"
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("PWC_")}
        self.env.update(
            {
                "HOME": str(root / "home"),
                "XDG_CONFIG_HOME": str(root / "config"),
                "XDG_CACHE_HOME": str(root / "xdg-cache"),
                "XDG_DATA_HOME": str(root / "data"),  # the reading library
                "PWC_MCP_LOCAL_CACHE_DIR": str(self.cache_dir),
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

    def set(self, **settings: str) -> InstalledServer:
        """Environment variables for every process started from now on; returns self."""
        self.env.update(settings)
        return self

    def params(self, *args: str) -> StdioServerParameters:
        """The command, arguments and environment of one server process."""
        return StdioServerParameters(command=str(EXECUTABLE), args=list(args), env=dict(self.env))

    @asynccontextmanager
    async def session(self, *args: str) -> AsyncIterator[ClientSession]:
        """One server process and an initialized SDK client session with it."""
        self.root.mkdir(parents=True, exist_ok=True)
        with self.log.open("a", encoding="utf-8") as errlog:
            async with (
                stdio_client(self.params(*args), errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                yield session

    def peer(self, *args: str) -> StdioPeer:
        """One server process driven by raw JSON-RPC lines (not yet initialized).

        Use it as a context manager: leaving kills the process if it still runs.
        """
        return StdioPeer([str(EXECUTABLE), *args], env=self.env)

    def command(
        self, *args: str, input: str | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """`pwc-mcp-local ARGS...` run to its end in this home; stdin is `input` or empty."""
        return run_command(self.env, *args, input=input, timeout=timeout)


def run_command(
    env: dict[str, str], *args: str, input: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`pwc-mcp-local ARGS...` with environment `env`, its output as text."""
    return subprocess.run(
        [str(EXECUTABLE), *args],
        env=env,
        input=input if input is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# -- calling tools on a ClientSession ----------------------------------------------------


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The structured result of a successful call (fails the test on a tool error).

    The text blocks, joined, are under `"_text"`.
    """
    result = await session.call_tool(tool, arguments)
    texts = [block.text for block in result.content if block.type == "text"]
    assert not result.is_error, texts
    structured = dict(result.structured_content or {})
    structured["_text"] = "\n".join(texts)
    return structured


async def error_of(session: ClientSession, tool: str, **arguments: Any) -> str:
    """The text of a call that must fail."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    return "\n".join(block.text for block in result.content if block.type == "text")


async def read_through(session: ClientSession, paper: str) -> list[dict[str, Any]]:
    """Every chunk of `paper`, from the start, following the cursors."""
    chunks = [await call(session, "read_paper", paper=paper)]
    while chunks[-1].get("next_cursor"):
        chunks.append(
            await call(session, "read_paper", paper=paper, cursor=chunks[-1]["next_cursor"])
        )
        assert len(chunks) < 50
    return chunks


def rows(found: Any) -> list[dict[str, Any]]:
    """A result's list of like things, one dict per row, in either profile.

    The default profile sends a table (its `columns` once, then `rows`, a column empty
    in every row left out); the hosted profile a list of objects.
    """
    if isinstance(found, dict) and set(found) == {"columns", "rows"}:
        return [dict(zip(found["columns"], row, strict=True)) for row in found["rows"]]
    return list(found or [])


def looks(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The default profile's `whats_new` (or `whats-new --json`) as one dict per watch.

    The record sends a `watches` table and a `changes` table whose `watch` column is
    the watch's row number (from 1); a column empty in every row is left out, and so is
    `target` where it is the name. Here each watch's row has every column (`target`
    its name where left out) and `changes`, its change rows as dicts.
    """
    watch_columns = ("kind", "target", "name", "previous_look", "status", "reason", "more")
    reports = [{**dict.fromkeys(watch_columns), **row} for row in rows(answer.get("watches"))]
    for report in reports:
        report["target"] = report["target"] or report["name"]
        report["more"] = report["more"] or 0
        report["changes"] = []
    for change in rows(answer.get("changes")):
        reports[change.pop("watch") - 1]["changes"].append(change)
    return reports


def stale(structured: dict[str, Any]) -> str | None:
    """When the stale cache entries a result came from were saved, or None (fresh).

    The default profile says it in `stale`; the hosted one in `cache`.
    """
    if "stale" in structured:
        return str(structured["stale"])
    cache = structured.get("cache")
    return str(cache["cached_at"]) if cache and cache.get("stale") else None


def facts(structured: dict[str, Any]) -> dict[str, Any]:
    """A structured result without its freshness label or text: what it says of the catalog."""
    return {k: v for k, v in structured.items() if k not in ("stale", "cache", "_text")}


# -- one server shared by a module's synchronous tests -------------------------------------


class LiveSession:
    """A live stdio session with the spawned server, usable from synchronous tests."""

    def __init__(
        self, portal: BlockingPortal, client: Client, fake: FakeCatalog, env: dict[str, str]
    ) -> None:
        self.portal = portal
        self.client = client
        self.fake = fake
        self.env = env

    def call(self, name: str, **arguments: Any) -> CallToolResult:
        return self.portal.call(self.client.call_tool, name, arguments)

    def error(self, name: str, **arguments: Any) -> str:
        """Call a tool that must fail; the message after the SDK's prefix."""
        return self.message(name, self.call(name, **arguments))

    @staticmethod
    def message(name: str, result: CallToolResult) -> str:
        """The error text of a failed call of tool `name`, after the SDK's prefix."""
        assert result.is_error
        prefix = f"Error executing tool {name}: "
        text = result.content[0].text
        assert text.startswith(prefix), text
        return text[len(prefix) :]

    def complete(
        self, ref: PromptReference | ResourceTemplateReference, name: str, value: str
    ) -> list[str]:
        result = self.portal.call(self.client.complete, ref, {"name": name, "value": value})
        return result.completion.values

    def read(self, uri: str) -> str:
        result = self.portal.call(self.client.read_resource, uri)
        assert len(result.contents) == 1
        return result.contents[0].text

    def command(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """`pwc-mcp-local ARGS...` in the live server's home (`InstalledServer.command`)."""
        return run_command(self.env, *args, timeout=timeout)

    def params(self, **settings: str) -> StdioServerParameters:
        """Another server process in the same home, with `settings` added."""
        return StdioServerParameters(command=str(EXECUTABLE), env={**self.env, **settings})


@contextmanager
def serve_module(root: Path, session_class: type[LiveSession], **settings: str) -> Iterator[Any]:
    """A fresh fake catalog, the installed server against it, and a `session_class` session.

    One server serves many tests: a refused connection or timeout provoked by one test
    does not hold the next ones off the catalog, since the first answer after it ends
    the remembered outage.
    """
    fake = FakeCatalog().start()
    server = InstalledServer(root, fake.api_url, **settings)
    try:
        with start_blocking_portal() as portal:
            client = Client(server.params(), mode="legacy", cache=None)
            with portal.wrap_async_context_manager(client) as live:
                yield session_class(portal, live, fake, server.env)
    finally:
        fake.stop()


def module_session(session_class: type[LiveSession], home: str, **settings: str) -> tuple[Any, Any]:
    """The fixtures `session` and `fresh_fake` for a module that shares one server.

    `session` (module-scoped) is a `session_class` session from `serve_module`, the
    server's home in a fresh directory named after `home`, `settings` in its
    environment. `fresh_fake` (autouse) resets the fake (data, faults, request log)
    before and after every test, so none sees what another left. pytest finds
    fixtures among a module's names, so the module binds both:

        session, fresh_fake = module_session(Session, "reading", PWC_MCP_LOCAL_TIMEOUT="3")
    """
    import pytest  # here: benchmarks/clients.py imports this module without pytest

    @pytest.fixture(scope="module", name="session")
    def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveSession]:
        with serve_module(tmp_path_factory.mktemp(home), session_class, **settings) as live:
            yield live

    @pytest.fixture(autouse=True, name="fresh_fake")
    def fresh_fake(session: LiveSession) -> Iterator[None]:
        session.fake.reset()
        yield
        session.fake.reset()

    return session, fresh_fake
