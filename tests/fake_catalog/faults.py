"""Fault switches for the fake catalog: the failures a real catalog can produce.

catalog-api.md §1.5-§1.7 and appendix B list what a client must survive: refused
connections, a server slower than the client timeout, 5xx and 429 statuses, an
invalid JSON body, a body over the 2 MiB cap (with and without Content-Length),
and an "old server" that lacks `applied_filters` or the parameter-coverage fields.
For the hostile-upstream tests it can also send compressed bodies with any
`Content-Encoding` (`encoded`, stacked codings and bombs via `compressed_zeros`)
and a `Content-Length` that lies (`lying_length`).

Each switch installs a rule. A rule may be limited to request paths starting with
`prefix` (relative to `/api/v1/`, still percent-encoded, e.g. `"papers/search"`)
and to the next `times` matching requests; with `times=None` it stays until
`reset()`. When several response-replacing rules match, the oldest wins and only
it is consumed. `old_server` is separate: it changes the normal answer instead of
replacing it, so it combines with the others.

Connection refusal is different by nature: the listening socket is closed, so it
applies to the whole server and cannot be limited by path or count. `reset()`
reopens the socket on the same port.

All methods are thread-safe; rules are read by handler threads while a test
changes them.
"""

from __future__ import annotations

import functools
import json
import select
import socket
import struct
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace

MAX_CLIENT_BODY = 2 * 1024 * 1024

# Kinds of response-replacing rules; the server module decides how to act on each.
STATUS = "status"
SLOW = "slow"
INVALID_JSON = "invalid_json"
OVERSIZED = "oversized"
DROP = "drop"
CUSTOM = "custom"
LYING_LENGTH = "lying_length"
OLD_SERVER = "old_server"

CODINGS = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


@dataclass
class Fault:
    """One installed rule. `remaining` is None for "until reset"."""

    kind: str
    prefix: str = ""
    remaining: int | None = None
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_length: bool = True
    after_headers: bool = False
    size: int = 0
    declared: int = 0
    release: threading.Event | None = None
    hold_for: float | None = None  # a slow rule that lets go by itself after this long
    notice_hang_up: bool = False

    def matches(self, path: str) -> bool:
        return path.startswith(self.prefix) and (self.remaining is None or self.remaining > 0)


class Faults:
    """The switchboard a test uses to make the fake misbehave.

    Typical use::

        fake.faults.gateway_timeout(prefix="papers/search", times=1)
        fake.faults.slow(prefix="research/papers/")
        fake.faults.refuse_connections()
        fake.faults.reset()   # everything back to normal, slow requests released
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[Fault] = []
        self._release = threading.Event()
        self._blocked = 0
        self._hung_up = 0
        self._blocked_changed = threading.Condition(self._lock)
        self._refusing = False
        self._stop_listening: Callable[[], None] | None = None
        self._start_listening: Callable[[], None] | None = None

    def attach(
        self, stop_listening: Callable[[], None], start_listening: Callable[[], None]
    ) -> None:
        """Let the server hand over how to close and reopen its listening socket."""
        self._stop_listening = stop_listening
        self._start_listening = start_listening

    # -- installing rules ---------------------------------------------------------

    def _add(self, fault: Fault, prefix: str, times: int | None) -> Fault:
        if times is not None and times < 1:
            raise ValueError("times must be at least 1 (or None for until reset)")
        fault.prefix = prefix.lstrip("/")
        fault.remaining = times
        with self._lock:
            if fault.kind == SLOW:
                fault.release = self._release
            self._rules.append(fault)
        return fault

    def error(
        self,
        status: int = 500,
        *,
        detail: object = "Internal Server Error",
        retry_after: str | None = None,
        prefix: str = "",
        times: int | None = None,
    ) -> Fault:
        """Answer with HTTP `status` and the JSON body `{"detail": detail}`."""
        headers = {"Content-Type": "application/json"}
        if retry_after is not None:
            headers["Retry-After"] = retry_after
        body = json.dumps({"detail": detail}).encode()
        return self._add(Fault(STATUS, status=status, body=body, headers=headers), prefix, times)

    def server_error(self, *, prefix: str = "", times: int | None = None) -> Fault:
        """HTTP 500 `{"detail": "Internal Server Error"}`."""
        return self.error(500, prefix=prefix, times=times)

    def bad_gateway(self, *, prefix: str = "", times: int | None = None) -> Fault:
        """HTTP 502 `{"detail": "Bad Gateway"}`."""
        return self.error(502, detail="Bad Gateway", prefix=prefix, times=times)

    def service_unavailable(self, *, prefix: str = "", times: int | None = None) -> Fault:
        """HTTP 503 `{"detail": "Service Unavailable"}`."""
        return self.error(503, detail="Service Unavailable", prefix=prefix, times=times)

    def gateway_timeout(self, *, prefix: str = "", times: int | None = None) -> Fault:
        """HTTP 504 whose body says "Gateway Timeout" (clients map "timeout" text to a timeout)."""
        return self.error(504, detail="Gateway Timeout", prefix=prefix, times=times)

    def rate_limited(
        self, retry_after: str | None = "30", *, prefix: str = "", times: int | None = None
    ) -> Fault:
        """HTTP 429 with a `Retry-After` header (omitted when `retry_after` is None)."""
        return self.error(
            429, detail="Too Many Requests", retry_after=retry_after, prefix=prefix, times=times
        )

    def slow(
        self,
        *,
        after_headers: bool = False,
        seconds: float | None = None,
        notice_hang_up: bool = False,
        prefix: str = "",
        times: int | None = None,
    ) -> Fault:
        """Hold matching requests until `release()`, `reset()` or the server stops.

        By default nothing is sent at all; with `after_headers=True` the status line
        and headers go out first and the body is held (a stalled download). Once
        released the request is answered normally, in case its client still waits.
        Use `wait_until_blocked()` to know a request has reached the switch.
        `seconds` lets go by itself after that long: a slow answer, not a stall. With
        `notice_hang_up=True` (nothing sent yet), a request whose client closes the
        connection is let go unanswered and counted (`wait_until_hung_up()`).
        """
        fault = Fault(
            SLOW, after_headers=after_headers, hold_for=seconds, notice_hang_up=notice_hang_up
        )
        return self._add(fault, prefix, times)

    def invalid_json(self, *, prefix: str = "", times: int | None = None) -> Fault:
        """HTTP 200 with `Content-Type: application/json` and a body that is not JSON."""
        body = b'{"results": [{"id": "755", "title": '
        headers = {"Content-Type": "application/json"}
        return self._add(Fault(INVALID_JSON, body=body, headers=headers), prefix, times)

    def oversized(
        self,
        *,
        content_length: bool = True,
        size: int = MAX_CLIENT_BODY + 4096,
        prefix: str = "",
        times: int | None = None,
    ) -> Fault:
        """HTTP 200 with a JSON body of `size` bytes (default: just over the 2 MiB cap).

        `content_length=False` sends it with chunked transfer encoding, so the client
        can only notice the size while reading.
        """
        fault = Fault(OVERSIZED, content_length=content_length, size=size)
        fault.headers = {"Content-Type": "application/json"}
        return self._add(fault, prefix, times)

    def drop_connection(self, *, prefix: str = "", times: int | None = None) -> Fault:
        """Read the request, then reset the connection without answering."""
        return self._add(Fault(DROP), prefix, times)

    def respond(
        self,
        status: int = 200,
        body: bytes | str = b"",
        *,
        headers: dict[str, str] | None = None,
        prefix: str = "",
        times: int | None = None,
    ) -> Fault:
        """Answer with exactly this status, body and headers (for odd shapes and headers).

        A `str` body is UTF-8 encoded; `Content-Type` defaults to `application/json`.
        """
        data = body.encode() if isinstance(body, str) else body
        merged = {"Content-Type": "application/json", **(headers or {})}
        return self._add(Fault(CUSTOM, status=status, body=data, headers=merged), prefix, times)

    def encoded(
        self,
        body: bytes | str,
        codings: str,
        *,
        precompressed: bool = False,
        status: int = 200,
        prefix: str = "",
        times: int | None = None,
    ) -> Fault:
        """Answer with `body` compressed by each of `codings` in turn (`"gzip, gzip"`).

        `Content-Encoding` says exactly `codings`. Names other than `gzip` and
        `deflate` go into the header only (an "unknown coding"). `precompressed`
        means `body` already carries the first coding, as a `compressed_zeros()`
        bomb does.
        """
        data = body.encode() if isinstance(body, str) else body
        names = [name.strip() for name in codings.split(",")]
        for name in names[1:] if precompressed else names:
            if name in CODINGS:
                data = _compress(data, name)
        return self.respond(
            status, data, headers={"Content-Encoding": codings}, prefix=prefix, times=times
        )

    def lying_length(
        self,
        body: bytes | str,
        declared: int,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        prefix: str = "",
        times: int | None = None,
    ) -> Fault:
        """Send `Content-Length: declared` but `body` as it is, then close the connection."""
        data = body.encode() if isinstance(body, str) else body
        merged = {"Content-Type": "application/json", **(headers or {})}
        fault = Fault(LYING_LENGTH, status=status, body=data, headers=merged, declared=declared)
        return self._add(fault, prefix, times)

    def old_server(self, *, prefix: str = "", times: int | None = None) -> Fault:
        """Answer normally but without `applied_filters` and the parameter-coverage fields."""
        return self._add(Fault(OLD_SERVER), prefix, times)

    def refuse_connections(self) -> None:
        """Close the listening socket so new connections are refused (whole server).

        Open keep-alive connections are shut too. `reset()` listens again on the same port.
        """
        if self._stop_listening is None:
            raise RuntimeError("faults are not attached to a running fake catalog")
        with self._lock:
            self._refusing = True
        self._stop_listening()

    # -- clearing -----------------------------------------------------------------

    def release(self) -> None:
        """Let every request held by a slow rule continue (the rules stay installed)."""
        with self._lock:
            self._release.set()
            self._release = threading.Event()
            for rule in self._rules:
                if rule.kind == SLOW:
                    rule.release = self._release

    def reset(self) -> None:
        """Remove every rule, release held requests, and listen again if refusing."""
        with self._lock:
            self._rules.clear()
            self._release.set()
            self._release = threading.Event()
            refusing, self._refusing = self._refusing, False
        if refusing and self._start_listening is not None:
            self._start_listening()

    # -- used by the server -------------------------------------------------------

    @property
    def refusing(self) -> bool:
        with self._lock:
            return self._refusing

    def take(self, path: str) -> Fault | None:
        """A copy of the oldest response-replacing rule matching `path`, consuming one use."""
        with self._lock:
            for rule in self._rules:
                if rule.kind != OLD_SERVER and rule.matches(path):
                    self._consume(rule)
                    # A snapshot, so a later release() cannot swap the event under us.
                    return replace(rule)
        return None

    def take_old_server(self, path: str) -> bool:
        """Whether the old-server rule applies to this request (consuming one use)."""
        with self._lock:
            for rule in self._rules:
                if rule.kind == OLD_SERVER and rule.matches(path):
                    self._consume(rule)
                    return True
        return False

    def _consume(self, rule: Fault) -> None:
        if rule.remaining is not None:
            rule.remaining -= 1
            if rule.remaining == 0:
                self._rules.remove(rule)

    def hold(
        self, fault: Fault, *, limit: float = 300.0, client: socket.socket | None = None
    ) -> bool:
        """Block the calling handler thread until the rule's release event is set.

        With `client`, the connection of the held request, and a rule that says
        `notice_hang_up`, the hold also ends when the client hangs up (it aborted the
        request): False then, and the request is counted in `hung_up`. `limit` only
        bounds a leaked thread if a test forgets to reset; the normal release paths
        are `release()`, `reset()` and stopping the server.
        """
        event = fault.release or self._release
        with self._lock:
            self._blocked += 1
            self._blocked_changed.notify_all()
        try:
            wait = limit if fault.hold_for is None else min(limit, fault.hold_for)
            if client is None or not fault.notice_hang_up:
                event.wait(wait)
                return True
            for _ in range(int(wait / _HANG_UP_CHECK)):
                if event.is_set():
                    return True
                seen = _client_side(client)
                if seen == "closed":
                    with self._lock:
                        self._hung_up += 1
                    return False
                if seen == "data":  # not a hang-up; no need to look again
                    event.wait(wait)
                    return True
            return True
        finally:
            with self._lock:
                self._blocked -= 1
                self._blocked_changed.notify_all()

    @property
    def hung_up(self) -> int:
        """How many held requests ended because their client closed the connection."""
        with self._lock:
            return self._hung_up

    def wait_until_hung_up(self, count: int, timeout: float = 10.0) -> bool:
        """Wait until at least `count` held requests saw their client hang up."""
        with self._blocked_changed:
            return self._blocked_changed.wait_for(lambda: self._hung_up >= count, timeout)

    @property
    def blocked(self) -> int:
        """How many requests are currently held by slow rules."""
        with self._lock:
            return self._blocked

    def wait_until_blocked(self, count: int = 1, timeout: float = 10.0) -> bool:
        """Wait until at least `count` requests are held; False if `timeout` passed first."""
        with self._blocked_changed:
            return self._blocked_changed.wait_for(lambda: self._blocked >= count, timeout)


_HANG_UP_CHECK = 0.05  # seconds between looks at a held request's connection


def _client_side(client: socket.socket) -> str:
    """Wait up to `_HANG_UP_CHECK` s for the client: "open", "closed" or "data" (it sent more)."""
    readable, _, _ = select.select([client], [], [], _HANG_UP_CHECK)
    if not readable:
        return "open"
    try:
        return "data" if client.recv(1, socket.MSG_PEEK) else "closed"
    except OSError:
        return "closed"


def _compress(data: bytes, coding: str) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, CODINGS[coding])
    return packer.compress(data) + packer.flush()


@functools.cache
def compressed_zeros(size: int, coding: str = "gzip") -> bytes:
    """`size` zero bytes compressed with `coding` (a decompression bomb), built once per
    process without compressing them all.

    1 GiB of zeros compresses to about 1 MB. After a full flush the compressor starts
    afresh, so every further 1 MiB of zeros compresses to the same bytes: the stream is
    the first piece, that block repeated, the rest and the end, with the trailer's
    checksum and length (which zlib computed over the pieces it saw) set for all of it.
    """
    piece = bytes(1024 * 1024)
    whole, rest = divmod(size, len(piece))
    packer = zlib.compressobj(9, zlib.DEFLATED, CODINGS[coding], 9, zlib.Z_RLE)
    if whole < 3:
        return packer.compress(bytes(size)) + packer.flush()
    first = packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH)
    assert again == block  # the premise above
    end = packer.compress(piece[:rest]) + packer.flush()
    if coding == "gzip":  # CRC-32 and length mod 2**32, little-endian
        crc = 0
        for _ in range(whole):
            crc = zlib.crc32(piece, crc)
        crc = zlib.crc32(piece[:rest], crc)
        trailer = struct.pack("<II", crc, size & 0xFFFFFFFF)
    else:  # zlib: Adler-32, big-endian
        adler = 1
        for _ in range(whole):
            adler = zlib.adler32(piece, adler)
        trailer = struct.pack(">I", zlib.adler32(piece[:rest], adler))
    return first + block * (whole - 1) + end[: -len(trailer)] + trailer
