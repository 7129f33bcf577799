"""Which requests run now, which wait, and the ids the SDK sees: the transport's bookkeeping.

The stdio transport (`pwc_local.server.stdio`) reads every line as it comes and asks
an `Admission` what to do with it; the answer is always immediate (no I/O, no
waiting here), and what is to reach the SDK is queued on `ready`, in order.

* **Two lanes.** A request that may wait on the catalog (a tool call that needs it,
  `resources/read`) runs in the `catalog` lane; everything else (the listings,
  completions, prompts, tools that read only local data) in the `local` lane. Each
  lane admits `slots` (32) requests at a time; a slot is held from admission until
  the answer is taken for the pipe, or the request is cancelled. So 32 calls stuck
  on a stalled catalog never delay `list_library` or `tools/list`, and a client that
  stops reading stdout holds at most 32 answers per lane in memory.
* **A waiting room.** A request whose lane is full waits here, in arrival order,
  while the transport goes on reading (a cancellation behind it is seen at once).
  When the room holds `waiting` requests or `waiting_bytes` bytes of them, `full`
  tells the transport to stop reading stdin until it empties: memory stays bounded
  whatever the client sends.
* **Ids by type and value.** JSON-RPC compares ids exactly: request `5` and request
  `"5"` are two requests, and a cancel naming `"5"` is not about `5`. The SDK folds
  `"5"` into `5`, so it never sees a client's id: each admitted request gets a
  fresh integer, and `ticket(internal)` gives back the client's id for the answer.
* **Cancellation.** `cancel(id)` drops a waiting request (never passed on, never
  answered) or frees a running one's slot at once and passes the cancel on under
  the SDK's id (the SDK then stops the handler and sends nothing); an answer the
  SDK had already produced finds no ticket and is dropped by the transport.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from mcp_types import JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, RequestId

__all__ = ["CANCELLED", "MAX_IN_FLIGHT", "Admission", "Ticket"]

Lane = Literal["catalog", "local"]

MAX_IN_FLIGHT = 32
"""Requests admitted per lane and not yet written out (or cancelled)."""

MAX_WAITING = 256
"""Requests waiting for a slot before stdin is no longer read."""

MAX_WAITING_BYTES = 8 * 1024 * 1024
"""Bytes of waiting request lines before stdin is no longer read (two of the longest)."""

CANCELLED = "notifications/cancelled"
_CATALOG_METHODS = frozenset({"resources/read"})


@dataclass(frozen=True)
class Ticket:
    """An admitted request: the client's id, and the tool it calls (None for other methods)."""

    client_id: RequestId
    tool: str | None
    lane: Lane


@dataclass(frozen=True)
class _Waiting:
    request: JSONRPCRequest
    tool: str | None
    lane: Lane
    size: int


class Admission:
    """The lanes, the waiting room and the id map of one session (see the module docstring).

    `local_tool(name)` says whether a tool answers from local data only.
    """

    def __init__(
        self,
        local_tool: Callable[[str], bool] = lambda name: False,
        *,
        slots: int = MAX_IN_FLIGHT,
        waiting: int = MAX_WAITING,
        waiting_bytes: int = MAX_WAITING_BYTES,
    ) -> None:
        self._local_tool = local_tool
        self._slots = slots
        self._max_waiting = waiting
        self._max_waiting_bytes = waiting_bytes
        self.ready: deque[JSONRPCMessage] = deque()  # for the SDK, in this order
        self._ids = itertools.count(1)
        self._running: dict[int, Ticket] = {}  # by the SDK's id
        self._internal: dict[RequestId, int] = {}  # client id -> the SDK's id
        self._in_lane: dict[Lane, int] = {"catalog": 0, "local": 0}
        self._waiting: dict[Lane, deque[_Waiting]] = {"catalog": deque(), "local": deque()}
        self._waiting_ids: dict[RequestId, _Waiting] = {}
        self._waiting_bytes = 0

    # -- what the transport asks -----------------------------------------------------

    def knows(self, client_id: RequestId) -> bool:
        """Whether a request with exactly this id is running or waiting."""
        return client_id in self._internal or client_id in self._waiting_ids

    @property
    def full(self) -> bool:
        """Whether the waiting room is full: read no more until this turns False.

        Messages ready for an SDK that is not reading count too (say, a flood of
        notifications while it answers `initialize`).
        """
        return (
            len(self._waiting_ids) + len(self.ready) >= self._max_waiting
            or self._waiting_bytes >= self._max_waiting_bytes
        )

    @property
    def idle(self) -> bool:
        """Nothing running, nothing waiting, nothing left to pass on."""
        return not self._running and not self._waiting_ids and not self.ready

    @property
    def in_flight(self) -> int:
        return len(self._running)

    def ticket(self, internal: RequestId) -> Ticket | None:
        """The admitted request the SDK knows as `internal`, or None (cancelled, unknown)."""
        return self._running.get(internal) if isinstance(internal, int) else None

    # -- what comes in ---------------------------------------------------------------

    def offer(self, request: JSONRPCRequest, size: int) -> bool:
        """Admit `request` (a line of `size` bytes) or let it wait; True if it must wait."""
        tool = _tool_name(request)
        lane: Lane = "catalog" if self._may_wait_on_catalog(request.method, tool) else "local"
        waiting = _Waiting(request, tool, lane, size)
        if self._in_lane[lane] < self._slots and not self._waiting[lane]:
            self._admit(waiting)
            return False
        self._waiting[lane].append(waiting)
        self._waiting_ids[request.id] = waiting
        self._waiting_bytes += size
        return True

    def pass_on(self, message: JSONRPCMessage) -> None:
        """Queue a message that needs no slot (a notification, a client's response)."""
        self.ready.append(message)

    def cancel(self, client_id: RequestId) -> bool:
        """Apply a client's cancel of `client_id`; False when no such request is known.

        A waiting request is dropped; a running one's slot frees now and the cancel
        goes on to the SDK under the SDK's id.
        """
        waiting = self._waiting_ids.pop(client_id, None)
        if waiting is not None:
            self._waiting[waiting.lane].remove(waiting)
            self._waiting_bytes -= waiting.size
            return True
        internal = self._internal.get(client_id)
        if internal is None:
            return False
        params = {"requestId": internal, "reason": "cancelled by the client"}
        self.ready.append(JSONRPCNotification(jsonrpc="2.0", method=CANCELLED, params=params))
        self.settle(internal)
        return True

    def settle(self, internal: RequestId) -> None:
        """The request the SDK knows as `internal` is answered (or cancelled): free its slot.

        The slot is filled by the next `admit_waiting()`: the transport first reads
        what the client has already sent, so a burst of cancels does not start the
        requests waiting behind them only to stop them a moment later.
        """
        ticket = self._running.pop(internal, None) if isinstance(internal, int) else None
        if ticket is None:
            return
        del self._internal[ticket.client_id]
        self._in_lane[ticket.lane] -= 1

    def admit_waiting(self) -> None:
        """Admit waiting requests, oldest first, into the slots free in their lanes."""
        for lane, queue in self._waiting.items():
            while queue and self._in_lane[lane] < self._slots:
                waiting = queue.popleft()
                del self._waiting_ids[waiting.request.id]
                self._waiting_bytes -= waiting.size
                self._admit(waiting)

    def abandon_waiting(self) -> list[RequestId]:
        """Empty the waiting room (the session is ending); the ids of the requests in it."""
        ids = list(self._waiting_ids)
        self._waiting_ids.clear()
        self._waiting_bytes = 0
        for queue in self._waiting.values():
            queue.clear()
        return ids

    # -- inside ----------------------------------------------------------------------

    def _may_wait_on_catalog(self, method: str, tool: str | None) -> bool:
        if tool is not None:
            return not self._local_tool(tool)
        return method in _CATALOG_METHODS

    def _admit(self, waiting: _Waiting) -> None:
        internal = next(self._ids)
        request = waiting.request
        self._running[internal] = Ticket(request.id, waiting.tool, waiting.lane)
        self._internal[request.id] = internal
        self._in_lane[waiting.lane] += 1
        self.ready.append(request.model_copy(update={"id": internal}))


def _tool_name(message: JSONRPCRequest) -> str | None:
    """The tool a `tools/call` names, else None."""
    if message.method != "tools/call" or not message.params:
        return None
    name = message.params.get("name")
    return name if isinstance(name, str) else None
