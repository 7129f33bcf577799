"""Back-pressure through the installed server: a bounded number of requests in flight.

The stdio transport admits at most `MAX_IN_FLIGHT` (32) requests per lane that are not
yet written out; past it, requests wait (`MAX_WAITING`, 256), and past that it stops
reading stdin (`pwc_local/server/admission.py`). These tests drive the installed
`pwc-mcp-local` over real pipes against the loopback fake:

* a client that sends 500 requests with large answers and does not read stdout
  meanwhile makes the server pause (it says so on stderr), and the server's peak
  memory stays below `PEAK_BOUND_KB`. Measured on 2026-12-01: 85 MB with
  back-pressure; without it (the cap raised past the count) 232 MB for 500 queued
  answers and 391 MB for 1,000, so the bound sits between the two cases;
* requests past the cap wait and are answered once slots free, while a ping is
  answered at once;
* a cancellation frees its slot at once.

Synchronisation is by events only: the fake reports requests it holds
(`wait_until_blocked`), the server reports its pause on stderr.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from typing import IO, Any

import pytest

from pwc_local.server.admission import MAX_IN_FLIGHT
from tests.fake_catalog import BIG_MARKDOWN_ARXIV_ID, FakeCatalog
from tests.installed import EXECUTABLE, InstalledServer
from tests.stdio_peer import StdioPeer, opening
from tests.test_hostile_e2e import hostile_server, peak_rss_kb

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PAUSED = "not reading stdin until an answer is written"
REPLY_TIMEOUT = 60.0
PEAK_BOUND_KB = 160 * 1024  # see the module docstring: 85 MB bounded, 232 MB unbounded


def read_paper(request_id: int, cursor: str | None = None) -> dict[str, Any]:
    arguments: dict[str, Any] = {"paper": BIG_MARKDOWN_ARXIV_ID}
    if cursor is not None:
        arguments["cursor"] = cursor
    params = {"name": "read_paper", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


class SilentClient:
    """A client that writes requests from a thread and reads stdout only when told.

    Not `raw_peer`: a `StdioPeer` reads stdout all the time, and the subject here is a
    client that stops reading.
    """

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [str(EXECUTABLE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._stderr: queue.Queue[str] = queue.Queue()
        self.stderr_lines: list[str] = []
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self._stderr.put(raw.decode("utf-8", "replace"))

    def send(self, message: dict[str, Any]) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def receive(self) -> dict[str, Any]:
        stdout = self.proc.stdout
        assert stdout is not None
        line = stdout.readline()
        assert line, f"stdout closed; stderr:\n{''.join(self.stderr_lines)}"
        message: dict[str, Any] = json.loads(line)
        return message

    def wait_for_stderr(self, text: str) -> None:
        while not any(text in line for line in self.stderr_lines):
            try:
                self.stderr_lines.append(self._stderr.get(timeout=REPLY_TIMEOUT))
            except queue.Empty:
                raise AssertionError(f"{text!r} never on stderr: {self.stderr_lines}") from None

    def close(self) -> int:
        for stream in (self.proc.stdin,):
            if stream is not None and not stream.closed:
                stream.close()
        stdout: IO[bytes] | None = self.proc.stdout
        if stdout is not None:
            stdout.read()
        return self.proc.wait(REPLY_TIMEOUT)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def test_a_client_that_stops_reading_cannot_grow_the_server(
    installed_server: InstalledServer,
) -> None:
    count = 500
    client = SilentClient(
        # 64 KiB chunks (the default profile reads 8 KiB): large answers fill the pipe.
        installed_server.set(
            PWC_MCP_LOCAL_TIMEOUT="60",
            PWC_MCP_LOCAL_LOG_LEVEL="info",
            PWC_MCP_LOCAL_READ_CHUNK="65536",
        ).env
    )
    try:
        initialize, initialized = opening("silent", request_id=0)
        client.send(initialize)
        assert client.receive()["id"] == 0
        client.send(initialized)
        client.send(read_paper(1))
        first = client.receive()
        cursor = first["result"]["structuredContent"]["next_cursor"]
        assert len(json.dumps(first)) > 100_000  # each answer is large (a 64 KiB chunk twice)

        # 500 continuations (served from the cache) while nobody reads stdout.
        writer = threading.Thread(
            target=lambda: [client.send(read_paper(100 + n, cursor)) for n in range(count)],
            daemon=True,
        )
        writer.start()
        client.wait_for_stderr(PAUSED)

        answered = {client.receive()["id"] for _ in range(count)}
        writer.join(REPLY_TIMEOUT)
        assert answered == {100 + n for n in range(count)}
        peak = peak_rss_kb(client.proc.pid)
        if peak is not None:
            assert peak < PEAK_BOUND_KB, f"peak RSS {peak} kB"
        assert client.close() == 0
    finally:
        client.kill()


@pytest.fixture(scope="module")
def shared_fake() -> Iterator[FakeCatalog]:
    catalog = FakeCatalog().start()
    try:
        yield catalog
    finally:
        catalog.stop()


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory, shared_fake: FakeCatalog) -> Iterator[StdioPeer]:
    """One session for the two tests below; each leaves no request in flight, and the
    session must still end cleanly after both."""
    # A long catalog timeout: the held requests must not time out during the test.
    with hostile_server(tmp_path_factory.mktemp("held"), shared_fake, timeout=120).peer() as peer:
        peer.initialize()
        yield peer
        assert peer.finish(REPLY_TIMEOUT) == 0


def fill_with_held_searches(peer: StdioPeer, fake: FakeCatalog) -> list[int]:
    fake.faults.slow(prefix="papers/search")
    # Queries this session has not asked before: a cached answer would not be held.
    first = peer.next_id()
    ids = [
        peer.send_request(
            "tools/call", {"name": "search_papers", "arguments": {"query": f"held {first} {n}"}}
        )
        for n in range(MAX_IN_FLIGHT)
    ]
    assert fake.faults.wait_until_blocked(MAX_IN_FLIGHT, timeout=REPLY_TIMEOUT)
    return ids


def test_requests_past_the_cap_wait_for_a_slot(peer: StdioPeer, shared_fake: FakeCatalog) -> None:
    fake = shared_fake
    before = fake.requests.count("papers/search")
    ids = fill_with_held_searches(peer, fake)
    past = peer.send_request(
        "tools/call", {"name": "search_papers", "arguments": {"query": f"past {ids[0]}"}}
    )
    # Still reading: the ping behind the waiting search is answered now.
    assert peer.request("ping", timeout=REPLY_TIMEOUT)["result"] == {}
    assert fake.requests.count("papers/search") - before == MAX_IN_FLIGHT  # the 33rd waits
    fake.faults.reset()  # the held searches answer, their slots free, the 33rd goes in
    answers = {}
    while len(answers) < len(ids) + 1:
        message = peer.next_message(REPLY_TIMEOUT)
        answers[message["id"]] = message
    assert all(answers[i]["result"].get("isError") is not True for i in [*ids, past])
    assert PAUSED not in peer.stderr
    assert peer.request("ping", timeout=REPLY_TIMEOUT)["result"] == {}


def test_a_cancellation_frees_its_slot(peer: StdioPeer, shared_fake: FakeCatalog) -> None:
    fake = shared_fake
    logged = len(peer.stderr)
    ids = fill_with_held_searches(peer, fake)
    peer.notify("notifications/cancelled", {"requestId": ids[0], "reason": "changed my mind"})
    # With one slot free the ping is admitted and answered while the others still wait.
    assert peer.request("ping", timeout=REPLY_TIMEOUT)["result"] == {}
    assert PAUSED not in peer.stderr[logged:]
    fake.faults.reset()
    answered = set()
    while len(answered) < len(ids) - 1:
        message = peer.next_message(REPLY_TIMEOUT)
        answered.add(message["id"])
    assert answered == set(ids[1:])
    assert peer.request("ping", timeout=REPLY_TIMEOUT)["result"] == {}  # none for ids[0] first
    assert all(message.get("id") != ids[0] for message in peer.messages)
