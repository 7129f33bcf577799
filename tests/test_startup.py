"""The way to `initialize`: nothing on it that the handshake does not need.

Serving loads neither the tool table nor the output models before `initialize`;
the listing thread starts once the client says `notifications/initialized`, and
the garbage collector, held off while the modules load, is back on for serving.
Timing targets live in `benchmarks/run.py`; these tests check the mechanisms only.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from pwc_local.config import Settings
from pwc_local.server import app
from pwc_local.server.app import PwcServer, build_server

SETTINGS = Settings(api_url="http://127.0.0.1:9", tools="hosted")

# Loaded by the listing thread or the first tools/list or tools/call, never before.
AFTER_INITIALIZE = {
    "pwc_local.server.bindings",
    "pwc_local.present.library",
    "pwc_local.server.listing",
    "pwc_local.present.hosted",
    "pwc_local.present.projections",
    "pwc_local.present.reading",
    "pwc_local.server.tools",
}


@pytest.mark.e2e
def test_serving_loads_no_tool_table_or_output_models_before_initialize() -> None:
    script = (
        "import sys\n"
        "import pwc_local.cli, pwc_local.server.stdio\n"
        "from pwc_local.config import Settings\n"
        "from pwc_local.server.app import build_server\n"
        "server = build_server(Settings())\n"
        "server.prepare_after_initialize(lambda: 1 / 0)\n"  # never called before initialized
        "print(' '.join(sorted(sys.modules)))\n"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert "pwc_local.server.app" in loaded
    assert loaded & AFTER_INITIALIZE == set()


def _wire(tools: list[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


def test_the_listing_is_prepared_after_initialized_and_saved_for_the_next_server(
    tmp_path: Path,
) -> None:
    asked: list[int] = []

    def snapshot_dir() -> Path:
        asked.append(1)
        return tmp_path / "cache"

    first = build_server(SETTINGS)
    assert isinstance(first, PwcServer)
    first.prepare_after_initialize(snapshot_dir, tools=SETTINGS.tools)
    assert not first._background and not asked  # nothing runs before the session does

    async def session(server: PwcServer) -> list[Any]:
        async with Client(server, mode="legacy") as client:
            listed = (await client.list_tools()).tools
            answer = await client.call_tool("get_paper_info", {"paper": ""})
            assert answer.is_error  # answered by the registered tool, not "unknown tool"
            assert answer.content[0].text.startswith("Error executing tool get_paper_info:")
            return listed

    built = _wire(anyio.run(session, first))
    first.join_background(timeout=30)
    assert asked == [1]
    assert len(built) == 21 and first.tool_names == {tool["name"] for tool in built}
    (saved,) = (tmp_path / "cache").glob("tools-list-*.json")
    assert json.loads(saved.read_text())["tools"] == built

    second = build_server(SETTINGS)
    assert isinstance(second, PwcServer)
    second.prepare_after_initialize(snapshot_dir, tools=SETTINGS.tools)
    assert _wire(anyio.run(session, second)) == built  # from the snapshot
    second.join_background(timeout=30)
    # Listed from the snapshot: each registered on its first call or in the background.
    assert second.tool_names == first.tool_names


def test_a_first_tools_list_before_initialized_prepares_the_listing_itself(
    tmp_path: Path,
) -> None:
    server = build_server(SETTINGS)
    assert isinstance(server, PwcServer)
    server.prepare_after_initialize(lambda: tmp_path, tools=SETTINGS.tools)
    listed = anyio.run(server.list_tools)
    assert len(listed) == 21
    server.join_background(timeout=30)  # the snapshot being saved
    assert list(tmp_path.glob("tools-list-*.json"))


def test_serving_collects_garbage_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from pwc_local.server import stdio

    seen: list[bool] = []

    def run(server: Any, **options: Any) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(stdio, "run", run)
    gc.disable()  # as `pwc-mcp-local` does before loading the server
    try:
        assert app.run_stdio(SETTINGS) == 0
    finally:
        gc.unfreeze()  # this test process's objects are not start-up's
        gc.enable()
    assert seen == [True]


def test_the_warm_up_hands_out_the_runtime_before_loading_what_few_calls_need(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pwc_local import runtime as runtime_module
    from pwc_local.store.keys import load_keyring

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("PWC_MCP_CURSOR_KEY_CURRENT", raising=False)
    load_keyring(create=True)  # an existing key, which the warm-up loads
    settings = Settings(api_url="http://127.0.0.1:9", cache_dir=tmp_path / "cache")
    lazy = runtime_module.LazyRuntime(settings)
    handed_out: list[bool] = []
    finish = runtime_module.finish_runtime

    def finishing(runtime: runtime_module.Runtime) -> None:
        handed_out.append(anyio.run(lazy.get) is runtime)
        finish(runtime)

    monkeypatch.setattr(lazy, "_finisher", finishing)
    lazy.build_now()
    built = anyio.run(lazy.get)
    assert handed_out == [True]
    assert built.codec is not None
    assert "pwc_local.queries.reading" in sys.modules
    anyio.run(lazy.aclose)


def test_a_listed_server_registers_a_called_tool_first_and_the_rest_once_no_call_runs() -> None:
    # Registering all 33 tools is a twentieth of a second: with a listing in hand, a
    # call registers its own tool, and the preparation thread registers the others one
    # by one, only while no tool call is running (a fresh server's first call does not
    # share the interpreter with it).
    registered: list[tuple[str, ...] | None] = []

    def register(server: Any, names: Any) -> None:
        registered.append(None if names is None else tuple(names))
        server.tool_names.update(names or ())

    server = PwcServer(name="t", register_tools=register)
    listing = [{"name": name, "inputSchema": {"type": "object"}} for name in ("a", "b", "c")]
    server.prepare_now(listing=listing)
    server.join_background(30)
    assert registered == [(), ("a",), ("b",), ("c",)]  # the call path first, then each

    registered.clear()
    server = PwcServer(name="t", register_tools=register)
    waiting = threading.Event()

    class Watched(threading.Condition):
        def wait_for(self, predicate: Any, timeout: float | None = None) -> Any:
            if not predicate():
                waiting.set()
            return super().wait_for(predicate, timeout)

    server._calls_changed = Watched()
    server._count_call(1)  # a call is running
    server.prepare_now(listing=listing)
    assert waiting.wait(30)  # the preparation thread waits for the call
    server.ensure_tools("b")  # the call's tool, registered at once
    assert registered == [(), ("b",)]
    server._count_call(-1)
    server.join_background(30)
    assert registered == [(), ("b",), ("a",), ("c",)]
    server.ensure_tools("d")  # not listed: never registered
    assert server.tool_names == {"a", "b", "c"}
