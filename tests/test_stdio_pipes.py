"""How the installed server reads stdin and writes stdout, by what they are.

On POSIX, pipes and sockets are waited on by the event loop itself (no thread per
message; `stdio._ClaimedDescriptor.pollable`). Everything else keeps a thread
blocking on it: a file given as stdin, a stdout that is also stderr (`2>&1`: a
non-blocking pipe would lose log lines when full). Each way must serve the same
session, and a pipe made non-blocking is handed back blocking.

These tests start the server themselves: their subject is the descriptors (a file,
stdout shared with stderr, a pipe this process also holds), which the fixtures'
pipes are not. The home is `InstalledServer`'s, its catalog a port nothing listens on.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from tests.installed import EXECUTABLE, InstalledServer
from tests.stdio_peer import as_lines, opening

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX descriptors"),
]

SESSION = as_lines(
    *opening("pipes"),
    {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
)


def answered_ids(output: bytes) -> set[int]:
    """Ids of the JSON-RPC results in `output`; other lines (logs) are skipped."""
    ids = set()
    for line in output.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and "result" in message:
            ids.add(message["id"])
    return ids


def test_a_file_as_stdin_and_stdout(tmp_path: Path) -> None:
    requests, answers = tmp_path / "requests.jsonl", tmp_path / "answers.jsonl"
    requests.write_bytes(SESSION)
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        done = subprocess.run(
            [str(EXECUTABLE)],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=InstalledServer(tmp_path).env,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert answered_ids(answers.read_bytes()) == {1, 2, 3}


def test_stdout_that_is_also_stderr(tmp_path: Path) -> None:
    # Nothing listens at the catalog's port: the call fails and the server logs a warning.
    # stdin stays open until the call is answered: once it closes, a request still in
    # flight has 1.5 s (README), which a loaded machine may spend building the runtime.
    call = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": "get_paper_info", "arguments": {"paper": "1706.03762"}},
    }
    server = subprocess.Popen(
        [str(EXECUTABLE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=InstalledServer(tmp_path).env,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(SESSION + as_lines(call))
        server.stdin.flush()
        output = _read_until_answered(server.stdout, 4, deadline=time.monotonic() + 60)
        rest, _ = server.communicate(timeout=60)  # closes stdin: the session ends
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    output += rest
    assert server.returncode == 0
    assert answered_ids(output) == {1, 2, 3, 4}
    # The warning arrived too, as a whole line of its own between the answers.
    warnings = [line for line in output.splitlines() if b" WARNING " in line]
    assert len(warnings) == 1 and b"connection was refused" in warnings[0]


def _read_until_answered(stream: IO[bytes], wanted: int, *, deadline: float) -> bytes:
    """Lines of `stream` up to and including the answer to request `wanted`; fails when
    `deadline` (monotonic) passes or the stream ends first."""
    fd = stream.fileno()
    output = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while wanted not in answered_ids(output):
            left = deadline - time.monotonic()
            assert left > 0 and selector.select(left), f"no answer to {wanted}: {output!r}"
            piece = os.read(fd, 65536)
            assert piece, f"the server ended before answering {wanted}: {output!r}"
            output += piece
    return output


def test_a_pipe_made_non_blocking_is_handed_back_blocking(tmp_path: Path) -> None:
    # This process keeps the read end open: it shares the child's open pipe, so it
    # sees the flag the child leaves on it.
    read_end, write_end = os.pipe()
    try:
        child = subprocess.Popen(
            [str(EXECUTABLE)],
            stdin=read_end,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=InstalledServer(tmp_path).env,
        )
        os.write(write_end, SESSION)
        os.close(write_end)
        write_end = -1
        stdout, stderr = child.communicate(timeout=60)
        assert child.returncode == 0, stderr
        assert answered_ids(stdout) == {1, 2, 3}
        assert os.get_blocking(read_end)
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
