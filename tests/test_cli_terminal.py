"""Started by hand on a terminal, the server says what it is instead of sitting silent."""

from __future__ import annotations

import os
import pty
import select
import subprocess
from pathlib import Path

import pytest

from pwc_local.server.launch import TERMINAL_NOTICE
from tests.installed import EXECUTABLE, InstalledServer

CLI = str(EXECUTABLE)

pytestmark = pytest.mark.e2e


def _isolated_env(tmp_path: Path) -> dict[str, str]:
    return InstalledServer(tmp_path).env


def _read_line(fd: int, deadline_s: float = 10.0) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], deadline_s)
        assert ready, f"no complete stderr line within {deadline_s} s: {data!r}"
        piece = os.read(fd, 4096)
        if not piece:
            break
        data += piece
    return data


def test_on_a_terminal_it_prints_one_line_on_stderr_and_nothing_on_stdout(tmp_path: Path) -> None:
    # Started by hand: stdin and stderr are a terminal, which the fixtures' pipes are not.
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [CLI],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_isolated_env(tmp_path),
    )
    os.close(follower)
    try:
        assert process.stderr is not None and process.stdout is not None
        line = _read_line(process.stderr.fileno())
        assert line.decode().strip() == TERMINAL_NOTICE
        assert "call" in TERMINAL_NOTICE and "doctor" in TERMINAL_NOTICE
    finally:
        os.write(leader, b"\x04")  # Ctrl-D: end of input on the terminal
        os.close(leader)
        out, _ = process.communicate(timeout=20)
    assert out == b""


def test_on_a_pipe_it_prints_no_notice(tmp_path: Path) -> None:
    result = subprocess.run(
        [CLI], input=b"", capture_output=True, env=_isolated_env(tmp_path), timeout=20
    )
    assert result.returncode == 0
    assert TERMINAL_NOTICE.encode() not in result.stderr
    assert result.stdout == b""
