"""The stdio transport: one JSON-RPC message per line, guarded.

MCP clients spawn the server and speak JSON-RPC 2.0 over its stdin and stdout, one
message per line. The SDK ships a stdio transport, but it drops lines it cannot parse
without a word, abandons running requests when stdin closes and writes `\\r\\n` on
Windows. This module owns the wire instead and feeds the SDK's low-level server a pair
of in-memory streams:

    stdin ─ reader ─▶ guard ─▶ feeder ─▶ SDK server ─▶ forwarder ─▶ writer ─ stdout
                        └──── protocol errors, pings ───────────────▶┘

* **The ends cost no thread hop where they can.** On POSIX, a stdin or stdout that
  is a pipe or socket (what every MCP client gives) is made non-blocking and waited
  on by the event loop itself: reading a request and writing its answer are plain
  `os.read`/`os.write` calls, with no hand-over between threads per message. A
  terminal, a file, a stdout that is also stderr, and Windows keep a thread
  blocking on each end instead. A pipe made non-blocking is handed back blocking.

* **stdout carries protocol messages only.** While serving, file descriptor 1 points
  at stderr and descriptor 0 at the null device; the real pipes live on as private
  duplicates. A stray `print` call in a tool, or a child process it starts, therefore
  lands on stderr and can never corrupt the stream.
* **Every malformed line gets the answer JSON-RPC asks for** (see `pwc_local.server.framing`):
  -32700 for bytes that are not UTF-8 JSON, -32600 for JSON that is not a JSON-RPC 2.0
  message, -32602 for a request whose params cannot be right. Valid messages reach
  the SDK unchanged. The SDK's catch-all answer to a crashed handler (code 0 and the
  exception's text) leaves as -32603 "Internal error".
* **Lines are capped** at `MAX_LINE_BYTES`. A longer line is skipped without being
  held in memory and answered with -32600; the session carries on.
* **Requests are admitted in lanes** (`pwc_local.server.admission`). The guard reads
  every line as it comes and answers `ping` itself (in the handshake era; the modern
  one has none). A request that may wait on the catalog runs in the catalog lane,
  the rest (listings, completions, tools reading only local data) in the local lane,
  each with `MAX_IN_FLIGHT` (32) slots; a slot is held until the writer takes the
  answer for the pipe. Past that, requests wait
  in a bounded room, and only once that is full does the guard stop reading: a
  client that sends without reading answers stalls itself, and the process holds at
  most 32 answers per lane (each under the 2 MiB bound) whatever it sends.
* **Ids are the client's, exactly.** A request reusing the id of one in progress is
  refused (-32600) and the first one continues; `5` and `"5"` are two ids. The SDK
  sees a fresh integer per request (it would fold `"5"` into `5`), and each answer
  leaves with the client's id. A cancel drops a waiting request, or frees a running
  one's slot at once and stops its handler (its HTTP request is aborted); nothing is
  answered for it.
* **End of input.** When stdin closes, requests in progress get `drain_timeout`
  (1.5 s) to be answered; then the rest are cancelled and answered with the SDK's
  "Connection closed" error, everything is flushed, and the server stops.
* **Answers are bounded.** An answer over `MAX_ANSWER_BYTES` (2 MiB, the hosted server's bound) is
  replaced by an `upstream_error:` of a few hundred bytes: a tool error for a tool
  call, -32603 otherwise. Rows are bounded long before (the HTTP client cuts a page
  to the size asked for); this is the backstop for records that are absurdly large.

Typical use, from the command line entry point:

    from pwc_local.server import stdio

    server = build_server(settings)
    sys.exit(stdio.run(server, local_tool=server.is_local_tool))

`serve()` is the same loop as a coroutine, and accepts explicit binary streams, which
is how the tests drive it in-process.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any, BinaryIO, cast

import anyio
from anyio.from_thread import BlockingPortal
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import (
    INTERNAL_ERROR,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    RequestId,
    jsonrpc_message_adapter,
)

from pwc_local.server import sdk
from pwc_local.server.admission import CANCELLED, Admission
from pwc_local.server.descriptors import ClaimedDescriptor
from pwc_local.server.early import Handover
from pwc_local.server.framing import (
    MAX_ANSWER_BYTES,
    Accepted,
    Rejected,
    ToolRefusal,
    answered_id,
    connection_closed,
    encode_message,
    enveloped,
    inspect_line,
    invalid,
    is_request_id,
    oversized_answer,
    pong,
    public_error,
)
from pwc_local.server.lines import MAX_LINE_BYTES, READ_SIZE, LineTooLong, iter_lines

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer

__all__ = ["DEFAULT_DRAIN_TIMEOUT", "run", "serve"]

logger = logging.getLogger(__name__)

_Outgoing = tuple[bytes, "RequestId | None"]  # an encoded line and the request it answers

DEFAULT_DRAIN_TIMEOUT = 1.5
"""Seconds requests in flight may keep running after stdin closes, before they are cancelled.

Long enough for what answers from the cache, the library or a responsive catalog;
shorter than the 2 s the SDK's own stdio client waits after closing stdin before it
sends SIGTERM, so the answers (or a "Connection closed" error) are written and the
process ends by itself.
"""

_REPLAYED_ID = "pwc-local-replayed"  # never an id the admission gives the SDK
_OUTPUT_QUEUE = 32  # encoded messages waiting for the writer thread
_WRITE_BATCH = 64  # messages joined into one write when several are waiting
_WRITE_BATCH_BYTES = 256 * 1024  # ... as long as the joined bytes stay this small


# ---------------------------------------------------------------------------------------
# The session: threads at the two ends, four tasks in between.


class _Session:
    """One client connection over a pair of binary streams."""

    def __init__(
        self,
        lowlevel: Server,
        source: BinaryIO,
        sink: BinaryIO,
        drain_timeout: float,
        *,
        pipes: tuple[int | None, int | None] = (None, None),
        local_tool: Callable[[str], bool] | None = None,
        handover: Handover | None = None,
    ):
        self._lowlevel = lowlevel
        # What the early path read and did not answer (`server/launch.py`), else nothing.
        self._handover = handover if handover is not None else Handover()
        self._source = source
        self._sink = sink
        # Non-blocking descriptors of the stdin and stdout pipes, when the event loop
        # waits on them itself (`_Pipe`); None: a thread blocks on the stream instead.
        self._pipe_in, self._pipe_out = pipes
        self._drain_timeout = drain_timeout
        self._admission = Admission(local_tool or (lambda name: False))
        self._input_ended = False  # stdin closed and the drain is over: feed nothing more
        # The era the client's first request opened (None before it): the transport
        # answers `ping` only in the handshake era; the modern one has no ping.
        self._handshake_era: bool | None = self._handover.era
        self._changed = anyio.Event()  # set (and replaced) whenever the admission changes
        self._paused_before = False
        self._scope: anyio.CancelScope | None = None
        self.reader_done = threading.Event()
        self.writer_done = threading.Event()

    async def run(self) -> None:
        to_sdk, sdk_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        sdk_writes, from_sdk = anyio.create_memory_object_stream[SessionMessage](0)
        lines_in, lines = anyio.create_memory_object_stream[bytes | LineTooLong](0)
        output, output_out = anyio.create_memory_object_stream[_Outgoing](_OUTPUT_QUEUE)
        flushed = anyio.Event()
        for message, _ in self._handover.replay:
            # Answered by the early path: the SDK sees it first, under an id the
            # admission never gave, so its answer finds no ticket and is dropped.
            replayed = {**message, "id": _REPLAYED_ID}
            self._admission.pass_on(jsonrpc_message_adapter.validate_python(replayed))
        portal = BlockingPortal()
        async with portal:
            try:
                async with anyio.create_task_group() as tg:
                    self._scope = tg.cancel_scope
                    if self._pipe_in is None:
                        _daemon("pwc-stdin", self._read, portal, lines_in)
                    else:
                        tg.start_soon(self._read_pipe, self._pipe_in, lines_in)
                    if self._pipe_out is None:
                        _daemon("pwc-stdout", self._write, portal, output_out, flushed)
                    else:
                        tg.start_soon(self._write_pipe, self._pipe_out, output_out, flushed)
                    tg.start_soon(self._serve_sdk, sdk_reads, sdk_writes)
                    tg.start_soon(self._forward, from_sdk, output.clone())
                    tg.start_soon(self._feed, to_sdk)
                    tg.start_soon(self._guard, lines, output.clone())
                    output.close()  # the stream ends once both clones are closed
                    await flushed.wait()
                    # Everything is answered and written: a reader still waiting on an
                    # open stdin has nothing left to feed.
                    tg.cancel_scope.cancel()
            finally:
                await portal.stop(cancel_remaining=True)

    # -- event loop side ------------------------------------------------------------

    async def _serve_sdk(
        self,
        reads: MemoryObjectReceiveStream[SessionMessage | Exception],
        writes: MemoryObjectSendStream[SessionMessage],
    ) -> None:
        options = self._lowlevel.create_initialization_options()
        await self._lowlevel.run(reads, writes, options)

    def _poke(self) -> None:
        """Wake whoever waits for the admission to change (the feeder, a paused guard)."""
        self._changed.set()
        self._changed = anyio.Event()

    async def _feed(self, to_sdk: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        """Pass what the admission made ready to the SDK, in order, until input ends.

        The one task that writes to the SDK: a request always reaches it before a
        cancel of that request does.
        """
        ready = self._admission.ready
        async with to_sdk:
            try:
                while ready or not self._input_ended:
                    if not ready:
                        await self._changed.wait()
                        continue
                    await to_sdk.send(SessionMessage(ready.popleft()))
                    self._poke()
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                logger.debug("the MCP server stopped reading; closing the session")
                self._lost_output()

    async def _guard(
        self,
        lines: MemoryObjectReceiveStream[bytes | LineTooLong],
        output: MemoryObjectSendStream[_Outgoing],
    ) -> None:
        """Judge each line; answer the bad ones (and pings), hand the good ones on."""
        async with output, lines:
            try:
                while (line := await self._next_line(lines)) is not None:
                    await self._take(line, output)
                    if self._admission.full:
                        await self._wait_for_room()
                await self._drain(output)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                logger.debug("stdout is gone; closing the session")
            finally:
                self._input_ended = True
                self._poke()

    async def _next_line(
        self, lines: MemoryObjectReceiveStream[bytes | LineTooLong]
    ) -> bytes | LineTooLong | None:
        """The next line, or None at end of input.

        Slots freed by cancels are filled only once no line is at hand: the cancels
        a client sends together all count before anything waiting starts.
        """
        try:
            return lines.receive_nowait()
        except anyio.WouldBlock:
            self._admit_waiting()
        except anyio.EndOfStream:
            return None
        try:
            return await lines.receive()
        except anyio.EndOfStream:
            return None

    async def _take(
        self, line: bytes | LineTooLong, output: MemoryObjectSendStream[_Outgoing]
    ) -> None:
        request_id: RequestId | None = None
        try:
            verdict = self._judge(line)
            if isinstance(verdict, Rejected | ToolRefusal):
                await output.send((verdict.frame(), None))
                return
            if verdict is None:
                return
            message = verdict.message
            if isinstance(message, JSONRPCRequest):
                request_id = message.id
                if self._handshake_era is None and (answer := self._probe_answer(line)):
                    # A probe decides no era: the client may still fall back to initialize.
                    await output.send((answer, None))
                    return
                if self._answers_ping(message):
                    # Answered here: a liveness check must not wait for a slot.
                    await output.send((pong(message.id), None))
                    return
                self._admission.offer(message, len(cast(bytes, line)))
            elif isinstance(message, JSONRPCNotification) and message.method == CANCELLED:
                cancelled = (message.params or {}).get("requestId")
                if not (is_request_id(cancelled) and self._admission.cancel(cancelled)):
                    logger.debug("a cancel named no request in progress; ignored")
            else:
                self._admission.pass_on(message)
            self._poke()
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            raise
        except Exception as exc:
            # A bug here must cost one message, not the session.
            logger.error("stdio guard failed on a message: %s", type(exc).__name__)
            if request_id is not None and not self._admission.knows(request_id):
                failure = Rejected(INTERNAL_ERROR, "Internal error", request_id)
                await output.send((failure.frame(), None))

    def _probe_answer(self, line: bytes | LineTooLong) -> bytes | None:
        """The early path's answer to a `server/discover` probe, if it has one."""
        early = self._handover.early
        return early.discover(line) if early and isinstance(line, bytes) else None

    def _answers_ping(self, request: JSONRPCRequest) -> bool:
        """Whether this is a ping the transport answers itself (see `_handshake_era`)."""
        if self._handshake_era is None:
            # The first request goes to the SDK, whatever it is: it decides the era.
            self._handshake_era = request.method == "initialize" or not enveloped(request.params)
            return False
        return self._handshake_era and request.method == "ping" and not enveloped(request.params)

    def _judge(self, line: bytes | LineTooLong) -> Accepted | Rejected | ToolRefusal | None:
        if isinstance(line, LineTooLong):
            return invalid(f"message longer than {MAX_LINE_BYTES} bytes; it was discarded")
        verdict = inspect_line(line)
        if isinstance(verdict, Rejected):
            logger.debug("answered a malformed line with %d", verdict.code)
            return verdict
        request_id: RequestId | None = None
        if isinstance(verdict, ToolRefusal):
            request_id = verdict.id
        elif verdict is not None and isinstance(verdict.message, JSONRPCRequest):
            request_id = verdict.message.id
        if request_id is not None and self._admission.knows(request_id):
            # The id belongs to a request in progress; a second answer carrying it
            # would be ambiguous, so this refusal says which id via `data`.
            return invalid("a request with this id is still in progress", {"id": request_id})
        return verdict

    async def _wait_for_room(self) -> None:
        """Back-pressure: read no more of stdin while the waiting room is full.

        A slot frees when an answer is taken for writing, so a client that stops
        reading stdout stops this session from reading stdin once every slot's answer
        waits and the waiting room is full: memory stays bounded, however many
        requests the client sends.
        """
        if not self._paused_before:
            self._paused_before = True  # said once per session: it may recur often
            logger.info(
                "%d in flight, more waiting; not reading stdin until an answer is written",
                self._admission.in_flight,
            )
        self._admit_waiting()
        while self._admission.full:
            await self._changed.wait()

    def _settle(self, internal: RequestId) -> None:
        self._admission.settle(internal)
        self._admit_waiting()

    def _admit_waiting(self) -> None:
        self._admission.admit_waiting()
        self._poke()

    async def _drain(self, output: MemoryObjectSendStream[_Outgoing]) -> None:
        """At end of input: answer what can be answered within the bound, then stop.

        Requests still running at the bound are cancelled when the SDK's input
        closes (it answers each with a "Connection closed" error); those still
        waiting for a slot get the same answer from here.
        """
        if not self._admission.idle:
            logger.info(
                "stdin closed; letting %d request(s) in flight finish (up to %.1f s)",
                self._admission.in_flight,
                self._drain_timeout,
            )
            self._admit_waiting()
            with anyio.move_on_after(self._drain_timeout):
                while not self._admission.idle:
                    await self._changed.wait()
            if not self._admission.idle:
                logger.warning(
                    "stdin closed; %d request(s) still running after %.1f s are cancelled",
                    self._admission.in_flight,
                    self._drain_timeout,
                )
            for request_id in self._admission.abandon_waiting():
                await output.send((connection_closed(request_id), None))

    async def _forward(
        self,
        from_sdk: MemoryObjectReceiveStream[SessionMessage],
        output: MemoryObjectSendStream[_Outgoing],
    ) -> None:
        """Encode what the SDK sends, within the answer bound, for the writer thread.

        An answer carries the SDK's id for its request; it leaves with the client's.
        An answer to a request the client cancelled in the meantime is dropped.
        """
        async with from_sdk, output:
            async for item in from_sdk:
                message = public_error(item.message)
                internal = answered_id(message)
                ticket = None
                if internal == _REPLAYED_ID:
                    self._compare_replayed(message)
                    continue
                if internal is not None:
                    ticket = self._admission.ticket(internal)
                    if ticket is None:
                        logger.debug("dropped the answer to a cancelled request")
                        continue
                    message = message.model_copy(update={"id": ticket.client_id})
                try:
                    data = encode_message(message)
                except Exception as exc:
                    logger.error("could not encode an outgoing message: %s", type(exc).__name__)
                    if ticket is None:
                        continue
                    data = Rejected(INTERNAL_ERROR, "Internal error", ticket.client_id).frame()
                if len(data) > MAX_ANSWER_BYTES:
                    if ticket is None:
                        logger.warning("dropped a %d-byte notification over the bound", len(data))
                        continue
                    logger.warning("an answer of %d bytes was over the bound; refused", len(data))
                    data = oversized_answer(ticket.client_id, ticket.tool)
                await output.send((data, internal))

    def _compare_replayed(self, message: JSONRPCMessage) -> None:
        """Warn once if the SDK's answer to a replayed request is not what was sent early."""
        if not self._handover.replay:
            return
        request, sent = self._handover.replay.pop(0)
        again = encode_message(message.model_copy(update={"id": request["id"]}))
        if again != sent:
            logger.warning(
                "the early answer to %s differed from the server's: early.json is stale "
                "(python -m pwc_local.server.early_build)",
                request["method"],
            )

    async def _next_output(self, output: MemoryObjectReceiveStream[_Outgoing]) -> bytes | None:
        """The next bytes to write (several messages if queued), or None when done.

        The requests these answer are settled here, just before their bytes go to
        the pipe, which frees their back-pressure slots.
        """
        try:
            batch = [await output.receive()]
        except anyio.EndOfStream:
            return None
        size = len(batch[0][0])
        while len(batch) < _WRITE_BATCH and size < _WRITE_BATCH_BYTES:
            try:
                batch.append(output.receive_nowait())
            except (anyio.WouldBlock, anyio.EndOfStream):
                break
            size += len(batch[-1][0])
        for _, answered in batch:
            if answered is not None:
                self._settle(answered)
        return b"".join(data for data, _ in batch)

    def finished_with(self, fd: int) -> bool:
        """Whether the thread using standard descriptor `fd`'s pipe has ended."""
        return (self.reader_done if fd == 0 else self.writer_done).is_set()

    def _lost_output(self) -> None:
        if self._scope is not None:
            self._scope.cancel()

    # -- pipes the event loop waits on ---------------------------------------------------
    # No thread and no hand-over per message: the loop reads stdin and writes stdout
    # when they are ready. Waiting on either can be cancelled, so a signal still ends
    # a session whose client neither closes stdin nor reads stdout.

    async def _read_pipe(self, fd: int, lines: MemoryObjectSendStream[Any]) -> None:
        splitter = self._handover.splitter
        try:
            async with lines:
                for line in self._handover.lines:
                    await lines.send(line)
                while not self._handover.ended:
                    try:
                        piece = os.read(fd, READ_SIZE)
                    except BlockingIOError:
                        await anyio.wait_readable(fd)
                        continue
                    if not piece:
                        break
                    # While the guard holds a request (back-pressure), nothing more is read.
                    for line in splitter.feed(piece):
                        await lines.send(line)
                for line in splitter.end():
                    await lines.send(line)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the guard stopped reading: the session is ending
        except OSError as exc:
            logger.warning("reading stdin failed (%s); treating it as closed", type(exc).__name__)
        finally:
            self.reader_done.set()

    async def _write_pipe(
        self, fd: int, output: MemoryObjectReceiveStream[_Outgoing], flushed: anyio.Event
    ) -> None:
        try:
            while (data := await self._next_output(output)) is not None:
                view = memoryview(data)
                while view:
                    try:
                        view = view[os.write(fd, view) :]
                    except BlockingIOError:
                        await anyio.wait_writable(fd)
        except OSError as exc:
            logger.info("stdout is closed (%s); ending the session", type(exc).__name__)
            self._lost_output()
        finally:
            self.writer_done.set()
            flushed.set()

    # -- threads ------------------------------------------------------------------------
    # Blocking reads and writes run on daemon threads so that a client which neither
    # closes stdin nor reads stdout can never keep the process alive after a signal.

    def _read(self, portal: BlockingPortal, lines: MemoryObjectSendStream[Any]) -> None:
        handover = self._handover
        try:
            for line in handover.lines:
                portal.call(lines.send, line)
            if not handover.ended:
                for line in iter_lines(self._source, handover.splitter):
                    portal.call(lines.send, line)
        except OSError as exc:
            logger.warning("reading stdin failed (%s); treating it as closed", type(exc).__name__)
        finally:
            self.reader_done.set()
            _quietly(portal.call, lines.aclose)

    def _write(
        self,
        portal: BlockingPortal,
        output: MemoryObjectReceiveStream[_Outgoing],
        flushed: anyio.Event,
    ) -> None:
        try:
            while (data := portal.call(self._next_output, output)) is not None:
                self._sink.write(data)
                self._sink.flush()
        except OSError as exc:
            logger.info("stdout is closed (%s); ending the session", type(exc).__name__)
            _quietly(portal.call, self._lost_output)
        finally:
            self.writer_done.set()
            _quietly(portal.call, flushed.set)


def _daemon(name: str, target: Callable[..., None], *args: Any) -> None:
    def guarded() -> None:
        try:
            target(*args)
        except Exception as exc:
            # The portal is gone (shutdown) or the loop refused the call: nothing to do.
            logger.debug("%s thread ended: %s", name, type(exc).__name__)

    threading.Thread(target=guarded, name=name, daemon=True).start()


def _quietly(call: Callable[..., Any], *args: Any) -> None:
    # Used for last words to the event loop, which may already have finished.
    with suppress(Exception):
        call(*args)


def _flush_python_stdout() -> None:
    # Text buffered in sys.stdout goes wherever fd 1 points at this moment.
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------------------------------
# Entry points.


async def serve(
    server: MCPServer | Server,
    *,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    drain_timeout: float = DEFAULT_DRAIN_TIMEOUT,
    local_tool: Callable[[str], bool] | None = None,
    claimed: Sequence[ClaimedDescriptor] = (),
    handover: Handover | None = None,
) -> None:
    """Serve one MCP session over stdio until stdin closes or the client goes away.

    `server` is an `mcp.server.mcpserver.MCPServer` (or the SDK's low-level `Server`).
    Without explicit streams the process's own stdin and stdout are claimed for the
    session: the pipes move to private descriptors and fds 0 and 1 point at the null
    device and stderr until the session ends. Explicit `stdin`/`stdout` must be
    buffered binary streams; they are used as they are and not closed. `claimed`:
    stdin and stdout already claimed, with `handover`, what the early path read and
    did not answer (`pwc_local.server.launch`).

    `drain_timeout` bounds how long requests still running at end of input may take
    before they are cancelled (the SDK then answers them with a "Connection closed"
    error). `local_tool(name)` says which tools answer from local data only: their
    calls run in the local lane, never behind calls stuck on the catalog
    (`pwc_local.server.admission`). Returns when every answer has been written and
    flushed.
    """
    lowlevel = sdk.lowlevel_server(server)
    claims: list[ClaimedDescriptor] = list(claimed)
    session: _Session | None = None
    try:
        pipe_in = pipe_out = None
        if claims:
            stdin, stdout = claims[0].stream, claims[1].stream
            pipe_in, pipe_out = claims[0].pollable(), claims[1].pollable()
        if stdin is None:
            claims.append(ClaimedDescriptor.take(0))
            stdin = claims[-1].stream
            pipe_in = claims[-1].pollable()
        if stdout is None:
            claims.append(ClaimedDescriptor.take(1))
            stdout = claims[-1].stream
            _flush_python_stdout()  # anything printed before now goes to stderr
            pipe_out = claims[-1].pollable()
        session = _Session(
            lowlevel,
            stdin,
            stdout,
            drain_timeout,
            pipes=(pipe_in, pipe_out),
            local_tool=local_tool,
            handover=handover,
        )
        await session.run()
    finally:
        _flush_python_stdout()
        for claim in reversed(claims):
            claim.release(close=session is None or session.finished_with(claim.fd))


def run(
    server: MCPServer | Server,
    *,
    drain_timeout: float = DEFAULT_DRAIN_TIMEOUT,
    local_tool: Callable[[str], bool] | None = None,
    claimed: Sequence[ClaimedDescriptor] = (),
    handover: Handover | None = None,
) -> int:
    """Serve `server` on the process's stdin/stdout; return the exit status.

    0 when the session ended normally: stdin closed, the client stopped reading, or
    SIGTERM/SIGINT arrived (these end the session at once, without a traceback).
    1 when the transport itself failed; the exception class is logged to stderr.
    `claimed` and `handover`: as `serve` takes them.
    """
    serving = functools.partial(
        serve,
        server,
        drain_timeout=drain_timeout,
        local_tool=local_tool,
        claimed=claimed,
        handover=handover,
    )
    try:
        return anyio.run(_serve_until_signal, serving)
    except KeyboardInterrupt:  # SIGINT where signal handlers are unavailable (Windows)
        return 0


async def _serve_until_signal(serving: Callable[[], Awaitable[None]]) -> int:
    status = 0
    async with anyio.create_task_group() as tg:
        if sys.platform != "win32":
            tg.start_soon(_cancel_on_signal, tg.cancel_scope)
        try:
            await serving()
        except Exception as exc:
            logger.error("stdio transport failed: %s", ", ".join(_exception_names(exc)))
            status = 1
        tg.cancel_scope.cancel()
    return status


async def _cancel_on_signal(scope: anyio.CancelScope) -> None:
    import signal

    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            logger.info("received %s; stopping", signal.Signals(signum).name)
            scope.cancel()
            return


def _exception_names(exc: BaseException) -> Iterable[str]:
    """Class names of `exc`, or of the leaves of an exception group."""
    nested = getattr(exc, "exceptions", None)
    if isinstance(nested, tuple):
        for inner in nested:
            yield from _exception_names(inner)
    else:
        yield type(exc).__name__
