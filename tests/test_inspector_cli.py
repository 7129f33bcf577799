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
from pathlib import Path

import pytest

from tests.fake_catalog import FakeCatalog
from tests.installed import EXECUTABLE, InstalledServer

CLI = str(EXECUTABLE)
INSPECTOR = os.environ.get("PWC_TEST_INSPECTOR") or shutil.which("mcp-inspector")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(INSPECTOR is None, reason="the MCP Inspector CLI is not installed"),
]


def test_inspector_tool_arg_paper_gets_the_paper(fake_catalog: FakeCatalog, tmp_path: Path) -> None:
    assert INSPECTOR is not None
    server = InstalledServer(tmp_path, api_url=fake_catalog.api_url)
    result = subprocess.run(
        [
            INSPECTOR,
            "--cli",
            CLI,
            *(
                f
                for key in ("PWC_API_URL", "PWC_MCP_LOCAL_CACHE_DIR", "XDG_CONFIG_HOME")
                for f in ("-e", f"{key}={server.env[key]}")
            ),
            "--method",
            "tools/call",
            "--tool-name",
            "get_paper_info",
            "--tool-arg",
            "paper=1706.03762",
        ],
        capture_output=True,
        text=True,
        env=server.env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer.get("isError") is not True, answer
    assert answer["structuredContent"]["paper"] == "1706.03762"  # the default profile's record
