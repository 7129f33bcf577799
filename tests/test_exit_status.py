"""A session that ends at once still ends cleanly: exit status 0, only protocol on stdout.

The listing, the tools and the runtime are prepared in a background thread that
starts on `notifications/initialized`. A client that closes stdin right after
sending it must not make the interpreter shut down under that thread (CPython then
aborts with status 134, as about half of such sessions did before the fix, when
the preparation still started before `initialize`). The first two spawns below
race the preparation; the last closes stdin before anything, when no preparation
starts at all. Since the preparation moved after `initialize` the race has not
been seen even with `join_background` removed (15 of 15 sessions exited 0), so
these spawns are a guard on the exit status and stdout, not a reproduction.
"""

from __future__ import annotations

import json

from tests.installed import InstalledServer
from tests.stdio_peer import as_lines, opening

HANDSHAKE = as_lines(*opening("exit-status")).decode()


def test_closing_stdin_at_once_exits_zero_every_time(installed_server: InstalledServer) -> None:
    sessions = [HANDSHAKE, HANDSHAKE, ""]
    statuses = [installed_server.command(input=given, timeout=30) for given in sessions]
    assert [s.returncode for s in statuses] == [0] * len(sessions), [
        s.stderr[-300:] for s in statuses
    ]
    for given, status in zip(sessions, statuses, strict=True):
        answers = [json.loads(line) for line in status.stdout.splitlines()]
        assert [answer.get("id") for answer in answers] == ([1] if given else [])
        assert all(answer["jsonrpc"] == "2.0" and "result" in answer for answer in answers)
