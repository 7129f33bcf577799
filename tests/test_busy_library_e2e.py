"""End to end: the library while another process writes to it (issue 18 item 2).

A second process holds an exclusive transaction on `library.sqlite3` (a long
`library add`, say). Meanwhile the installed server's library reads answer
(`search_library`, `list_library`, reading a saved paper), calls that would index
what they read skip that instead of waiting, and `save_papers` waits a
bounded time, then says the library is busy and to try again, having saved nothing;
once the lock is gone the same save works.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from pwc_local.store.library import SAVE_WAIT
from tests.installed import InstalledServer, call
from tests.test_cache_resilience import lock_held_by_another_process

pytestmark = pytest.mark.e2e

SAVED = "1706.03762"
NEW = "1512.03385"
MORE = ["1810.04805", "1506.01497"]
SLACK = 2.0


def test_library_reads_answer_and_a_save_says_busy_while_another_process_writes(
    tmp_path: Path, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    library_dir = tmp_path / "data" / "pwc-mcp-local"

    async def timed(session: Any, tool: str, **arguments: Any) -> tuple[Any, float]:
        started = time.monotonic()
        result = await session.call_tool(tool, arguments)
        return result, time.monotonic() - started

    async def scenario() -> None:
        async with home.session() as session:
            await call(session, "save_papers", papers=[SAVED])
            before = await call(session, "list_library")
            with contextlib.ExitStack() as held:
                held.enter_context(lock_held_by_another_process(library_dir, "library.sqlite3"))
                for tool, arguments in [
                    ("search_library", {"query": "attention"}),
                    ("list_library", {}),
                    ("read_paper", {"paper": SAVED}),
                    # Not saved: what they would teach the library is skipped, not waited for.
                    ("read_paper", {"paper": "2010.11929"}),
                    ("get_paper_info", {"paper": "2006.16236"}),
                ]:
                    result, took = await timed(session, tool, **arguments)
                    assert not result.is_error, (tool, result.content)
                    assert took < 3, (tool, took)
                # Three papers: the first waits SAVE_WAIT, the others give up at once.
                result, took = await timed(session, "save_papers", papers=[NEW, *MORE])
                rows = (result.structured_content or {})["results"]
                errors = [row["error"] or "" for row in rows]
                assert all(e.startswith("library_busy:") and "try again" in e for e in errors)
                assert len(errors) == 3 and took < SAVE_WAIT + SLACK, (errors, took)
                held.close()
            after = await call(session, "list_library")
            assert after["count"] == before["count"]  # nothing half-saved
            saved = await call(session, "save_papers", papers=[NEW])
            assert "library_busy" not in saved["_text"]
            assert (await call(session, "list_library"))["count"] == before["count"] + 1

    anyio.run(scenario)
