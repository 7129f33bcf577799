"""Cancellation, lanes and end of input through the installed server, against a stalled catalog.

The fake catalog holds every search it receives (`faults.slow`), so the searches a
test sends stay stuck until the test releases them; the server's catalog timeout is
long (120 s) so none ends on its own. What the tests hold the transport to:

* a `ping`, `tools/list` and a local tool (`list_library`) answer at once while 100
  catalog calls are stuck: the ping's latency is measured here, from the write of its
  line to the read of its answer, so it is an upper bound on the server's share;
* a `notifications/cancelled` frees its request's slot at once and nothing is
  answered for it: after 100 stuck searches are cancelled, 40 fresh searches (more
  than one lane holds, more than the HTTP pool would have left) are all answered;
* request ids are compared by type and value (JSON-RPC): a cancel naming `"5"` does
  not cancel request `5`, and requests `5` and `"5"` may run side by side;
* when stdin closes, what can be answered promptly is answered, the rest gets a
  "Connection closed" error, and the process exits within a couple of seconds;
* an argument a tool does not take is refused, naming it and the ones it takes.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fake_catalog import FakeCatalog
from tests.installed import InstalledServer
from tests.stdio_peer import StdioPeer

pytestmark = [pytest.mark.e2e]

STUCK = 100
REPLY_TIMEOUT = 30.0  # bounds a failing test only
PING_BOUND = 0.1  # seconds: "ping answers within 100 ms while 100 calls are stuck"
QUICK_BOUND = 5.0  # seconds for a local call; stuck behind the searches it would be 120


@pytest.fixture
def stalled(installed_server: InstalledServer, fake_catalog: FakeCatalog) -> Iterator[StdioPeer]:
    """An initialized session whose catalog holds every search until released."""
    fake_catalog.faults.slow(prefix="papers/search", notice_hang_up=True)
    with installed_server.set(
        PWC_MCP_LOCAL_TIMEOUT="120", PWC_MCP_LOCAL_LOG_LEVEL="info"
    ).peer() as peer:
        peer.initialize()
        yield peer
        fake_catalog.faults.reset()


def search(peer: StdioPeer, query: str, request_id: Any = None) -> Any:
    params = {"name": "search_papers", "arguments": {"query": query}}
    return peer.send_request("tools/call", params, request_id=request_id)


def timed(peer: StdioPeer, method: str, params: dict[str, Any] | None = None) -> float:
    """Seconds from sending a request to reading its (successful) answer."""
    started = time.monotonic()
    answer = peer.request(method, params, timeout=REPLY_TIMEOUT)
    elapsed = time.monotonic() - started
    assert "result" in answer, answer
    return elapsed


def stick(peer: StdioPeer, fake: FakeCatalog, count: int, tag: str) -> list[Any]:
    ids = [search(peer, f"{tag} {n}") for n in range(count)]
    assert fake.faults.wait_until_blocked(min(count, 32), timeout=REPLY_TIMEOUT)
    return ids


def test_ping_and_local_calls_answer_at_once_while_100_calls_are_stuck(
    stalled: StdioPeer, fake_catalog: FakeCatalog
) -> None:
    stick(stalled, fake_catalog, STUCK, "stuck")
    pings = [timed(stalled, "ping") for _ in range(7)]
    assert statistics.median(pings) < PING_BOUND, pings
    assert max(pings) < 1.0, pings  # one slow turn on a loaded machine, not a queue
    assert timed(stalled, "tools/list") < QUICK_BOUND
    library = {"name": "list_library", "arguments": {}}
    assert timed(stalled, "tools/call", library) < QUICK_BOUND


def test_a_cancelled_call_frees_its_slot_at_once_and_is_never_answered(
    stalled: StdioPeer, fake_catalog: FakeCatalog
) -> None:
    stuck = stick(stalled, fake_catalog, STUCK, "cancelled")
    for request_id in stuck:
        stalled.notify("notifications/cancelled", {"requestId": request_id, "reason": "no"})
    assert "result" in stalled.request("ping")  # every cancel before it is read
    # The 32 searches held at the catalog are aborted: their connections close. (A
    # slot a cancel frees may start a waiting search before that one's cancel is
    # read; it is aborted in turn.)
    assert fake_catalog.faults.wait_until_hung_up(32, timeout=REPLY_TIMEOUT)
    fake_catalog.faults.reset()  # from now on searches are answered
    fresh = [search(stalled, f"fresh {n}") for n in range(40)]
    answered = {}
    while len(answered) < len(fresh):
        message = stalled.next_message(REPLY_TIMEOUT)
        assert message.get("id") not in stuck, f"cancelled request {message.get('id')} answered"
        answered[message["id"]] = message
    assert set(answered) == set(fresh)
    assert all(m["result"].get("isError") is not True for m in answered.values())
    assert "result" in stalled.request("ping")  # everything before it is out
    assert not [m for m in stalled.messages if m.get("id") in stuck]


def test_request_ids_are_matched_by_type_and_value(
    stalled: StdioPeer, fake_catalog: FakeCatalog
) -> None:
    number, text = search(stalled, "by type a", 6), search(stalled, "by type b", "7")
    assert fake_catalog.faults.wait_until_blocked(2, timeout=REPLY_TIMEOUT)
    # Each cancel names the other type: neither applies.
    stalled.notify("notifications/cancelled", {"requestId": "6"})
    stalled.notify("notifications/cancelled", {"requestId": 7})
    assert "result" in stalled.request("ping")  # the cancels are read
    fake_catalog.faults.reset()
    answered = {(type(m["id"]), m["id"]) for m in (stalled.next_message() for _ in range(2))}
    assert answered == {(int, number), (str, text)}

    # 5 and "5" are two requests at once; a cancel of "5" stops that one only.
    fake_catalog.faults.slow(prefix="papers/search", notice_hang_up=True)
    number, text = search(stalled, "by type c", 5), search(stalled, "by type d", "5")
    assert fake_catalog.faults.wait_until_blocked(2, timeout=REPLY_TIMEOUT)
    stalled.notify("notifications/cancelled", {"requestId": text})
    assert "result" in stalled.request("ping")
    fake_catalog.faults.reset()
    answer = stalled.next_message(REPLY_TIMEOUT)
    assert answer["id"] == number and isinstance(answer["id"], int) and "result" in answer
    assert "result" in stalled.request("ping")  # nothing for "5" came before this
    assert not [m for m in stalled.messages if m.get("id") == text]


def test_stdin_closing_answers_quick_calls_and_ends_stuck_ones_promptly(
    stalled: StdioPeer, fake_catalog: FakeCatalog
) -> None:
    stuck = stick(stalled, fake_catalog, 3, "at the end")
    quick = stalled.send_request("tools/call", {"name": "list_library", "arguments": {}})
    ping = stalled.send_request("ping")
    started = time.monotonic()
    stalled.close_stdin()
    rest = stalled.rest(REPLY_TIMEOUT)
    status = stalled.wait(REPLY_TIMEOUT)
    elapsed = time.monotonic() - started
    assert status == 0
    assert elapsed < 5.0, f"exited {elapsed:.1f} s after stdin closed"
    by_id = {message["id"]: message for message in rest if "id" in message}
    assert "result" in by_id[quick] and "result" in by_id[ping]
    for request_id in stuck:
        assert by_id[request_id]["error"]["message"] == "Connection closed"


def test_an_unknown_argument_is_refused_naming_it_and_the_valid_ones(raw_peer: StdioPeer) -> None:
    raw_peer.initialize()
    params = {"name": "search_papers", "arguments": {"query": "x", "bogus_arg": 1}}
    answer = raw_peer.request("tools/call", params)["result"]
    assert answer["isError"] is True
    text = answer["content"][0]["text"]
    assert "invalid_argument: " in text and "bogus_arg" in text and "query" in text, text
    assert "mcp_context" not in text
    # A known argument alone still works, and a number for a reference is still read as text.
    paper = {"name": "get_paper_info", "arguments": {"paper": 1706.03762}}
    assert raw_peer.request("tools/call", paper)["result"].get("isError") is not True
    assert raw_peer.finish() == 0
