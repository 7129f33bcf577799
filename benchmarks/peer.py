"""A raw JSON-RPC client over a child's stdio pipes, for timing servers from outside.

`Peer` spawns a server, writes request lines and reads answer lines, nothing in
between: the figures include the server's own stdio handling and nothing of an
SDK client. `cpu_seconds()` reads the child's user+system CPU time from /proc
(Linux), so CPU per call can be compared between servers.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import Any

INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "benchmark", "version": "0"},
}


class Peer:
    """One spawned server. `started` is the spawn time (perf_counter)."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(env),
        )
        self._ids = itertools.count(1)
        self.last_answer: dict[str, Any] = {}  # the `tools/list` answer of `handshake`

    def send(self, method: str, params: Mapping[str, Any] | None = None) -> int:
        """Write one request line; its id."""
        request_id = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        self._write(message)
        return request_id

    def notify(self, method: str) -> None:
        self._write({"jsonrpc": "2.0", "method": method})

    def receive(self) -> tuple[dict[str, Any], int]:
        """The next answer and its size in bytes (without the newline)."""
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed stdout")
        answer = json.loads(line)
        if "error" in answer:
            raise SystemExit(f"the server answered an error: {answer['error']}")
        return answer, len(line.rstrip(b"\n"))

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        self.send(method, params)
        return self.receive()[0]

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """A `tools/call` that must succeed; its result."""
        result = self.request("tools/call", {"name": tool, "arguments": arguments})["result"]
        if result.get("isError"):
            raise SystemExit(f"{tool} failed: {result['content'][0]['text']}")
        return result

    def handshake(self) -> tuple[float, float, int]:
        """initialize, initialized, tools/list: seconds from spawn to each answer, list bytes."""
        self.request("initialize", INITIALIZE)
        initialized = time.perf_counter() - self.started
        self.notify("notifications/initialized")
        self.send("tools/list")
        self.last_answer, size = self.receive()
        return initialized, time.perf_counter() - self.started, size

    def cpu_seconds(self) -> float:
        """User + system CPU the child has used so far (NaN off Linux)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.stdout.read()
        self.proc.wait(60)
        self.proc.stdout.close()

    def _write(self, message: Mapping[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
