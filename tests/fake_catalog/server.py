"""The fake catalog as a real HTTP server on 127.0.0.1 (catalog-api.md §1).

`FakeCatalog` runs a standard-library `ThreadingHTTPServer` in a daemon thread on
an ephemeral port, below the base path `/api/v1`. It speaks HTTP/1.1 with
keep-alive like a production server, logs every request (`.requests`), consults
the fault switches (`.faults`) before routing, and can stop and start again on
the same port, which is how "connection refused" is produced.

    fake = FakeCatalog().start()
    httpx.get(f"{fake.api_url}/papers/1706.03762").json()["id"]   # "755"
    fake.faults.gateway_timeout(prefix="papers/", times=1)
    fake.stop()
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import struct
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from .changes import Change
from .faults import (
    CUSTOM,
    DROP,
    INVALID_JSON,
    LYING_LENGTH,
    OVERSIZED,
    SLOW,
    STATUS,
    Fault,
    Faults,
)
from .fixtures import Catalog
from .markdown import content_version
from .requestlog import LoggedRequest, RequestLog
from .routing import dispatch
from .wire import Reply

HOST = "127.0.0.1"
API_PREFIX = "/api/v1/"
OLD_SERVER_FIELDS = ("applied_filters", "parameter_coverage_known", "parameter_coverage_total")
STREAM_PIECE = 64 * 1024
POLL_INTERVAL = 0.05  # how quickly serve_forever notices a stop request


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True  # rebinding the same port right after a stop must work

    def __init__(self, address: tuple[str, int], fake: FakeCatalog) -> None:
        self.fake = fake
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.fake._track(request)
        super().process_request(request, client_address)

    def close_request(self, request: Any) -> None:
        self.fake._untrack(request)
        super().close_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError):
            return  # a client that gave up (timeout, cap exceeded) is expected here
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeCatalog/1.0"
    sys_version = ""
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the request log is the record, and stderr belongs to the test run."""

    def do_GET(self) -> None:
        self.server.fake._handle(self)

    def _not_allowed(self) -> None:
        self.server.fake._handle(self, allowed=False)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _not_allowed


class FakeCatalog:
    """A loopback fake of the Papers With Code catalog API.

    Attributes a test uses:

    * `api_url`: `http://127.0.0.1:<port>/api/v1` (for `PWC_API_URL`); `base_url`
      without the API path; `port`.
    * `requests`: the `RequestLog` of every request received.
    * `faults`: the `Faults` switchboard.
    * `catalog`: the fixture data (`Catalog`), e.g. to look a paper up.
    * `start()` / `stop()`: listen / stop listening (same port on restart).
    * `set_markdown()`, `remove_markdown()`, `markdown()`, `content_version()`,
      `add_filler_papers()`, `reset()`.
    * `apply(change)`: change the data between two looks (`changes`: a new result,
      paper, Markdown version or successor).
    """

    def __init__(self, *, port: int = 0, tls: ssl.SSLContext | None = None) -> None:
        self.catalog = Catalog()
        self._tls = tls  # a server-side context: serve https (see tests/tls_cert.py)
        self.requests = RequestLog()
        self.faults = Faults()
        self.faults.attach(self._refuse, self.start)
        self._port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._lifecycle = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    # -- lifecycle ------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://{HOST}:{self._port}"

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/v1"

    def url(self, path: str) -> str:
        """The full URL of an API path such as `papers/search`."""
        return f"{self.api_url}/{path.lstrip('/')}"

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> FakeCatalog:
        """Listen (again) on the port; the first start picks a free ephemeral port."""
        with self._lifecycle:
            if self._server is not None:
                return self
            server = _Server((HOST, self._port), self)
            if self._tls is not None:  # the handshake runs on accept; a refusal drops it
                server.socket = self._tls.wrap_socket(server.socket, server_side=True)
            self._port = server.server_address[1]
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": POLL_INTERVAL},
                name=f"fake-catalog-{self._port}",
                daemon=True,
            )
            thread.start()
            self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        """Stop listening, drop open connections and release requests held by `slow`."""
        self.faults.release()
        self._close_listener()

    def _refuse(self) -> None:
        self._close_listener()

    def _close_listener(self) -> None:
        with self._lifecycle:
            server, thread = self._server, self._thread
            self._server = self._thread = None
            if server is None:
                return
            server.shutdown()
            server.server_close()
            if thread is not None:
                thread.join()
            with self._connections_lock:
                open_connections = list(self._connections)
            for connection in open_connections:
                # Idle keep-alive connections would otherwise still be served.
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> FakeCatalog:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _track(self, connection: socket.socket) -> None:
        with self._connections_lock:
            self._connections.add(connection)

    def _untrack(self, connection: socket.socket) -> None:
        with self._connections_lock:
            self._connections.discard(connection)

    # -- test conveniences ---------------------------------------------------------------

    def reset(self) -> None:
        """Fresh data, no faults, empty request log (for reusing one server across tests)."""
        self.faults.reset()
        self.requests.clear()
        self.catalog = Catalog()

    def set_markdown(self, reference: str, text: str) -> None:
        """Replace a paper's stored Markdown (by arXiv ID or numeric ID)."""
        self.catalog.set_markdown(reference, text)

    def set_title(self, reference: str, title: str) -> None:
        """Retitle a paper (by arXiv ID or numeric ID) until the next `reset()`."""
        self.catalog.set_title(reference, title)

    def remove_markdown(self, reference: str) -> None:
        self.catalog.remove_markdown(reference)

    def markdown(self, reference: str) -> str | None:
        """The paper's current stored Markdown, exactly as served."""
        return self.catalog.markdown(reference)

    def content_version(self, reference: str) -> str:
        """The `x-pwc-content-version` the read route currently sends for a paper."""
        text = self.catalog.markdown(reference)
        if text is None:
            raise KeyError(f"no stored Markdown for {reference!r}")
        return content_version(text)

    def apply(self, change: Change) -> None:
        """Apply a `changes` change (new result, paper, version, successor) until `reset()`."""
        self.catalog.apply(change)

    def add_filler_papers(self, count: int) -> None:
        """See `Catalog.add_filler_papers`: many old papers for deep search paging."""
        self.catalog.add_filler_papers(count)

    # -- request handling -----------------------------------------------------------------

    def _handle(self, handler: _Handler, *, allowed: bool = True) -> None:
        target = handler.path
        full_path, _, query_string = target.partition("?")
        params = parse_qs(query_string, keep_blank_values=True)
        relative = full_path[len(API_PREFIX) :] if full_path.startswith(API_PREFIX) else None
        entry = LoggedRequest(
            method=handler.command,
            path=relative if relative is not None else full_path,
            full_path=full_path,
            target=target,
            query=params,
            headers={name.lower(): value for name, value in handler.headers.items()},
        )
        self.requests.record(entry)

        fault = self.faults.take(entry.path)
        if fault is not None and fault.kind != SLOW:
            entry.status = self._answer_fault(handler, fault)
            return
        held = fault is not None and not fault.after_headers
        if held and not self.faults.hold(fault, client=handler.connection):
            handler.close_connection = True  # the client aborted: nobody to answer
            return

        if not allowed:
            reply = Reply(405, {"detail": "Method Not Allowed"}, headers={"Allow": "GET"})
        elif relative is None:
            reply = Reply(404, {"detail": "Not Found"})
        else:
            reply = dispatch(self.catalog, relative, params)
        if isinstance(reply.payload, dict) and self.faults.take_old_server(entry.path):
            for name in OLD_SERVER_FIELDS:
                reply.payload.pop(name, None)
        body = reply.encode()
        headers = {"Content-Type": reply.content_type(), **reply.headers}
        entry.status = reply.status
        if fault is not None:  # slow after headers: send them, then stall the body
            self._send_head(handler, reply.status, headers, len(body))
            self.faults.hold(fault)
            handler.wfile.write(body)
            return
        self._send(handler, reply.status, headers, body)

    @staticmethod
    def _send_head(
        handler: _Handler, status: int, headers: dict[str, str], length: int | None
    ) -> None:
        handler.send_response(status)
        for name, value in headers.items():
            if name.lower() != "content-length":
                handler.send_header(name, value)
        if length is None:
            handler.send_header("Transfer-Encoding", "chunked")
        else:
            handler.send_header("Content-Length", str(length))
        handler.end_headers()

    def _send(self, handler: _Handler, status: int, headers: dict[str, str], body: bytes) -> None:
        self._send_head(handler, status, headers, len(body))
        if handler.command != "HEAD":
            handler.wfile.write(body)

    def _answer_fault(self, handler: _Handler, fault: Fault) -> int | None:
        if fault.kind in (STATUS, CUSTOM, INVALID_JSON):
            self._send(handler, fault.status, fault.headers, fault.body)
            return fault.status
        if fault.kind == LYING_LENGTH:
            handler.close_connection = True  # the client cannot know where the body ends
            self._send_head(handler, fault.status, fault.headers, fault.declared)
            handler.wfile.write(fault.body)
            return fault.status
        if fault.kind == OVERSIZED:
            self._send_oversized(handler, fault)
            return 200
        if fault.kind == DROP:
            connection = handler.connection
            # Linger 0 makes close() send a reset instead of an orderly FIN.
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            handler.close_connection = True
            connection.close()
            return None
        raise AssertionError(f"unhandled fault kind {fault.kind}")

    def _send_oversized(self, handler: _Handler, fault: Fault) -> None:
        """A valid JSON object of exactly `fault.size` bytes, streamed in pieces."""
        head, tail = b'{"count": 0, "results": [], "padding": "', b'"}'
        body = head + b"x" * max(0, fault.size - len(head) - len(tail)) + tail
        handler.close_connection = True  # the client hangs up mid-body; start afresh
        self._send_head(handler, 200, fault.headers, len(body) if fault.content_length else None)
        for start in range(0, len(body), STREAM_PIECE):
            piece = body[start : start + STREAM_PIECE]
            if fault.content_length:
                handler.wfile.write(piece)
            else:
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        if not fault.content_length:
            handler.wfile.write(b"0\r\n\r\n")
