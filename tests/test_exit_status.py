"""A session that ends at once still ends cleanly: exit status 0, nothing on stdout.

Tool listing and the runtime are prepared in background threads as serving starts;
a client that closes stdin before they finish must not make the interpreter shut
down under them (CPython then aborts with status 134). Each spawn below races the
preparation; before the fix about half of them aborted.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.installed import EXECUTABLE, InstalledServer

CLI = str(EXECUTABLE)

pytestmark = pytest.mark.e2e


def test_closing_stdin_at_once_exits_zero_every_time(tmp_path: Path) -> None:
    env = InstalledServer(tmp_path).env
    statuses = [
        subprocess.run([CLI], input=b"", capture_output=True, env=env, timeout=30) for _ in range(6)
    ]
    assert [s.returncode for s in statuses] == [0] * 6, [s.stderr[-300:] for s in statuses]
    assert all(s.stdout == b"" for s in statuses)
