"""The stdio wire, as a client sees it: framing, protocol errors, ids, EOF and signals.

Most tests spawn `stdio_tiny_server.py` (a small MCPServer served through
`pwc_local.server.stdio.run`) and talk raw lines to it: its tools hold a request in
flight for exactly as long as a test needs, or write to stdout the careless ways,
which the real server has no tool for. The ones about the installed `pwc-mcp-local`
take the `raw_peer` fixture. Tests about the protocol rather than the process
(version negotiation, `server/discover`) serve the same servers in-process over OS
pipes (`tests.stdio_peer.InProcessPeer`); each such behaviour is also seen once
through a spawned process. Every wait is for a protocol message or a log line on
stderr, bounded by a timeout that only matters when a test fails.
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import CONNECTION_CLOSED, JSONRPCResponse
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from pwc_local.server import stdio
from pwc_local.server.bindings import all_tools
from pwc_local.server.framing import (
    OVERSIZED_ANSWER,
    Accepted,
    Rejected,
    encode_message,
    inspect_line,
)
from pwc_local.server.lines import MAX_LINE_BYTES, LineSplitter, LineTooLong, iter_lines
from tests import stdio_tiny_server
from tests.fake_catalog import FakeCatalog
from tests.installed import InstalledServer
from tests.stdio_peer import InProcessPeer, StdioPeer, assert_jsonrpc_message

TOOLS = all_tools()

pytestmark = pytest.mark.slow  # a long file: starts first (conftest)

TINY_SERVER = [sys.executable, str(Path(__file__).with_name("stdio_tiny_server.py"))]
HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"]
# 2024-11-05 only while the SDK still negotiates it.
OLD_VERSIONS = [v for v in ["2024-11-05"] if v in HANDSHAKE_PROTOCOL_VERSIONS]

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


def request(request_id: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def call(name: str, arguments: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if meta:
        params["_meta"] = meta
    return params


# ---------------------------------------------------------------------------------------
# Pure parts: line splitting, judging a line, encoding a message.


class RecordingReader(io.BytesIO):
    """A BytesIO that remembers the largest chunk it ever handed out."""

    largest = 0

    def read1(self, size: int | None = -1) -> bytes:
        data = super().read1(size)
        self.largest = max(self.largest, len(data))
        return data


def shown(items: list[bytes | LineTooLong]) -> list[bytes | str]:
    return [item if isinstance(item, bytes) else "too long" for item in items]


def test_iter_lines_skips_an_oversized_line_without_holding_it() -> None:
    source = RecordingReader(b"short\n" + b"x" * 1_000_000 + b"\n" + b"exact-16-bytes!!\nlast")
    items = shown(list(iter_lines(source, LineSplitter(16))))
    assert items == [b"short\n", "too long", b"exact-16-bytes!!\n", b"last"]
    # The long line passed through in bounded reads: never more than one discard chunk.
    assert source.largest <= 64 * 1024


def test_iter_lines_at_and_just_over_the_limit() -> None:
    source = RecordingReader(b"z" * 10 + b"\n" + b"w" * 11 + b"\n" + b"v" * 11)
    items = shown(list(iter_lines(source, LineSplitter(10))))
    assert items == [b"z" * 10 + b"\n", "too long", "too long"]


def reference_lines(stream: bytes, limit: int) -> list[bytes | str]:
    """What splitting `stream` must give, written the obvious way (whole input in memory)."""
    pieces = stream.split(b"\n")
    lines: list[bytes | str] = []
    for index, piece in enumerate(pieces):
        last = index == len(pieces) - 1
        if last and not piece:
            break
        if len(piece) > limit:
            lines.append("too long")
        else:
            lines.append(piece if last else piece + b"\n")
    return lines


@pytest.mark.parametrize("seed", range(40))
def test_line_splitter_gives_the_same_lines_however_the_input_is_cut(seed: int) -> None:
    generator = random.Random(seed)
    limit = 12
    stream = b"".join(
        generator.choice([b"\n", b"x" * generator.randint(0, 30), b"ab", b"\n\n"])
        for _ in range(40)
    )
    splitter = LineSplitter(limit)
    lines: list[bytes | LineTooLong] = []
    position = 0
    while position < len(stream):
        size = generator.randint(1, 9)
        lines += splitter.feed(stream[position : position + size])
        position += size
        # Never more of a line held than the limit, however long the line.
        assert len(splitter._pending) <= limit
    lines += splitter.end()
    assert shown(lines) == reference_lines(stream, limit)


PROTOCOL_ERROR_CASES: list[tuple[str, bytes, int, Any]] = [
    ("not json", b"hello there", PARSE_ERROR, None),
    ("truncated json", b'{"jsonrpc":"2.0","id":1,', PARSE_ERROR, None),
    ("not utf-8", b'{"jsonrpc":"2.0","id":1,"method":"p\xffng"}', PARSE_ERROR, None),
    ("NaN is not json", b'{"jsonrpc":"2.0","id":1,"method":"ping","x":NaN}', PARSE_ERROR, None),
    # Valid JSON nested too deeply: its own id when it can be read (issue 34, F6).
    ("deep nesting", b"[" * 200_000 + b"]" * 200_000, INVALID_REQUEST, None),
    (
        "a deep request",
        b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"x","arguments":{"a":'
        + b"[" * 5_000
        + b"]" * 5_000
        + b"}}}",
        INVALID_REQUEST,
        11,
    ),
    (
        "a deep request, its id last",
        b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x","arguments":{"a":"]}",'
        + b'"b":'
        + b'[ {"k": ' * 5_000
        + b"1"
        + b"} ]" * 5_000
        + b'}},"id":"last"}',
        INVALID_REQUEST,
        "last",
    ),
    ("missing jsonrpc", b'{"id":3,"method":"ping"}', INVALID_REQUEST, None),
    ("jsonrpc 1.0", b'{"jsonrpc":"1.0","id":3,"method":"ping"}', INVALID_REQUEST, None),
    ("method not a string", b'{"jsonrpc":"2.0","id":3,"method":7}', INVALID_REQUEST, None),
    ("id an object", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', INVALID_REQUEST, None),
    ("id a boolean", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID_REQUEST, None),
    ("id a fraction", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', INVALID_REQUEST, 1.5),
    ("id null", b'{"jsonrpc":"2.0","id":null,"method":"ping"}', INVALID_REQUEST, None),
    ("a json number", b"42", INVALID_REQUEST, None),
    ("a batch", b'[{"jsonrpc":"2.0","id":3,"method":"ping"}]', INVALID_REQUEST, None),
    ("an empty batch", b"[]", INVALID_REQUEST, None),
    ("no method nor result", b'{"jsonrpc":"2.0","id":3}', INVALID_REQUEST, None),
    ("result and error", b'{"jsonrpc":"2.0","id":3,"result":{},"error":{}}', INVALID_REQUEST, None),
    ("params a string", b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"s"}', -32602, 4),
    ("params an array", b'{"jsonrpc":"2.0","id":"a","method":"ping","params":[]}', -32602, "a"),
    ("params null", b'{"jsonrpc":"2.0","id":5,"method":"ping","params":null}', -32602, 5),
    ("_meta a number", b'{"jsonrpc":"2.0","id":6,"method":"ping","params":{"_meta":5}}', -32602, 6),
    (
        "tool name not a string",
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":["echo"]}}',
        INVALID_PARAMS,
        7,
    ),
    (
        "tool name missing",
        b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":{}}}',
        INVALID_PARAMS,
        8,
    ),
    (
        "tool arguments not an object",
        b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":[1]}}',
        INVALID_PARAMS,
        9,
    ),
]


@pytest.mark.parametrize(
    ("raw", "code", "request_id"),
    [case[1:] for case in PROTOCOL_ERROR_CASES],
    ids=[case[0] for case in PROTOCOL_ERROR_CASES],
)
def test_inspect_line_answers_malformed_lines(raw: bytes, code: int, request_id: Any) -> None:
    verdict = inspect_line(raw + b"\n")
    assert isinstance(verdict, Rejected)
    assert (verdict.code, verdict.id) == (code, request_id)
    framed = json.loads(verdict.frame())
    assert framed == {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": verdict.message},
    }


@pytest.mark.parametrize(
    "raw",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo"}}',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"2.0","id":1,"result":{}}',
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"no"}}',
        b'\t{"jsonrpc":"2.0","id":1,"method":"x/custom","params":{"a":[1,2]}}\r\n',
    ],
)
def test_inspect_line_passes_valid_messages_unchanged(raw: bytes) -> None:
    verdict = inspect_line(raw)
    assert isinstance(verdict, Accepted)
    sent = json.loads(raw)
    assert verdict.message.model_dump(by_alias=True, exclude_unset=True) == sent


@pytest.mark.parametrize(
    "raw",
    [b"", b"\n", b"  \r\n", b'{"jsonrpc":"2.0","method":"notifications/initialized","params":7}'],
)
def test_inspect_line_ignores_blank_lines_and_unusable_notifications(raw: bytes) -> None:
    assert inspect_line(raw) is None


def test_encoded_messages_are_one_line_with_lf() -> None:
    message = JSONRPCResponse(jsonrpc="2.0", id=1, result={"text": "a\nb\r\u2028c\u2029\x85é"})
    data = encode_message(message)
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert b"\r" not in data
    assert data.decode("utf-8").splitlines() == [data.decode("utf-8").rstrip("\n")]
    assert json.loads(data)["result"]["text"] == "a\nb\r\u2028c\u2029\x85é"


def test_encoding_survives_lone_surrogates() -> None:
    message = JSONRPCResponse(jsonrpc="2.0", id=2, result={"path": "caf\udce9"})
    data = encode_message(message)
    assert json.loads(data)["result"]["path"] == "caf\udce9"
    assert data.endswith(b"\n") and data.count(b"\n") == 1


# ---------------------------------------------------------------------------------------
# serve() in-process, over explicit pipes.


def test_serve_over_explicit_streams_answers_every_line_and_returns_at_eof() -> None:
    server = MCPServer("in-process")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    to_server_r, to_server_w = os.pipe()
    from_server_r, from_server_w = os.pipe()
    with open(to_server_w, "wb") as client_out:
        client_out.write(line(init_request(1, "2025-06-18")))
        client_out.write(b"not json\n")
        client_out.write(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        client_out.write(line(request(2, "tools/call", call("add", {"a": 2, "b": 3}))))

    async def main() -> None:
        with open(to_server_r, "rb") as stdin, open(from_server_w, "wb") as stdout:
            await stdio.serve(server, stdin=stdin, stdout=stdout)

    anyio.run(main)
    with open(from_server_r, "rb") as client_in:
        transcript = client_in.read()
    # Answers may overtake each other (the guard answers bad lines itself at once).
    replies = {reply["id"]: reply for reply in map(json.loads, transcript.splitlines())}
    assert sorted(replies, key=str) == [1, 2, None]
    assert replies[1]["result"]["protocolVersion"] == "2025-06-18"
    assert replies[None]["error"]["code"] == PARSE_ERROR
    assert replies[2]["result"]["structuredContent"] == {"result": 5}


def test_a_crashed_handler_is_answered_with_internal_error_and_no_details() -> None:
    # The SDK's catch-all answer is code 0 (not a JSON-RPC code) with the exception text.
    server = MCPServer("in-process")

    @server.prompt()
    def broken(topic: str) -> str:
        raise RuntimeError(f"secret detail about {topic}")

    to_server_r, to_server_w = os.pipe()
    from_server_r, from_server_w = os.pipe()
    with open(to_server_w, "wb") as client_out:
        client_out.write(line(init_request(1, "2025-11-25")))
        client_out.write(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        client_out.write(line(request(2, "prompts/get", {"name": "broken", "arguments": {}})))
        client_out.write(
            line(request(3, "prompts/get", {"name": "broken", "arguments": {"topic": "x"}}))
        )
        client_out.write(line(request(4, "ping", {})))

    async def main() -> None:
        with open(to_server_r, "rb") as stdin, open(from_server_w, "wb") as stdout:
            await stdio.serve(server, stdin=stdin, stdout=stdout)

    anyio.run(main)
    with open(from_server_r, "rb") as client_in:
        replies = {reply["id"]: reply for reply in map(json.loads, client_in.read().splitlines())}
    for request_id in (2, 3):
        assert replies[request_id]["error"] == {"code": -32603, "message": "Internal error"}
    assert replies[4]["result"] == {}


def init_request(request_id: Any, version: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "0"},
        },
    }


# ---------------------------------------------------------------------------------------
# The tiny server over real pipes.


@pytest.fixture(scope="module")
def tiny() -> Iterator[StdioPeer]:
    """One initialised session shared by the error-table tests (each checks it survives)."""
    with StdioPeer(TINY_SERVER) as peer:
        peer.initialize()
        yield peer
        assert peer.finish() == 0
        peer.assert_clean_transcript()


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("raw", "code", "request_id"),
    [case[1:] for case in PROTOCOL_ERROR_CASES],
    ids=[case[0] for case in PROTOCOL_ERROR_CASES],
)
def test_malformed_line_is_answered_and_the_session_goes_on(
    tiny: StdioPeer, raw: bytes, code: int, request_id: Any
) -> None:
    tiny.send_raw(raw + b"\n")
    reply = tiny.response(request_id)
    assert reply["error"]["code"] == code
    assert reply["error"]["message"]
    assert tiny.request("ping")["result"] == {}


@pytest.mark.e2e
def test_unknown_method_is_method_not_found(tiny: StdioPeer) -> None:
    reply = tiny.request("papers/teleport", {})
    assert reply["error"]["code"] == METHOD_NOT_FOUND


@pytest.mark.e2e
def test_unknown_tool_is_an_error_result_naming_it(tiny: StdioPeer) -> None:
    reply = tiny.request("tools/call", call("no_such_tool"))
    assert reply["result"]["isError"] is True
    assert "no_such_tool" in reply["result"]["content"][0]["text"]


@pytest.mark.e2e
def test_notifications_get_no_answer(tiny: StdioPeer) -> None:
    tiny.notify("notifications/roots/list_changed")
    tiny.send_raw(b'{"jsonrpc":"2.0","method":"notifications/initialized","params":7}\n')
    request_id = tiny.send_request("ping")
    assert tiny.next_message() == {"jsonrpc": "2.0", "id": request_id, "result": {}}


@pytest.mark.e2e
def test_a_line_over_4_mib_is_refused_and_the_next_request_works(tiny: StdioPeer) -> None:
    huge = line(request(77, "tools/call", call("echo", {"text": "x" * (5 * 1024 * 1024)})))
    tiny.send_raw(huge)
    reply = tiny.response(None)
    assert reply["error"]["code"] == INVALID_REQUEST
    assert str(MAX_LINE_BYTES) in reply["error"]["message"]
    text = "y" * (MAX_LINE_BYTES - 200)  # a line just under the cap still goes through...
    reply = tiny.request("tools/call", call("echo", {"text": text}))
    # ... but its echo would be over the 2 MiB answer bound, so it is a tool error instead.
    assert reply["result"]["isError"] is True
    assert reply["result"]["content"][0]["text"] == f"Error executing tool echo: {OVERSIZED_ANSWER}"
    reply = tiny.request("tools/call", call("echo", {"text": "small"}))
    assert reply["result"]["structuredContent"] == {"result": "small"}
    assert all(message.get("id") != 77 for message in tiny.messages)


@pytest.mark.e2e
def test_stray_stdout_writes_and_children_cannot_touch_the_wire() -> None:
    with StdioPeer(TINY_SERVER) as peer:
        peer.initialize()
        reply = peer.request("tools/call", call("noisy"))
        assert reply["result"]["content"][0]["text"] == "child read b'' from stdin"
        assert peer.finish() == 0
        for how in ("print", "sys.stdout", "fd1", "child"):
            assert f"NOISE-FROM-A-TOOL {how}" in peer.stderr
        peer.assert_clean_transcript()
        assert peer.stdout_bytes.startswith(b'{"jsonrpc":"2.0","id":1000,')


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, *OLD_VERSIONS, "1999-01-01"])
def test_handshake_negotiates_each_version(version: str) -> None:
    # In-process; the `tiny` fixture and the installed-server tests shake hands over a
    # spawned process's pipes.
    expected = version if version in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    assert HANDSHAKE_VERSIONS[0] == LATEST_HANDSHAKE_VERSION
    assert set(HANDSHAKE_VERSIONS) <= set(HANDSHAKE_PROTOCOL_VERSIONS)
    with InProcessPeer(stdio_tiny_server.server) as peer:
        reply = peer.initialize(version)
        assert reply["result"]["protocolVersion"] == expected
        tools = peer.request("tools/list", {})
        assert {tool["name"] for tool in tools["result"]["tools"]} == {"echo", "hold", "noisy"}
        assert peer.finish() == 0
        peer.assert_clean_transcript()


def test_modern_discover_passes_the_guard() -> None:
    # In-process; `test_installed_server_in_the_modern_era` discovers over real pipes.
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    with InProcessPeer(stdio_tiny_server.server) as peer:
        reply = peer.request("server/discover", {"_meta": meta})
        assert "2026-07-28" in reply["result"]["supportedVersions"]
        assert peer.finish() == 0
        peer.assert_clean_transcript()


class Releaser:
    """The test's end of the `hold` tool: a loopback listener the tool connects to."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(30)  # bounds a failing test only
        self.port = self.listener.getsockname()[1]
        self.connections: list[socket.socket] = []

    def start(self, peer: StdioPeer, request_id: Any) -> None:
        """Call `hold` as `request_id`; return once the server reports it running."""
        token = f"hold-{request_id}"
        params = call("hold", {"port": self.port}, progressToken=token)
        peer.send_request("tools/call", params, request_id)
        while peer.notification("notifications/progress")["params"]["progressToken"] != token:
            pass
        self.connections.append(self.listener.accept()[0])

    def release(self) -> None:
        """Let the earliest held call finish."""
        connection = self.connections.pop(0)
        connection.sendall(b"!")
        connection.close()

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        self.listener.close()


@pytest.fixture
def releaser() -> Iterator[Releaser]:
    releaser = Releaser()
    yield releaser
    releaser.close()


def test_eof_with_a_request_in_flight_still_answers_it(releaser: Releaser) -> None:
    # In-process (the transport's drain); the installed server does it over real pipes
    # in `test_installed_server_answers_a_request_in_flight_at_eof`.
    with InProcessPeer(stdio_tiny_server.server) as peer:
        peer.initialize()
        releaser.start(peer, 5)
        peer.close_stdin()
        peer.wait_for_stderr("stdin closed")
        releaser.release()
        reply = peer.response(5)
        assert reply["result"]["structuredContent"] == {"result": "released"}
        assert peer.finish() == 0
        peer.assert_clean_transcript()


def test_eof_drain_is_bounded_and_still_answers(releaser: Releaser) -> None:
    # Never released: after the 1 s drain bound the SDK cancels the call, and the
    # client still gets an error answer for it rather than silence. In-process.
    with InProcessPeer(stdio_tiny_server.server, drain_timeout=1) as peer:
        peer.initialize()
        releaser.start(peer, 6)
        peer.close_stdin()
        reply = peer.response(6)
        assert reply["error"]["code"] == CONNECTION_CLOSED
        assert peer.finish() == 0
        assert "are cancelled" in peer.stderr
        peer.assert_clean_transcript()


@pytest.mark.e2e
def test_duplicate_id_is_refused_while_the_first_continues(
    tiny: StdioPeer, releaser: Releaser
) -> None:
    # On the shared session (which checks its exit status and transcript at the end),
    # with an id no other test there uses.
    peer = tiny
    seen = len(peer.messages)
    releaser.start(peer, 7007)
    peer.send_request("ping", None, 7007)
    refusal = peer.response(None)
    assert refusal["error"]["code"] == INVALID_REQUEST
    assert refusal["error"]["data"] == {"id": 7007}
    peer.send_request("ping", None, "7007")  # another id: JSON-RPC compares type and value
    assert peer.response("7007")["result"] == {}
    assert peer.request("ping")["result"] == {}
    releaser.release()
    assert peer.response(7007)["result"]["structuredContent"] == {"result": "released"}
    peer.send_request("ping", None, 7007)  # answered: the id is free again
    assert peer.response(7007)["result"] == {}
    assert peer.request("ping")["result"] == {}  # nothing else for 7007 came before this
    assert sum(1 for message in peer.messages[seen:] if message.get("id") == 7007) == 2


def test_cancelled_request_gets_no_answer_and_does_not_delay_exit(releaser: Releaser) -> None:
    # With a drain bound far beyond the wait below, ending at all proves the guard
    # stopped waiting for the cancelled request. In-process: the session's end is
    # `serve` returning.
    with InProcessPeer(stdio_tiny_server.server, drain_timeout=600) as peer:
        peer.initialize()
        releaser.start(peer, 9)
        peer.notify("notifications/cancelled", {"requestId": 9, "reason": "test"})
        assert peer.request("ping")["result"] == {}
        assert peer.request("tools/call", call("echo", {"text": "still here"}))["result"]
        assert peer.finish() == 0
        assert all(message.get("id") != 9 for message in peer.messages)
        peer.assert_clean_transcript()


@pytest.mark.e2e
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_ends_the_session_promptly_with_status_0(releaser: Releaser, signum: int) -> None:
    with StdioPeer([*TINY_SERVER, "--drain-timeout", "600"]) as peer:
        peer.initialize()
        releaser.start(peer, 3)
        peer.proc.send_signal(signum)
        assert peer.wait(timeout=15) == 0
        assert "Traceback" not in peer.stderr
        peer.assert_clean_transcript()


# ---------------------------------------------------------------------------------------
# The installed pwc-mcp-local.


def unused_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def check_handshake_and_listing(peer: StdioPeer, version: str) -> None:
    """Shake hands with `version`, list the tools; the session goes on."""
    expected = version if version in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION
    reply = peer.initialize(version)
    assert reply["result"]["protocolVersion"] == expected
    assert reply["result"]["instructions"]
    tools = peer.request("tools/list", {})["result"]["tools"]
    assert len(tools) == len(TOOLS)


def check_clean_end(peer: StdioPeer) -> None:
    """Exit status 0, and nothing but JSON-RPC on stdout from its first byte on."""
    assert peer.finish() == 0
    peer.assert_clean_transcript()
    assert peer.stdout_bytes.startswith(b'{"jsonrpc":"2.0","id":1000,')


@pytest.fixture(scope="module")
def our_server() -> Iterator[Any]:
    """The installed server's own build (`build_server`, prepared as `run_stdio` prepares
    it), for in-process sessions one after another; no catalog behind it."""
    from pwc_local.config import Settings
    from pwc_local.runtime import LazyRuntime, Runtime
    from pwc_local.server.app import PwcServer, build_server
    from tests.scripted_catalog import ScriptedCatalog

    settings = Settings(api_url=f"http://127.0.0.1:{unused_port()}/api/v1")
    runtime = LazyRuntime(settings, builder=lambda s: Runtime(s, ScriptedCatalog().client()))
    server = build_server(settings, runtime=runtime)
    assert isinstance(server, PwcServer)
    server.prepare_after_initialize()
    yield server
    server.join_background(timeout=30)


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, "1999-01-01"])
def test_our_server_negotiates_each_version(our_server: Any, version: str) -> None:
    # In-process; `test_installed_server_handshake_listing_and_protocol_error_table`
    # shakes hands and lists through the installed command.
    with InProcessPeer(our_server) as peer:
        check_handshake_and_listing(peer, version)
        check_clean_end(peer)


def test_installed_server_handshake_listing_and_protocol_error_table(
    raw_peer: StdioPeer, fake_catalog: FakeCatalog
) -> None:
    with raw_peer as peer:
        check_handshake_and_listing(peer, LATEST_HANDSHAKE_VERSION)
        for name, raw, code, request_id in PROTOCOL_ERROR_CASES:
            peer.send_raw(raw + b"\n")
            reply = peer.response(request_id)
            assert reply["error"]["code"] == code, name
            assert peer.request("ping")["result"] == {}, name
        assert peer.request("papers/teleport", {})["error"]["code"] == METHOD_NOT_FOUND
        unknown = peer.request("tools/call", call("no_such_tool"))["result"]
        assert unknown["isError"] is True and "no_such_tool" in unknown["content"][0]["text"]
        fake_catalog.faults.refuse_connections()
        unreachable = peer.request("tools/call", call("search_papers", {"query": "x"}))["result"]
        assert unreachable["isError"] is True
        check_clean_end(peer)


def test_installed_server_answers_a_request_in_flight_at_eof(
    installed_server: InstalledServer, fake_catalog: FakeCatalog
) -> None:
    # The catalog holds the search until stdin is closed, then answers: within the
    # drain bound, so the answer is written before the server exits. (A call still
    # stuck at the bound: tests/test_cancellation_e2e.py.)
    fake_catalog.faults.slow(times=1)
    with installed_server.peer("--log-level", "info") as peer:
        peer.initialize()
        request_id = peer.send_request("tools/call", call("search_papers", {"query": "x"}))
        assert fake_catalog.faults.wait_until_blocked(1, timeout=30)
        peer.close_stdin()
        peer.wait_for_stderr("stdin closed")
        fake_catalog.faults.release()
        reply = peer.response(request_id)
        assert reply["result"]["isError"] is False
        assert peer.finish() == 0
        peer.assert_clean_transcript()


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": 1.5, "result": {}},
        {"id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}},
    ],
)
def test_the_transcript_check_can_fail(message: dict[str, Any]) -> None:
    # Most tests lean on this check; it must be able to say no.
    with pytest.raises(AssertionError):
        assert_jsonrpc_message(message)


def test_installed_server_in_the_modern_era(raw_peer: StdioPeer) -> None:
    """protocol.md "Versions": discover, per-request `_meta`, -32022 for unknown versions."""

    def meta(version: str) -> dict[str, Any]:
        return {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        }

    with raw_peer as peer:
        found = peer.request("server/discover", {"_meta": meta("2026-07-28")})["result"]
        assert "2026-07-28" in found["supportedVersions"]
        assert found["instructions"]
        # Nothing we list ever changes while serving, and no resource is live.
        capabilities = found["capabilities"]
        assert capabilities["tools"]["listChanged"] is False
        assert capabilities["resources"] == {"listChanged": False, "subscribe": False}
        listed = peer.request("tools/list", {"_meta": meta("2026-07-28")})["result"]
        assert len(listed["tools"]) == len(TOOLS)
        assert listed["resultType"] == "complete"
        # The modern era has no ping; the transport answers pings in the handshake era only.
        assert peer.request("ping", {"_meta": meta("2026-07-28")})["error"]["code"] == -32601
        refused = peer.request("tools/list", {"_meta": meta("2099-01-01")})["error"]
        assert refused["code"] == -32022
        assert refused["data"]["requested"] == "2099-01-01"
        assert "2026-07-28" in refused["data"]["supported"]
        assert peer.finish() == 0
        peer.assert_clean_transcript()
