"""The start-up path: compact listing built off the critical path, runtime warmed after
`notifications/initialized`, no certificates for a plain-http catalog.

Timing targets live in `benchmarks/run.py`; these tests check the mechanisms only.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import ListToolsResult

from pwc_local.config import Settings
from pwc_local.contract import names
from pwc_local.present.hosted import PaperInfoResult
from pwc_local.runtime import LazyRuntime, Runtime
from pwc_local.server.app import PwcServer, build_server
from pwc_local.server.listing import compact_output_schema, snapshot_path
from pwc_local.upstream.http import HttpCatalog, tls_verification
from tests.scripted_catalog import ScriptedCatalog
from tests.test_errors import FRAMEWORKS

SETTINGS = Settings(api_url="http://127.0.0.1:9")
HOSTED = Settings(api_url="http://127.0.0.1:9", tools="hosted")


def catalog_of_frameworks() -> HttpCatalog:
    """A real `HttpCatalog` over the scripted catalog, answering `frameworks/`."""
    return ScriptedCatalog().on("frameworks/", FRAMEWORKS).client()


def serving(runtime: LazyRuntime) -> PwcServer:
    """A server set up as `run_stdio` sets it up: everything prepared after `initialized`."""
    server = build_server(SETTINGS, runtime=runtime)
    assert isinstance(server, PwcServer)
    server.prepare_after_initialize()
    return server


def test_the_runtime_is_built_after_initialized_without_any_tool_call() -> None:
    built = threading.Event()
    catalog = catalog_of_frameworks()

    def builder(settings: Settings) -> Runtime:
        built.set()
        return Runtime(settings, catalog)

    runtime = LazyRuntime(SETTINGS, builder=builder)
    server = serving(runtime)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            await client.list_tools()
            assert await anyio.to_thread.run_sync(built.wait, 30)
            assert not (await client.call_tool("list_frameworks", {})).is_error

    anyio.run(main)
    server.join_background(timeout=30)
    assert catalog._client.is_closed


def test_a_failed_warm_up_is_retried_by_the_first_call() -> None:
    attempts: list[int] = []
    failed = threading.Event()
    catalog = catalog_of_frameworks()

    def builder(settings: Settings) -> Runtime:
        attempts.append(1)
        if len(attempts) == 1:
            failed.set()
            raise OSError("cache directory missing")
        return Runtime(settings, catalog)

    runtime = LazyRuntime(SETTINGS, builder=builder)
    server = serving(runtime)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            assert await anyio.to_thread.run_sync(failed.wait, 30)
            while runtime._pending is not None:  # the failed build is being forgotten
                await anyio.lowlevel.checkpoint()
            assert not (await client.call_tool("list_frameworks", {})).is_error

    anyio.run(main)
    server.join_background(timeout=30)
    assert len(attempts) == 2


def _listing_bytes(settings: Settings) -> int:
    """The `tools/list` answer for `settings` as compact JSON, in bytes."""
    server = build_server(settings)
    assert isinstance(server, PwcServer)
    listed = anyio.run(server.list_tools)
    wire = ListToolsResult(tools=listed).model_dump(mode="json", by_alias=True, exclude_none=True)
    answer = {"jsonrpc": "2.0", "id": 1, "result": wire}
    return len(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode())


def test_the_default_listing_fits_its_budget() -> None:
    # Every tool the default profile serves (hosted, library, reading, watch, history) is
    # paid in every conversation: 26,000 bytes for the 29 before issue 29 (issue 20;
    # 28,247 for 27 before it), 27,000 with issue 29's sota_history and who_beat_paper,
    # 28,000 with a bound on every string (issue 34) and issue 37's results_table and
    # check_claim.
    assert _listing_bytes(SETTINGS) <= 28_000


def test_the_view_metadata_costs_at_most_300_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 36: `_meta.ui.resourceUri` on the tools the leaderboard view shows, in the
    # default profile only (the hosted listing is checked against tools.json).
    from pwc_local.server import views

    with_view = _listing_bytes(SETTINGS)
    monkeypatch.setattr(views, "tool_meta", lambda spec, profile: None)
    assert 0 < with_view - _listing_bytes(SETTINGS) <= 300


def test_the_default_listing_sends_only_the_hints_mcp_does_not_default() -> None:
    # Issue 37: readOnlyHint alone says what the hosted four say (MCP: destructive and
    # idempotent mean nothing on a read-only tool, openWorld is true unless said), 67
    # bytes a hosted tool. The hosted profile keeps the four (test_contract).
    server = build_server(SETTINGS)
    assert isinstance(server, PwcServer)
    sent = {
        tool.name: tool.annotations.model_dump(by_alias=True, exclude_none=True)
        for tool in anyio.run(server.list_tools)
        if tool.annotations is not None
    }
    assert [name for name in names("hosted") if sent[name] != {"readOnlyHint": True}] == []
    assert sent["watch"] == {"idempotentHint": True}  # local hints were sent so already
    assert sent["cite_paper"] == {"readOnlyHint": True}


def test_the_listing_is_compact_and_keeps_the_input_schemas() -> None:
    # The 24,000-byte budget is the hosted 21's, the drop-in listing.
    SETTINGS = HOSTED
    assert _listing_bytes(SETTINGS) <= 24_000
    server = build_server(SETTINGS)
    assert isinstance(server, PwcServer)
    listed = anyio.run(server.list_tools)
    # The input schemas are the SDK's own, titles aside.
    reference = build_server(SETTINGS)
    assert isinstance(reference, PwcServer)
    reference.ensure_tools()
    generated = {tool.name: tool.input_schema for tool in anyio.run(_sdk_listing, reference)}
    for tool in listed:
        expected = {k: v for k, v in generated[tool.name].items() if k != "title"}
        expected["properties"] = {
            name: {k: v for k, v in spec.items() if k != "title"}
            for name, spec in generated[tool.name]["properties"].items()
        }
        assert tool.input_schema == expected, tool.name


def _wire(tools: list[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


def test_a_saved_listing_answers_the_next_server_and_a_damaged_one_is_ignored(
    tmp_path: Path,
) -> None:
    first = build_server(SETTINGS)
    assert isinstance(first, PwcServer)
    first.prepare_after_initialize(lambda: tmp_path / "cache")
    # No session, so no start-up thread: `tools/list` looks the snapshot up itself, as
    # it does when it comes before that thread.
    built = _wire(anyio.run(first.list_tools))
    first.join_background(timeout=30)
    (saved,) = (tmp_path / "cache").glob("tools-list-*.json")
    assert saved == snapshot_path(tmp_path / "cache")

    second = build_server(SETTINGS)
    assert isinstance(second, PwcServer)
    second.prepare_after_initialize(lambda: tmp_path / "cache")
    assert _wire(anyio.run(second.list_tools)) == built
    second.join_background(timeout=30)

    saved.write_text('{"tools": [{"name": 1}]}')
    third = build_server(SETTINGS)
    assert isinstance(third, PwcServer)
    third.prepare_after_initialize(lambda: tmp_path / "cache")
    assert _wire(anyio.run(third.list_tools)) == built  # rebuilt, and saved again
    third.join_background(timeout=30)
    assert json.loads(saved.read_text())["tools"] == built


async def _sdk_listing(server: PwcServer) -> Any:
    return await super(PwcServer, server).list_tools()


def test_compact_schemas_keep_types_nullability_and_closed_envelopes() -> None:
    schema = compact_output_schema(PaperInfoResult.model_json_schema())
    assert schema["additionalProperties"] is False
    assert "required" not in schema  # every field is in every result
    properties = schema["properties"]
    assert properties["paper"] == {"type": "object"}
    assert properties["evaluation_count"] == {"type": ["integer", "null"]}
    assert properties["evaluations"] == {"type": ["array", "null"]}  # of open objects
    assert properties["available_at"] == {"type": "array"}
    assert properties["schema_version"] == {"const": "v1"}
    assert properties["cache"] == {"type": ["object", "null"]}
    assert "$defs" not in schema and "description" not in json.dumps(schema)


@pytest.mark.parametrize(
    ("url", "expected"),
    [("http://127.0.0.1:8000/api/v1", False), ("HTTP://catalog.test/api", False)],
)
def test_plain_http_catalogs_load_no_certificates(url: str, expected: object) -> None:
    assert tls_verification(url) is expected


def test_https_catalogs_use_the_system_trust_store(monkeypatch: pytest.MonkeyPatch) -> None:
    truststore = pytest.importorskip("truststore")
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert isinstance(tls_verification("https://paperswithcode.co/api/v1"), truststore.SSLContext)
    monkeypatch.setenv("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt")
    assert tls_verification("https://paperswithcode.co/api/v1") is True  # httpx honours it
    monkeypatch.setenv("HTTP_PROXY", "https://proxy.test:8443")
    assert tls_verification("http://catalog.test/api") is True  # TLS to the proxy
