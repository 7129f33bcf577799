"""The transport's bookkeeping (`pwc_local.server.admission`), in-process.

The behaviour through the installed server is in tests/test_cancellation_e2e.py and
tests/test_hostile_backpressure.py; these pin the rules one step at a time.
"""

from __future__ import annotations

from typing import Any

from mcp_types import JSONRPCNotification, JSONRPCRequest

from pwc_local.server.admission import CANCELLED, Admission


def call(request_id: Any, tool: str = "search_papers") -> JSONRPCRequest:
    params = {"name": tool, "arguments": {}}
    return JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call", params=params)


def fed(admission: Admission) -> list[Any]:
    """What the SDK would receive now: (method, id or cancelled id), in order."""
    out = []
    while admission.ready:
        message = admission.ready.popleft()
        if isinstance(message, JSONRPCNotification):
            out.append((message.method, (message.params or {})["requestId"]))
        else:
            assert isinstance(message, JSONRPCRequest)
            out.append((message.method, message.id))
    return out


def test_the_sdk_sees_fresh_ids_and_answers_carry_the_clients_own() -> None:
    admission = Admission()
    admission.offer(call(5), 10)
    admission.offer(call("5"), 10)  # another request: JSON-RPC compares type and value
    assert fed(admission) == [("tools/call", 1), ("tools/call", 2)]
    first, second = admission.ticket(1), admission.ticket(2)
    assert first is not None and first.client_id == 5 and first.tool == "search_papers"
    assert second is not None and second.client_id == "5"
    assert admission.knows(5) and admission.knows("5") and not admission.knows("05")


def test_a_cancel_names_its_request_by_type_and_value() -> None:
    admission = Admission()
    admission.offer(call(5), 10)
    fed(admission)
    assert admission.cancel("5") is False  # not request 5
    assert admission.ticket(1) is not None
    assert admission.cancel(5) is True
    assert fed(admission) == [(CANCELLED, 1)]  # passed on under the SDK's id
    assert admission.ticket(1) is None and not admission.knows(5)


def test_a_full_lane_makes_requests_wait_and_a_cancel_frees_the_slot_at_once() -> None:
    admission = Admission(slots=2)
    for request_id in (1, 2, 3, 4):
        admission.offer(call(request_id), 10)
    assert fed(admission) == [("tools/call", 1), ("tools/call", 2)]
    assert admission.cancel(4) is True  # waiting: dropped, nothing passed on
    assert fed(admission) == []
    assert admission.cancel(1) is True
    assert admission.in_flight == 1  # its slot is free at once ...
    admission.admit_waiting()  # ... and the transport fills it
    assert fed(admission) == [(CANCELLED, 1), ("tools/call", 3)]
    assert not admission.knows(4)


def test_local_calls_have_a_lane_of_their_own() -> None:
    admission = Admission(lambda name: name == "list_library", slots=1)
    admission.offer(call(1), 10)
    admission.offer(call(2), 10)  # waits: the catalog lane is full
    admission.offer(call(3, "list_library"), 10)
    listing = JSONRPCRequest(jsonrpc="2.0", id=4, method="tools/list")
    admission.offer(listing, 10)  # waits behind 3 in the local lane
    read = JSONRPCRequest(jsonrpc="2.0", id=5, method="resources/read", params={"uri": "x"})
    admission.offer(read, 10)  # a resource is read from the catalog
    assert fed(admission) == [("tools/call", 1), ("tools/call", 2)]
    assert [client_id(admission, internal) for internal in (1, 2)] == [1, 3]
    admission.settle(2)  # list_library answered: tools/list goes in, nothing else
    admission.admit_waiting()
    assert fed(admission) == [("tools/list", 3)]
    assert client_id(admission, 3) == 4


def client_id(admission: Admission, internal: int) -> Any:
    ticket = admission.ticket(internal)
    assert ticket is not None
    return ticket.client_id


def test_the_waiting_room_is_bounded_by_count_and_bytes() -> None:
    by_count = Admission(slots=1, waiting=3)
    for request_id in range(4):
        by_count.offer(call(request_id), 10)
    fed(by_count)
    assert by_count.full
    by_count.cancel(3)
    assert not by_count.full
    by_bytes = Admission(slots=1, waiting_bytes=100)
    by_bytes.offer(call(1), 500)  # admitted: a running request's line is the SDK's now
    by_bytes.offer(call(2), 99)
    assert not by_bytes.full
    by_bytes.offer(call(3), 1)
    assert by_bytes.full
    assert sorted(by_bytes.abandon_waiting()) == [2, 3]
    assert not by_bytes.full and not by_bytes.knows(2)
