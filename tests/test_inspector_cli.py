"""The MCP Inspector's CLI, a real client, calls our tools the way its users type them.

It sends `--tool-arg paper=1706.03762` as the JSON number 1706.03762. The test runs
where the Inspector is installed (`.ci/run` installs it from the npm registry and
points PWC_TEST_INSPECTOR at its `mcp-inspector` command) and is skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_catalog import FakeCatalog

CLI = str(Path(sys.executable).parent / "pwc-mcp-local")
INSPECTOR = os.environ.get("PWC_TEST_INSPECTOR") or shutil.which("mcp-inspector")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(INSPECTOR is None, reason="the MCP Inspector CLI is not installed"),
]


def test_inspector_tool_arg_paper_gets_the_paper(fake_catalog: FakeCatalog, tmp_path: Path) -> None:
    assert INSPECTOR is not None
    env = dict(os.environ)
    env.update(
        HOME=str(tmp_path),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
    )
    result = subprocess.run(
        [
            INSPECTOR,
            "--cli",
            CLI,
            "-e",
            f"PWC_API_URL={fake_catalog.api_url}",
            "-e",
            f"XDG_CACHE_HOME={tmp_path / 'cache'}",
            "--method",
            "tools/call",
            "--tool-name",
            "get_paper_info",
            "--tool-arg",
            "paper=1706.03762",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer.get("isError") is not True, answer
    assert answer["structuredContent"]["paper"]["arxiv_id"] == "1706.03762"
