"""`cache clear` also forgets what was only read; saved papers stay (end to end).

What a session read is cache: clearing the cache must not leave the passages of
those papers searchable in the library. A saved paper is the user's to remove.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.installed import InstalledServer, call, read_through
from tests.test_library_e2e import PASSAGES, SMALL

pytestmark = pytest.mark.e2e

SAVED = "1911.02116"


def test_cache_clear_forgets_papers_only_read(installed_server: InstalledServer) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")

    async def search(session: Any, query: str) -> list[str]:
        found = await call(session, "search_library", query=query)
        return [hit["paper"] for hit in found["results"]]

    async def read_one_save_one() -> None:
        async with home.session() as session:
            await read_through(session, SMALL)  # read, not saved
            await call(session, "save_papers", papers=[SAVED])
            assert SMALL in await search(session, PASSAGES[SMALL])
            assert SAVED in await search(session, PASSAGES[SAVED])

    async def search_after_clear() -> None:
        async with home.session() as session:  # a new process: what the library file holds
            assert SMALL not in await search(session, PASSAGES[SMALL])
            assert SAVED in await search(session, PASSAGES[SAVED])

    anyio.run(read_one_save_one)
    cleared = home.command("cache", "clear", "--json")
    assert cleared.returncode == 0, cleared.stderr
    assert json.loads(cleared.stdout)["read_papers_forgotten"] == 1
    anyio.run(search_after_clear)
    # Saying it in words, too; nothing left to forget the second time.
    again = home.command("cache", "clear")
    assert again.returncode == 0 and "forgot" not in again.stdout


def test_cache_clear_creates_no_library(tmp_path: Path, installed_server: InstalledServer) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    cleared = home.command("cache", "clear", "--json")
    assert cleared.returncode == 0, cleared.stderr
    assert json.loads(cleared.stdout)["read_papers_forgotten"] == 0
    assert not list(tmp_path.rglob("library.sqlite3"))


def test_a_running_server_indexes_again_what_was_forgotten(
    installed_server: InstalledServer,
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")

    async def scenario() -> None:
        async with home.session() as session:
            await read_through(session, SMALL)
            cleared = home.command("cache", "clear", "--json")
            assert json.loads(cleared.stdout)["read_papers_forgotten"] == 1
            gone = await call(session, "search_library", query=PASSAGES[SMALL])
            assert SMALL not in [hit["paper"] for hit in gone["results"]]
            # The same server reads it again: the library must learn it again.
            await read_through(session, SMALL)
            found = await call(session, "search_library", query=PASSAGES[SMALL])
            assert SMALL in [hit["paper"] for hit in found["results"]]

    anyio.run(scenario)
