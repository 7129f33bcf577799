"""Issue 37 end to end: `results_table` and `check_claim` over MCP, `table` and `check`
on the command line (the BibTeX file, the verdict as exit status), and the hosted
profile without them. What the queries decide: tests/test_results_table.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.bibtex_check import entries
from tests.fake_catalog import FakeCatalog, HistoryBoards
from tests.installed import InstalledServer, call

pytestmark = pytest.mark.e2e


@pytest.fixture
def dated(fake_catalog: FakeCatalog) -> FakeCatalog:
    fake_catalog.apply(HistoryBoards())
    return fake_catalog


def test_both_tools_over_mcp_and_not_in_the_hosted_profile(
    dated: FakeCatalog, installed_server: InstalledServer
) -> None:
    seen: dict[str, Any] = {}

    async def script() -> None:
        async with installed_server.session() as session:
            seen["table"] = await call(
                session, "results_table", benchmark="Settings Mix", format="latex"
            )
            seen["claim"] = await call(
                session, "check_claim", benchmark="Vision History", paper="1605.99005"
            )
            seen["bad"] = await session.call_tool(
                "results_table", {"benchmark": "Settings Mix", "settings": "nope"}
            )
        installed_server.set(PWC_MCP_LOCAL_TOOLS="hosted")
        async with installed_server.session() as session:
            seen["hosted"] = {tool.name for tool in (await session.list_tools()).tools}

    anyio.run(script)
    found = seen["table"]
    assert found["head"]["settings"] == "no extra data, test split"
    cites = re.findall(r"\\cite\{([^}]*)\}", found["table"])
    assert cites == ["author2021later", "author2019mixed", "author2018mixed"]
    assert {entry["ID"] for entry in entries(found["bib"])} == set(cites)
    assert "```latex\n\\begin{table}" in found["_text"]
    claim = seen["claim"]
    assert claim["verdict"] == "contradicted" and "OpenSmall" in claim["reason"]
    bad = seen["bad"]
    assert bad.is_error and "invalid_argument: settings: no group" in bad.content[0].text
    assert not {"results_table", "check_claim"} & seen["hosted"]


def test_table_writes_the_bib_and_never_replaces_it_without_force(
    dated: FakeCatalog, cli: Any, tmp_path: Path
) -> None:
    bib = tmp_path / "refs.bib"
    done = cli("table", "Settings", "Mix", "--format", "latex", "--bib", str(bib))
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("\\begin{table}[ht]")  # the table alone on stdout
    assert "no extra data, test split" in done.stderr
    written = bib.read_text()
    assert {entry["ID"] for entry in entries(written)} == set(
        re.findall(r"\\cite\{([^}]*)\}", done.stdout)
    )
    bib.write_text("% mine\n")
    refused = cli("table", "Settings", "Mix", "--bib", str(bib))
    assert refused.exit_code == 1 and "--force" in refused.stderr, refused.output
    assert bib.read_text() == "% mine\n"
    forced = cli("table", "Settings", "Mix", "--settings", "all", "--bib", str(bib), "--force")
    assert forced.exit_code == 0, forced.output
    assert "author2019mixeda" in bib.read_text()


def test_check_exits_with_its_verdict(dated: FakeCatalog, cli: Any) -> None:
    then = cli("check", "Vision History", "1605.99005", "--sota", "--as-of", "2016-12-31")
    assert then.exit_code == 0 and then.stdout.startswith("**supported**"), then.output
    today = cli("check", "Vision History", "1605.99005")
    assert today.exit_code == 3 and "OpenSmall" in today.stdout
    apart = cli("check", "Settings Mix", "1906.99033", "--beats", "2001.99034")
    assert apart.exit_code == 4
    absent = cli("check", "Settings Mix", "1706.03762", "--value", "1")
    assert absent.exit_code == 5
    both = cli("check", "Settings Mix", "1706.03762", "--value", "1", "--beats", "1901.99031")
    assert both.exit_code == 2
