"""Privacy, end to end: at the most verbose log level, nothing the user asked or read
reaches the server's logs.

The installed `pwc-mcp-local` runs with `--log-level debug` and a log file, and is
sent queries, paper references, entity names, out-of-bounds arguments, an unknown
tool name and malformed prompt requests that all carry a marker, reads paper text,
and meets upstream failures whose bodies carry another marker. Neither stderr nor
the log file may contain any of them, nor the per-machine cursor key; both must
still contain the diagnostics that are allowed (exception class names), so the
test cannot pass on silent logs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.fake_catalog import BIG_MARKDOWN_ARXIV_ID, FakeCatalog, big_document
from tests.installed import InstalledServer

pytestmark = pytest.mark.e2e

MARKER = "quokkamarker"
UPSTREAM_SECRET = "upstream-wombat-secret"


def test_logs_never_carry_requests_bodies_or_the_key(
    tmp_path: Path, installed_server: InstalledServer, fake_catalog: FakeCatalog
) -> None:
    fake = fake_catalog
    log_file = tmp_path / "log-file.log"
    installed_server.set(PWC_MCP_LOCAL_LOG_FILE=str(log_file))
    body_sample = big_document()[2000:2200]
    texts: list[str] = []
    by_tool: dict[str, str] = {}

    async def session_script() -> None:
        # One session; its stderr goes to installed_server.log.
        async with installed_server.session("--log-level", "debug") as session:

            async def call(tool: str, **arguments: Any) -> None:
                result = await session.call_tool(tool, arguments)
                texts.extend(b.text for b in result.content if b.type == "text")
                texts.append(str((result.structured_content or {}).get("markdown", "")))
                by_tool[tool] = texts[-2]

            await call("search_papers", query=f"{MARKER} search words")
            await call("get_paper_info", paper=f"{MARKER} Paper Title That Does Not Exist")
            await call("get_task", task=f"{MARKER}-task")
            await call("get_benchmark", benchmark="COCO", sort_metric=f"{MARKER}Metric")
            await call("list_papers", authors=[f"{MARKER} Author"])
            await call("search_papers", query=MARKER * 60)  # over 500 characters
            await call(f"{MARKER}_tool")
            await call("read_paper", paper=BIG_MARKDOWN_ARXIV_ID)
            await call("read_paper", paper=BIG_MARKDOWN_ARXIV_ID, cursor=f"{MARKER}.x")
            fake.faults.error(500, detail=UPSTREAM_SECRET, prefix="methods/")
            await call("get_method", method="transformer")
            fake.faults.error(400, detail=UPSTREAM_SECRET, prefix="conferences/")
            await call("get_conference", conference="CVPR 2025")
            fake.faults.invalid_json(prefix="organizations/")
            await call("list_organizations")
            # Bad prompt requests: the SDK alone logs a traceback quoting them.
            for name, arguments in (
                ("find_papers", {"topic": MARKER, f"{MARKER}_arg": MARKER}),
                (f"{MARKER}_prompt", {"topic": MARKER}),
            ):
                with pytest.raises(MCPError) as refused:
                    await session.get_prompt(name, arguments)
                texts.append(refused.value.error.message)

    anyio.run(session_script)

    key_file = tmp_path / "config" / "pwc-mcp-local" / "cursor-key"
    secret = key_file.read_text(encoding="utf-8").strip()
    stderr = installed_server.log.read_text(encoding="utf-8")
    logged = log_file.read_text(encoding="utf-8")

    # The calls really ran: the markers reached the tool results, the body was read.
    assert any(MARKER in text for text in texts)
    assert any(body_sample in text for text in texts)
    # A 5xx body never reaches the caller; a 400 detail does, sanitised (tools.md §4.4).
    assert by_tool["get_method"].startswith("Error executing tool get_method: upstream_error:")
    assert UPSTREAM_SECRET not in by_tool["get_method"]
    assert UPSTREAM_SECRET in by_tool["get_conference"]
    # Allowed diagnostics were written, to both places.
    for output in (stderr, logged):
        assert "HTTPStatusError" in output
        assert "NotJSON" in output  # an InvalidResponse: the body was not JSON
    # Nothing the user sent or read, no upstream body, no key.
    for output in (stderr, logged):
        assert MARKER not in output
        assert UPSTREAM_SECRET not in output
        assert body_sample not in output
        assert secret not in output
