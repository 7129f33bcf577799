"""The early answers (`pwc_local/server/early.py`, `launch.py`): what a fresh server says
before the SDK has loaded is what the full server says, byte for byte.

* `early.json` is current: regenerating it from this tree gives the committed file.
* Parity: for the default profile, the hosted one and a named tool list, in both
  eras, each early answer equals the full server's answer to the same line (the full
  server here is `build_server` served in-process by the real transport).
* The loading phase itself, with a loader the test releases: the handshake and the
  listing are answered while the server is still "loading" (no race), and what was
  queued (a tool call written in the same write) is answered once by the full
  transport after the handover, nothing twice.
* A client whose `server/discover` probe came first falls back to `initialize` on the
  same process and is connected (Claude Code does this when its probe times out).
* The installed command: the same, end to end, and EOF, SIGINT and SIGTERM right
  after the first answer end it with status 0 and no traceback.
"""

from __future__ import annotations

import json
import os
import signal
import site
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pwc_local.config import Settings
from pwc_local.server import early, launch
from pwc_local.server.app import build_server
from pwc_local.server.lines import LineSplitter
from tests.fake_catalog import FakeCatalog
from tests.installed import EXECUTABLE, InstalledServer
from tests.stdio_peer import InProcessPeer, StdioPeer, as_lines, opening

ENVELOPE = {
    "_meta": {
        early.VERSION_KEY: "2026-07-28",
        early.CAPABILITIES_KEY: {},
        early.CLIENT_INFO_KEY: {"name": "probe", "version": "1"},
    }
}
LISTINGS = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]
CASES = {
    "default": {},
    "hosted": {"tools": "hosted"},
    "named": {"tools": "search_papers,get_benchmark,whats_new"},
    "all-hosted-shapes": {"structured": "hosted"},
}


LOCAL_GROUPS = ("library", "reading", "watch", "history")


def request(request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def handshake_script(version: str) -> list[dict[str, Any]]:
    initialize, initialized = opening("parity", 1, version)
    listings = [request(2 + i, method) for i, method in enumerate(LISTINGS)]
    # The first listing comes before `initialized`, as pipelining clients send it.
    return [initialize, listings[0], initialized, *listings[1:], request(9, "ping")]


def modern_script() -> list[dict[str, Any]]:
    methods = ["server/discover", *LISTINGS]
    return [request(1 + i, method, ENVELOPE) for i, method in enumerate(methods)]


def raw_answers(peer: StdioPeer, script: list[dict[str, Any]]) -> dict[Any, bytes]:
    """The full server's answer lines to `script`, by request id, as written."""
    for message in script:
        peer.send(message)
        if "id" in message:
            peer.response(message["id"])
    lines = bytes(peer.stdout_bytes).splitlines(keepends=True)
    return {json.loads(line)["id"]: line for line in lines}


def run_python(
    code: str, tmp_path: Path, *flags: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`code` run by a fresh interpreter (with `flags`), its home in `tmp_path`, the
    catalog unreachable; it must exit 0."""
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env["PWC_API_URL"] = "http://127.0.0.1:9/api/v1"
    done = subprocess.run(
        [sys.executable, *flags, "-c", code],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done


def settings_for(tmp_path: Path, **values: str) -> Settings:
    return Settings(api_url="http://127.0.0.1:9/api/v1", cache_dir=tmp_path / "cache", **values)


@pytest.mark.e2e
def test_early_json_is_current() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pwc_local.server.early_build", "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("era", ["2025-11-25", "2025-03-26", "1999-01-01", "modern"])
def test_early_answers_equal_the_full_servers(tmp_path: Path, case: str, era: str) -> None:
    settings = settings_for(tmp_path, **CASES[case])
    script = modern_script() if era == "modern" else handshake_script(era)
    answers = early.load(settings)
    assert answers is not None
    said = {m["id"]: answers.take(json.dumps(m).encode() + b"\n") for m in script if "id" in m}
    with InProcessPeer(build_server(settings)) as peer:
        full = raw_answers(peer, script)
    assert said == full


def test_what_the_early_path_cannot_answer_is_queued(tmp_path: Path) -> None:
    answers = early.load(settings_for(tmp_path))
    assert answers is not None
    initialize, _ = opening("queue")
    take = [
        b"not json\n",  # the full transport answers -32700
        json.dumps(request(5, "tools/list")).encode(),  # before any initialize
    ]
    assert [answers.take(line) for line in take] == [None, None]
    # Once a line is queued before the era is decided, the full server decides it.
    assert answers.take(json.dumps(initialize).encode()) is None
    assert answers.replay == []


def test_a_replayed_answer_that_differs_is_reported(tmp_path: Path) -> None:
    # The SDK's own answer to the replayed initialize is compared with the early one.
    settings = settings_for(tmp_path)
    answers = early.load(settings)
    assert answers is not None
    initialize, _ = opening("replayed")
    sent = answers.take(json.dumps(initialize).encode())
    assert sent is not None
    for told, warned in ((sent, False), (sent.replace(b"pwc-local", b"pwc-other"), True)):
        handover = early.Handover(replay=[(initialize, told)], era=True, early=answers)
        with InProcessPeer(build_server(settings), handover=handover) as peer:
            assert peer.request("tools/list")["result"]["tools"]
            peer.close_stdin()
            assert peer.wait() == 0
            assert ("early.json is stale" in peer.stderr) is warned


def test_a_request_reusing_a_queued_id_waits_for_the_full_server(tmp_path: Path) -> None:
    answers = early.load(settings_for(tmp_path))
    assert answers is not None
    initialize, _ = opening("ids")
    assert answers.take(json.dumps(initialize).encode()) is not None
    call = request(7, "tools/call", {"name": "list_library", "arguments": {}})
    assert answers.take(json.dumps(call).encode()) is None
    assert answers.take(json.dumps(request(7, "tools/list")).encode()) is None
    assert answers.take(json.dumps(request("7", "tools/list")).encode()) is not None


def test_a_stale_or_foreign_file_is_not_used(tmp_path: Path) -> None:
    data = json.loads(Path(early.DATA_FILE).read_bytes())
    data["sdk"] = {"mcp": "0.0.1"}
    foreign = tmp_path / "early.json"
    foreign.write_text(json.dumps(data))
    with pytest.raises(early.Unusable, match="another version of the MCP SDK"):
        early.load(settings_for(tmp_path), str(foreign))
    with pytest.raises(early.Unusable, match=r"cannot read missing\.json \(FileNotFoundError\)"):
        early.load(settings_for(tmp_path), str(tmp_path / "missing.json"))


@pytest.mark.e2e
def test_without_a_usable_early_json_the_server_says_why_once_and_answers(
    tmp_path: Path,
) -> None:
    # Never wrong, only slower: the full server answers, and stderr has one line why.
    code = (
        "import sys\n"
        "from pwc_local.server import early\n"
        f"early.DATA_FILE = {str(tmp_path / 'early.json')!r}\n"
        "sys.argv = ['pwc-mcp-local']\n"
        "from pwc_local.entry import main\n"
        "main()\n"
    )
    first = json.dumps(opening("fallback", 1, "2025-11-25")[0]) + "\n"
    done = run_python(code, tmp_path, stdin=first)
    assert json.loads(done.stdout)["result"]["protocolVersion"] == "2025-11-25"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert (
        "WARNING" in lines[0]
        and "starting without early answers: cannot read early.json" in lines[0]
    )
    assert "(FileNotFoundError); the first answer is slower" in lines[0]


def test_the_loaded_server_lists_the_early_tools_and_generates_no_schema(
    tmp_path: Path, fake_catalog: FakeCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK never lists what the early path listed, so the server saved no snapshot
    # and generated every compact output schema again on each start (a tenth of a
    # second of the first call): the loader now hands it the early answers' tools.
    from pwc_local.server import listing
    from pwc_local.server.app import preparation

    settings = Settings(api_url=fake_catalog.api_url, cache_dir=tmp_path / "cache")
    answers = early.load(settings)
    assert answers is not None

    def generated(*_: Any) -> None:
        raise AssertionError("an output schema was generated")

    monkeypatch.setattr(listing, "output_schema", generated)
    server = build_server(settings)
    server.prepare_now(**preparation(settings), listing=answers.tools())
    server.join_background(30)
    with InProcessPeer(server) as peer:
        peer.initialize()
        listed = peer.request("tools/list")["result"]["tools"]
        call = {"name": "get_task", "arguments": {"task": "ocr"}}
        answer = peer.request("tools/call", call)["result"]
    assert listed == answers.tools()
    assert answer["isError"] is False and answer["structuredContent"]


def test_a_listed_server_registers_the_listed_tools_and_no_other(
    tmp_path: Path, fake_catalog: FakeCatalog
) -> None:
    # With the early listing, tools are registered with the SDK one by one, each on its
    # first call or in the background (`test_startup` has the order); a tool the
    # listing leaves out never is, and calling it is an unknown tool.
    from pwc_local.server.app import preparation

    tools = "get_task,get_method,watch"
    settings = Settings(api_url=fake_catalog.api_url, cache_dir=tmp_path / "cache", tools=tools)
    answers = early.load(settings)
    server = build_server(settings)
    server.prepare_now(**preparation(settings), listing=answers.tools())

    def call(name: str, **arguments: Any) -> dict[str, Any]:
        message = peer.request("tools/call", {"name": name, "arguments": arguments})
        result: dict[str, Any] = message["result"]
        return result

    with InProcessPeer(server) as peer:
        peer.initialize()
        assert call("get_task", task="ocr")["isError"] is False
        refused = call("get_method", method="adam", page=2)  # refused by its own schema
        assert refused["isError"] and "page" in refused["content"][0]["text"]
        left_out = call("search_papers", query="ocr")
        assert left_out["isError"] and "unknown tool" in left_out["content"][0]["text"].lower()
        server.join_background(30)
        assert server.tool_names == {"get_task", "get_method", "watch"}
        listed = peer.request("tools/list")["result"]["tools"]
    assert listed == answers.tools() and len(listed) == 3


@pytest.mark.e2e
def test_a_first_call_imports_only_its_own_groups_bindings(tmp_path: Path) -> None:
    # Built as the loader builds it, a server's first call to a hosted tool imports the
    # hosted group's bindings alone: not the library's, reading's, watch list's or
    # history's, nor their query modules (a tenth of the first call's CPU).
    code = (
        "import sys, anyio\n"
        "from pwc_local.config import Settings\n"
        "from pwc_local.server import early\n"
        "from pwc_local.server.app import PwcServer, build_server, preparation\n"
        f"settings = Settings(api_url='http://127.0.0.1:9/api/v1', cache_dir={str(tmp_path)!r})\n"
        # What the call itself loads: not the preparation thread's registration of the
        # other tools, which waits for a running call (test_startup).
        "PwcServer._prepare_rest = lambda self, prepare: None\n"
        "server = build_server(settings)\n"
        "server.prepare_now(**preparation(settings), listing=early.load(settings).tools())\n"
        "server.join_background(30)\n"
        "try:\n"
        "    anyio.run(server.call_tool, 'get_paper_info', {'paper': '1706.03762'})\n"
        "except Exception as exc:\n"  # nothing listens at that port: an upstream error
        "    assert 'upstream_error' in str(exc), exc\n"
        "print(' '.join(m for m in sys.modules if m.startswith('pwc_local')))\n"
    )
    loaded = set(run_python(code, tmp_path).stdout.split())
    assert "pwc_local.server.bindings.hosted" in loaded
    others = {f"pwc_local.server.bindings.{group}" for group in LOCAL_GROUPS}
    others |= {"pwc_local.queries.claims", "pwc_local.queries.history", "pwc_local.queries.looks"}
    others |= {"pwc_local.present.watch", "pwc_local.present.history", "pwc_local.present.claims"}
    assert loaded & others == set()


class HeldLoader:
    """A loader the test releases: the server is "loading" until `release()`."""

    def __init__(self, settings: Settings) -> None:
        self.server = build_server(settings)
        self.failure: BaseException | None = None
        self.done = threading.Event()
        self.wake, self._wake_write = os.pipe()

    def release(self) -> None:
        self.done.set()
        os.write(self._wake_write, b"!")

    def close(self) -> None:
        os.close(self.wake)
        os.close(self._wake_write)


class Pipe:
    """What `_answer_while_loading` reads of a claimed descriptor: its private fd."""

    def __init__(self, private: int) -> None:
        self.private = private


@pytest.fixture
def loading(tmp_path: Path, fake_catalog: FakeCatalog) -> Iterator[dict[str, Any]]:
    settings = Settings(api_url=fake_catalog.api_url, cache_dir=tmp_path / "cache")
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    loader = HeldLoader(settings)
    answers = early.load(settings)
    assert answers is not None
    result: dict[str, Any] = {}

    def answer() -> None:
        claimed = [Pipe(stdin_read), Pipe(stdout_write)]
        result["handover"] = launch._answer_while_loading(answers, claimed, loader)  # type: ignore[arg-type]

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    reader = open(stdout_read, "rb")  # noqa: SIM115  # closed below
    open_fds = {stdin_read, stdin_write, stdout_write}

    def end_input() -> None:
        os.close(stdin_write)
        open_fds.discard(stdin_write)

    yield {
        "write": lambda data: os.write(stdin_write, data),
        "end_input": end_input,
        "readline": reader.readline,
        "loader": loader,
        "thread": thread,
        "result": result,
    }
    reader.close()
    for fd in open_fds:
        os.close(fd)


def test_a_call_in_the_handshakes_write_is_answered_once_after_loading(
    loading: dict[str, Any],
) -> None:
    initialize, initialized = opening("one-write")
    call = request(3, "tools/call", {"name": "get_task", "arguments": {"task": "ocr"}})
    loading["write"](as_lines(initialize, initialized, call, request(2, "tools/list")))
    # Answered while the server is still loading: the loader has not been released.
    first, second = (json.loads(loading["readline"]()) for _ in range(2))
    assert (first["id"], second["id"]) == (1, 2)
    assert first["result"]["serverInfo"]["name"] == "pwc-local"
    assert len(second["result"]["tools"]) > 21
    loading["loader"].release()
    loading["thread"].join(timeout=30)
    handover = loading["result"]["handover"]
    assert [json.loads(line)["id"] for line in handover.lines if b'"id"' in line] == [3]
    assert [m["method"] for m, _ in handover.replay] == ["initialize"]
    assert handover.era is True
    with InProcessPeer(loading["loader"].server, handover=handover) as peer:
        answer = peer.response(3)["result"]
        assert answer["isError"] is False and '"ocr"' in json.dumps(answer["structuredContent"])
        peer.close_stdin()
        rest = peer.rest()
    # Nothing else was answered: not the replayed initialize, not the call again.
    assert [m for m in rest if "id" in m] == []


def test_end_of_input_with_a_call_queued_waits_for_the_server(loading: dict[str, Any]) -> None:
    initialize, initialized = opening("eof")
    call = request(3, "tools/call", {"name": "get_task", "arguments": {"task": "ocr"}})
    loading["write"](as_lines(initialize, initialized, call))
    assert json.loads(loading["readline"]())["id"] == 1
    loading["end_input"]()
    # Still loading: end of input with a call queued does not end the process.
    assert loading["thread"].is_alive()
    loading["loader"].release()
    loading["thread"].join(timeout=30)
    handover = loading["result"]["handover"]
    # (What the loop read before the release is up to the scheduler: the rest, and the
    # end of input, the full transport reads itself.)
    assert handover is not None
    # The drain bound is not the subject here (and a loaded machine may take longer).
    with InProcessPeer(loading["loader"].server, handover=handover, drain_timeout=60) as peer:
        answer = peer.response(3)["result"]
        assert answer["isError"] is False and '"ocr"' in json.dumps(answer["structuredContent"])
        if not handover.ended:
            # The early loop was released before it read the end: in a process the full
            # transport reads it from the same pipe; the peer's pipe is a new one.
            peer.close_stdin()
        assert peer.wait() == 0


def test_a_discover_probe_then_initialize_connects_after_loading(tmp_path: Path) -> None:
    # The full transport keeps answering the probe early while no request decided the
    # era, so the fallback initialize reaches the SDK first (no -32022 refusal).
    settings = settings_for(tmp_path)
    answers = early.load(settings)
    assert answers is not None
    handover = early.Handover(splitter=LineSplitter(), early=answers)
    with InProcessPeer(build_server(settings), handover=handover) as peer:
        probe = peer.request("server/discover", ENVELOPE)
        assert probe["result"]["supportedVersions"] == ["2026-07-28"]
        connected = peer.initialize()["result"]
        assert connected["protocolVersion"] == "2025-11-25"
        assert peer.request("tools/list")["result"]["tools"]


def installed(tmp_path: Path, **settings: str) -> StdioPeer:
    return StdioPeer([str(EXECUTABLE)], InstalledServer(tmp_path, **settings).env)


@pytest.mark.e2e
def test_the_installed_server_answers_a_probe_then_the_fallback(tmp_path: Path) -> None:
    with installed(tmp_path) as peer:
        probe = peer.request("server/discover", ENVELOPE)
        assert probe["result"]["resultType"] == "complete"
        assert peer.initialize()["result"]["protocolVersion"] == "2025-11-25"
        listed = peer.request("tools/list")["result"]["tools"]
        called = peer.request("tools/call", {"name": "list_library", "arguments": {}})
        assert listed and called["result"]["isError"] is False
        peer.assert_clean_transcript()


@pytest.mark.e2e
def test_the_installed_server_answers_a_whole_session_written_at_once(
    tmp_path: Path, fake_catalog: FakeCatalog
) -> None:
    initialize, initialized = opening("one-write")
    call = request(3, "tools/call", {"name": "get_task", "arguments": {"task": "ocr"}})
    with installed(tmp_path / "home", PWC_API_URL=fake_catalog.api_url) as peer:
        peer.send_raw(as_lines(initialize, initialized, request(2, "tools/list"), call))
        answers = {message["id"]: message for message in (peer.next_message() for _ in range(3))}
        assert sorted(answers) == [1, 2, 3]
        assert answers[3]["result"]["isError"] is False
        peer.close_stdin()
        assert peer.wait() == 0
        assert len(peer.messages) == 3  # and nothing answered twice


@pytest.mark.e2e
@pytest.mark.parametrize("ending", ["eof", "SIGINT", "SIGTERM"])
def test_ending_while_loading_is_clean(tmp_path: Path, ending: str) -> None:
    with installed(tmp_path) as peer:
        peer.initialize()
        if ending == "eof":
            peer.close_stdin()
        else:
            peer.proc.send_signal(getattr(signal, ending))
        assert peer.wait() == 0
        assert "Traceback" not in peer.stderr


@pytest.mark.e2e
def test_the_serving_path_imports_nothing_heavy_before_its_first_answer(tmp_path: Path) -> None:
    # What `entry.main` runs on its way to the first answer, in a fresh interpreter
    # without `site` (whose `.pth` files, an editable install's among them, import
    # modules of their own): none of the third-party packages may be loaded, nor the
    # standard library's slow ones: OpenSSL's `_hashlib` behind `secrets` (15 ms),
    # `logging` (15 ms), `dataclasses` with `inspect` (15 ms), `pathlib`, `typing`.
    heavy = {"click", "pydantic", "pydantic_core", "httpx", "mcp", "mcp_types", "anyio"}
    heavy |= {"secrets", "_hashlib", "decimal", "logging", "dataclasses", "inspect"}
    heavy |= {"pathlib", "typing"}
    import pwc_local

    places = [str(Path(pwc_local.__file__).parents[1]), *site.getsitepackages()]
    first = json.dumps(opening("first", 1, "2025-11-25")[0])
    code = (
        f"import sys; sys.path[:0] = {places!r}; before = set(sys.modules)\n"
        "from pwc_local.entry import serving_flags\n"
        "from pwc_local.config import load_settings\n"
        "from pwc_local.server import early, launch, leaving\n"
        "leaving.quit_on_signals()\n"
        "settings = load_settings(serving_flags([]))\n"
        "launch.open_log(settings)\n"
        f"assert early.load(settings).take({first.encode()!r}) is not None\n"
        "loaded = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        f"print(sorted(loaded & {heavy!r}))"
    )
    assert run_python(code, tmp_path, "-S").stdout.strip() == "[]"
