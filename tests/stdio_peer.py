"""A raw-line MCP client for protocol tests: a child process driven over real pipes.

`StdioPeer` writes whatever bytes a test wants on the child's stdin and records every
byte the child writes on stdout, so a test can check the transcript as well as the
answers. Waiting is always for a message (or a stderr line), with a timeout that only
bounds a failing test; nothing sleeps.

`InProcessPeer` is the same client for a server served by `pwc_local.server.stdio.serve`
in a thread of the test process, over OS pipes: the same transport and SDK session
without a process start (about 1.5 s of CPU each, mostly importing the SDK), for tests
whose subject is the protocol rather than the process (no signals, exit status 0 when
the session ends normally, no stderr).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import logging
import os
import queue
import subprocess
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from pwc_local.logs import LOG_FORMAT

HANDSHAKE_TIMEOUT = 30.0  # generous: several engineers share two CPU cores
REPLY_TIMEOUT = 30.0


def opening(
    client: str, request_id: int = 1, version: str = "2025-11-25"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a client opens a session with: `initialize` (request `request_id`, as
    `client`), then the `notifications/initialized` it sends once that is answered."""
    initialize = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": client, "version": "0"},
        },
    }
    return initialize, {"jsonrpc": "2.0", "method": "notifications/initialized"}


def as_lines(*messages: Mapping[str, Any]) -> bytes:
    """`messages` as JSON-RPC lines, the way a client writes them on a server's stdin."""
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


class PeerError(AssertionError):
    """The child did not answer as a test expected."""


class StdioPeer:
    """Spawn `argv` with piped stdio and talk JSON-RPC to it line by line."""

    proc: subprocess.Popen[bytes] | _ServingThread

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None):
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
        )
        self._attach()

    def _attach(self) -> None:
        self.stdout_bytes = bytearray()
        self.messages: list[dict[str, Any]] = []  # everything received, in order
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stderr_lines: list[str] = []
        self._stderr_changed = threading.Condition()
        self._ids = itertools.count(1000)
        self._threads = [
            threading.Thread(target=self._pump_stdout, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # -- background readers --------------------------------------------------------------

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.stdout_bytes.extend(line)
            try:
                message = json.loads(line)
            except ValueError:
                message = {"unparseable": line.decode("utf-8", "replace")}
            self._inbox.put(message)
        self._inbox.put(None)  # end of stdout

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            with self._stderr_changed:
                self._stderr_lines.append(raw.decode("utf-8", "replace"))
                self._stderr_changed.notify_all()

    # -- sending -------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        """Write `data` as it is (add the newline yourself)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Mapping[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode("utf-8") + b"\n")

    def next_id(self) -> int:
        return next(self._ids)

    def send_request(
        self, method: str, params: Mapping[str, Any] | None = None, request_id: Any = None
    ) -> Any:
        """Send a request without waiting; returns its id."""
        request_id = self.next_id() if request_id is None else request_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.send(message)
        return request_id

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float = REPLY_TIMEOUT
    ) -> dict[str, Any]:
        """Send a request and return its response (result or error message)."""
        return self.response(self.send_request(method, params), timeout)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.send(message)

    def initialize(self, version: str = "2025-11-25") -> dict[str, Any]:
        """The handshake: `initialize`, then `notifications/initialized`."""
        request, initialized = opening("stdio-protocol-tests", version=version)
        reply = self.request("initialize", request["params"], timeout=HANDSHAKE_TIMEOUT)
        self.notify(initialized["method"])
        return reply

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    # -- receiving -----------------------------------------------------------------------

    def next_message(self, timeout: float = REPLY_TIMEOUT) -> dict[str, Any]:
        try:
            message = self._inbox.get(timeout=timeout)
        except queue.Empty:
            raise PeerError(f"no message within {timeout} s; stderr:\n{self.stderr}") from None
        if message is None:
            raise PeerError(f"stdout closed; stderr:\n{self.stderr}")
        self.messages.append(message)
        return message

    def response(self, request_id: Any, timeout: float = REPLY_TIMEOUT) -> dict[str, Any]:
        """Read messages until the response carrying `request_id` (None: an id-less error)."""
        while True:
            message = self.next_message(timeout)
            if "method" not in message and message.get("id", ...) == request_id:
                return message

    def notification(self, method: str, timeout: float = REPLY_TIMEOUT) -> dict[str, Any]:
        while True:
            message = self.next_message(timeout)
            if message.get("method") == method and "id" not in message:
                return message

    def rest(self, timeout: float = REPLY_TIMEOUT) -> list[dict[str, Any]]:
        """Every message still to come until stdout closes."""
        remaining = []
        while True:
            try:
                message = self._inbox.get(timeout=timeout)
            except queue.Empty:
                raise PeerError(f"stdout still open after {timeout} s") from None
            if message is None:
                return remaining
            self.messages.append(message)
            remaining.append(message)

    @property
    def stderr(self) -> str:
        with self._stderr_changed:
            return "".join(self._stderr_lines)

    def wait_for_stderr(self, text: str, timeout: float = REPLY_TIMEOUT) -> None:
        with self._stderr_changed:
            found = self._stderr_changed.wait_for(
                lambda: any(text in line for line in self._stderr_lines), timeout
            )
        if not found:
            raise PeerError(f"{text!r} not on stderr within {timeout} s; stderr:\n{self.stderr}")

    # -- ending --------------------------------------------------------------------------

    def finish(self, timeout: float = REPLY_TIMEOUT) -> int:
        """Close stdin, read stdout to its end and return the exit status."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.close_stdin()
        self.rest(timeout)
        return self.wait(timeout)

    def wait(self, timeout: float = REPLY_TIMEOUT) -> int:
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise PeerError(f"still running {timeout} s later; stderr:\n{self.stderr}") from None
        for thread in self._threads:
            thread.join(timeout)
        return status

    def kill(self) -> None:
        """Clean-up for a failed test: end the child if it is still running."""
        if self.proc.poll() is None:
            self.proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(REPLY_TIMEOUT)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def __enter__(self) -> StdioPeer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.kill()

    # -- transcript checks ---------------------------------------------------------------

    def assert_clean_transcript(self) -> None:
        """Every stdout byte belongs to a `\\n`-terminated JSON-RPC 2.0 message."""
        data = bytes(self.stdout_bytes)
        assert b"\r" not in data, "a line ending other than \\n"
        assert data.endswith(b"\n") or not data, "stdout ends inside a line"
        for number, line in enumerate(data.split(b"\n")[:-1], 1):
            try:
                message = json.loads(line)
            except ValueError:
                raise AssertionError(f"stdout line {number} is not JSON: {line[:200]!r}") from None
            assert_jsonrpc_message(message, where=f"stdout line {number}")


def assert_jsonrpc_message(message: Any, where: str = "message") -> None:
    """`message` is one JSON-RPC 2.0 request, notification, result or error."""
    assert isinstance(message, dict), f"{where}: not an object"
    assert message.get("jsonrpc") == "2.0", f"{where}: jsonrpc is not 2.0"
    if "method" in message:
        assert isinstance(message["method"], str), f"{where}: method is not a string"
        assert "result" not in message and "error" not in message, where
    else:
        assert "id" in message, f"{where}: a response without id"
        assert ("result" in message) != ("error" in message), f"{where}: result xor error"
        if "error" in message:
            error = message["error"]
            assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str)
    if "id" in message and message["id"] is not None:
        # An error may echo the fractional id a caller sent, refusing it (issue 34).
        echoed = "error" in message and type(message["id"]) is float
        assert type(message["id"]) in (int, str) or echoed, f"{where}: id is neither int nor string"


class _ServingThread:
    """`stdio.serve(server)` in a thread over OS pipes, standing in for a child process.

    `stdin`, `stdout` and `stderr` are the client's ends, as on a `Popen`; `stderr`
    carries the transport's log records (`pwc_local.server.stdio`, from level info, as
    the tiny server logs them), written while the session runs. The exit status is 0
    when `serve` returned, 1 when it raised (kept in `error`).
    """

    def __init__(self, server: Any, drain_timeout: float | None, handover: Any = None) -> None:
        to_server, self.stdin = _pipe()
        self.stdout, from_server = _pipe()
        self.stderr, log_out = _pipe()
        self._log_stream = io.TextIOWrapper(log_out, encoding="utf-8", line_buffering=True)
        self._handler = logging.StreamHandler(self._log_stream)
        self._handler.setFormatter(logging.Formatter(LOG_FORMAT))
        self._logger = logging.getLogger("pwc_local.server.stdio")
        self._level = self._logger.level
        self._logger.setLevel(logging.INFO)
        self._logger.addHandler(self._handler)
        self.returncode: int | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._serve,
            args=(server, drain_timeout, handover, to_server, from_server),
            daemon=True,
        )
        self._thread.start()

    def _serve(
        self, server: Any, drain_timeout: float | None, handover: Any, stdin: Any, stdout: Any
    ) -> None:
        import anyio

        from pwc_local.server import stdio

        options: dict[str, Any] = {"handover": handover}
        if drain_timeout is not None:
            options["drain_timeout"] = drain_timeout
        try:
            anyio.run(lambda: stdio.serve(server, stdin=stdin, stdout=stdout, **options))
            self.returncode = 0
        except BaseException as exc:
            self.error = exc
            self.returncode = 1
        finally:
            with contextlib.suppress(OSError):
                stdout.close()  # the client's end of stdout then reads EOF
            with contextlib.suppress(OSError):
                stdin.close()
            self._logger.removeHandler(self._handler)
            self._logger.setLevel(self._level)
            with contextlib.suppress(OSError):
                self._log_stream.close()  # and stderr's

    def wait(self, timeout: float | None = None) -> int:
        self._thread.join(timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired("stdio.serve", timeout or 0)
        return self.returncode

    def poll(self) -> int | None:
        return self.returncode

    def kill(self) -> None:
        """End the session the way a client can: close its stdin (the serve thread drains)."""
        with contextlib.suppress(OSError):
            self.stdin.close()

    def send_signal(self, signum: int) -> None:
        raise NotImplementedError("a server served in-process gets no signals")


def _pipe() -> tuple[Any, Any]:
    read, write = os.pipe()
    return open(read, "rb"), open(write, "wb")


class InProcessPeer(StdioPeer):
    """`StdioPeer` for `server` served in-process by `stdio.serve` (see the module doc).

    `handover`: what an early path read and did not answer (`server/early.py`).
    """

    def __init__(self, server: Any, *, drain_timeout: float | None = None, handover: Any = None):
        self.proc = _ServingThread(server, drain_timeout, handover)
        self._attach()
