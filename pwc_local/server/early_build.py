"""Generate `early.json`, the early answers (`pwc_local.server.early`), from the full server.

    python -m pwc_local.server.early_build          # rewrite pwc_local/server/early.json
    python -m pwc_local.server.early_build --check  # exit 1 when the file is stale

For each profile the full server is built (every tool served), and asked, in both
eras, what the early path answers: `initialize` (each handshake version, and one it
does not know), `server/discover` and the four listings. Each listed item is kept
with the `(tool, group)` gate the `tools` setting filters it by. The answers must
not depend on anything else the early path cannot see: generation fails if
`initialize` answers differ by more than the negotiated version. `tests/test_early.py`
runs `--check`, and proves the early answers equal the full server's byte for byte.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Mapping
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from pwc_local import __version__, contract
from pwc_local.config import Settings
from pwc_local.server import sdk
from pwc_local.server.app import build_server
from pwc_local.server.early import (
    CAPABILITIES_KEY,
    DATA_FILE,
    FORMAT,
    HANDSHAKE,
    LISTS,
    MODERN,
    VERSION_KEY,
)
from pwc_local.server.framing import encode_message
from pwc_local.server.prompts import PROMPT_GATES

UNKNOWN_VERSION = "1999-01-01"  # a handshake version no SDK supports


async def _ask(settings: Settings, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The results the full server gives `messages` (requests answered in order)."""
    server = build_server(settings)
    lowlevel = sdk.lowlevel_server(server)
    to_server, reads = anyio.create_memory_object_stream[Any](16)
    writes, from_server = anyio.create_memory_object_stream[SessionMessage](16)
    results = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(lowlevel.run, reads, writes, lowlevel.create_initialization_options())
        for message in messages:
            await to_server.send(SessionMessage(jsonrpc_message_adapter.validate_python(message)))
            if "id" in message:
                # As the transport writes it (the order of keys included).
                plain = json.loads(encode_message((await from_server.receive()).message))
                if "result" not in plain:
                    raise RuntimeError(f"{message['method']} was refused: {plain}")
                results.append(plain["result"])
        await to_server.aclose()
        tg.cancel_scope.cancel()
    server.join_background(timeout=10)
    return results


def _request(request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    request: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        request["params"] = params
    return request


def _initialize(request_id: int, protocol_version: str) -> dict[str, Any]:
    client = {"name": "early-build", "version": "0"}
    params = {"protocolVersion": protocol_version, "capabilities": {}, "clientInfo": client}
    return _request(request_id, "initialize", params)


async def _profile(settings: Settings) -> dict[str, Any]:
    versions = [*HANDSHAKE_PROTOCOL_VERSIONS, UNKNOWN_VERSION]
    handshake: dict[str, Any] = {}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    for protocol_version in versions:
        opening = [_initialize(1, protocol_version), initialized]
        methods = list(LISTS)
        answers = await _ask(
            settings, [*opening, *(_request(2 + i, m) for i, m in enumerate(methods))]
        )
        expected = protocol_version if protocol_version != UNKNOWN_VERSION else versions[-2]
        if answers[0].get("protocolVersion") != expected:
            raise RuntimeError(f"initialize {protocol_version} answered another version")
        template = {**answers[0], "protocolVersion": None}
        handshake.setdefault("initialize", template)
        if template != handshake["initialize"]:
            raise RuntimeError("initialize answers differ by more than the version")
        for method, answer in zip(methods, answers[1:], strict=True):
            handshake.setdefault(method, answer)
            if answer != handshake[method]:
                raise RuntimeError(f"{method} answers differ between handshake versions")
    envelope = {"_meta": {VERSION_KEY: MODERN_PROTOCOL_VERSIONS[-1], CAPABILITIES_KEY: {}}}
    modern_methods = ["server/discover", *LISTS]
    answers = await _ask(
        settings, [_request(1 + i, m, envelope) for i, m in enumerate(modern_methods)]
    )
    modern = dict(zip(modern_methods, answers, strict=True))
    groups = {tool.name: tool.group for tool in contract.TOOLS}
    lists: dict[str, dict[str, list[dict[str, Any]]]] = {HANDSHAKE: {}, MODERN: {}}
    results: dict[str, dict[str, Any]] = {HANDSHAKE: {}, MODERN: {}}
    for era, answered in ((HANDSHAKE, handshake), (MODERN, modern)):
        # Per era: the SDK writes the same items with their keys in another order.
        for method, key in LISTS.items():
            items = answered[method][key]
            lists[era][key] = [{"gate": _gate(key, item, groups), "item": item} for item in items]
            results[era][method] = {**answered[method], key: None}
    return {
        "initialize": handshake["initialize"],
        "discover": modern["server/discover"],
        "results": results,
        "lists": lists,
    }


def _gate(key: str, item: dict[str, Any], groups: Mapping[str, str]) -> list[str] | None:
    """The `(tool, group)` whose selection lists `item`, or None: always listed."""
    if key == "tools":
        return [item["name"], groups[item["name"]]]
    if key == "prompts" and item["name"] in PROMPT_GATES:
        return list(PROMPT_GATES[item["name"]])
    return None


async def generate() -> dict[str, Any]:
    """The content of `early.json` for this package and SDK."""
    profiles = {}
    with tempfile.TemporaryDirectory() as home:
        for profile in ("compact", "hosted"):
            settings = Settings(
                api_url="http://127.0.0.1:9/api/v1",
                cache_dir=Path(home) / profile,
                tools="all",
                structured=profile,
            )
            profiles[profile] = await _profile(settings)
    return {
        "format": FORMAT,
        "version": __version__,
        "sdk": {name: version(name) for name in ("mcp", "mcp-types")},
        "handshake_versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
        "modern_versions": list(MODERN_PROTOCOL_VERSIONS),
        "profiles": profiles,
    }


def render(data: dict[str, Any]) -> str:
    """`early.json`'s text: stable, one key per line, for readable diffs."""
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pwc_local.server.early_build")
    parser.add_argument("--check", action="store_true", help="exit 1 if early.json is stale")
    parser.add_argument("--output", type=Path, default=DATA_FILE)
    args = parser.parse_args(argv)
    text = render(anyio.run(generate))
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            sys.stderr.write(
                f"{args.output} is stale: run python -m pwc_local.server.early_build\n"
            )
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    sys.stderr.write(f"wrote {args.output}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
