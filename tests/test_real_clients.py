"""The real-client benchmark's scripted model API and table, driven by fake clients.

`benchmarks/real_clients.py` needs npm and four real clients, so it is not run
here. What it relies on is: each wire dialect of the scripted API asks for the
script's calls in order under the names the client offered, reads the tool result
back exactly as sent, follows the read_paper cursor only from what the model was
given, and refuses traffic meant for the internet; and the report tells which half
of a result a model got and whether it was whole. Each fake client below speaks one
dialect over real HTTP on loopback, in this process.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.real_clients import busy, default_server, run_client, three_chunk_markdown
from benchmarks.real_clients_api import Offer, ScriptedApi, filler, ours
from benchmarks.real_clients_first_look import HEADING as FIRST_LOOK
from benchmarks.real_clients_first_look import FirstLook, mcp_log, merge_first_looks
from benchmarks.real_clients_report import (
    HEADING,
    ClientRun,
    Reference,
    judge,
    render_table,
    replace_section,
)
from benchmarks.real_clients_script import CALLS, READ_PAPER, Call, ScriptedModel, find_cursor
from benchmarks.real_clients_setup import BY_KEY, Client, Scratch

TOOLS = sorted({tool for tool, _ in CALLS} | {"read_paper"})
CURSOR = "eyJvZmZzZXQiOjEwMjR9.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I"  # shaped like a signed one


def fake_result(tool: str, arguments: dict[str, Any], *, keep_cursor: bool = True) -> str:
    """What a fake client hands back: its tool and arguments (a cursor given is not
    repeated), and for read_paper a cursor trailer until the third chunk (unless the
    client drops it)."""
    shown = {key: value for key, value in arguments.items() if key != "cursor"}
    text = f"{tool} {json.dumps(shown, sort_keys=True)}"
    if tool == "read_paper":
        chunk = 0 if "cursor" not in arguments else int(arguments["cursor"][-1])
        if chunk < 2 and keep_cursor:
            text += f"\n[Truncated: call read_paper again with cursor {CURSOR}{chunk + 1}]"
    return text


def sse_events(response: httpx.Response) -> Iterator[Any]:
    for line in response.text.splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            yield json.loads(line[len("data: ") :])


@pytest.fixture
def api() -> Iterator[ScriptedApi]:
    with ScriptedApi() as server:
        server.wait_seconds = 0.0
        yield server


def run_anthropic(api: ScriptedApi, *, prefix: str = "mcp__pwc-local__", **kw: Any) -> list[str]:
    """Claude Code's loop: every result stays in the conversation; the names called."""
    tools = [{"name": prefix + t, "input_schema": {"type": "object"}} for t in TOOLS]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    called: list[str] = []
    with httpx.Client(base_url=api.url) as client:
        for _ in range(60):
            body = {"model": "m", "messages": messages, "tools": tools, "stream": True}
            events = list(sse_events(client.post("/v1/messages", json=body)))
            start = events[1]["content_block"]
            if start["type"] == "text":
                return called
            arguments = json.loads(events[2]["delta"]["partial_json"])
            called.append(start["name"])
            tool = start["name"].removeprefix(prefix)
            messages.append({"role": "assistant", "content": [dict(start, input=arguments)]})
            result = {
                "type": "tool_result",
                "tool_use_id": start["id"],
                "content": [{"type": "text", "text": fake_result(tool, arguments, **kw)}],
            }
            messages.append({"role": "user", "content": [result]})
    raise AssertionError("the script never ended")


def run_gemini(api: ScriptedApi) -> list[str]:
    declarations = [{"name": t, "parametersJsonSchema": {"type": "object"}} for t in TOOLS]
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "go"}]}]
    called: list[str] = []
    path = "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"
    with httpx.Client(base_url=api.url) as client:
        for _ in range(60):
            body = {"contents": contents, "tools": [{"functionDeclarations": declarations}]}
            (chunk,) = sse_events(client.post(path, json=body))
            part = chunk["candidates"][0]["content"]["parts"][0]
            if "text" in part:
                return called
            call = part["functionCall"]
            called.append(call["name"])
            contents.append({"role": "model", "parts": [part]})
            output = {"output": fake_result(call["name"], call["args"])}
            response = {"id": call["id"], "name": call["name"], "response": output}
            contents.append({"role": "user", "parts": [{"functionResponse": response}]})
    raise AssertionError("the script never ended")


def run_responses(api: ScriptedApi) -> list[str]:
    """Codex's loop: our tools in a namespace; a namespaced call names it apart."""
    namespace = {
        "type": "namespace",
        "name": "mcp__pwc_local",
        "tools": [{"type": "function", "name": t, "parameters": {}} for t in TOOLS],
    }
    tools = [{"type": "function", "name": "exec_command", "parameters": {}}, namespace]
    items: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": "go"}]
    called: list[str] = []
    with httpx.Client(base_url=api.url) as client:
        for _ in range(60):
            body = {"model": "m", "input": items, "tools": tools, "stream": True}
            events = list(sse_events(client.post("/v1/responses", json=body)))
            assert events[-1]["type"] == "response.completed"
            item = events[-1]["response"]["output"][0]
            if item["type"] == "message":
                return called
            assert item["namespace"] == "mcp__pwc_local"
            called.append(item["name"])
            items.append(item)
            output = fake_result(item["name"], json.loads(item["arguments"]))
            items.append(
                {"type": "function_call_output", "call_id": item["call_id"], "output": output}
            )
    raise AssertionError("the script never ended")


def run_chat(api: ScriptedApi) -> list[str]:
    tools = [{"type": "function", "function": {"name": f"pwc-local_{t}"}} for t in TOOLS]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    called: list[str] = []
    with httpx.Client(base_url=api.url) as client:
        for _ in range(60):
            body = {"model": "m", "messages": messages, "tools": tools, "stream": True}
            response = client.post("/v1/chat/completions", json=body)
            assert response.text.endswith("data: [DONE]\n\n")
            delta = next(sse_events(response))["choices"][0]["delta"]
            if "tool_calls" not in delta:
                return called
            call = delta["tool_calls"][0]
            called.append(call["function"]["name"])
            messages.append({"role": "assistant", "tool_calls": [call]})
            tool = call["function"]["name"].removeprefix("pwc-local_")
            content = fake_result(tool, json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    raise AssertionError("the script never ended")


DIALECTS: dict[str, tuple[Callable[[ScriptedApi], list[str]], str]] = {
    "anthropic": (run_anthropic, "mcp__pwc-local__"),
    "gemini": (run_gemini, ""),
    "responses": (run_responses, ""),
    "chat": (run_chat, "pwc-local_"),
}


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_each_dialect_runs_the_script_and_records_what_the_client_sent(
    api: ScriptedApi, dialect: str
) -> None:
    run, prefix = DIALECTS[dialect]
    called = run(api)
    expected = [tool for tool, _ in CALLS] + ["read_paper"] * 3
    assert called == [prefix + tool for tool in expected]
    model = api.model
    assert model.finished and sorted(model.received) == list(range(len(expected)))
    for step, (tool, arguments) in enumerate(CALLS):
        assert model.received[step].payload == fake_result(tool, arguments)
    reads = [model.received[len(CALLS) + n].call.arguments for n in range(3)]
    assert reads == [
        {"paper": READ_PAPER},
        {"paper": READ_PAPER, "cursor": CURSOR + "1"},
        {"paper": READ_PAPER, "cursor": CURSOR + "2"},
    ]


def test_reading_stops_where_the_client_lost_the_cursor(api: ScriptedApi) -> None:
    called = run_anthropic(api, keep_cursor=False)
    assert called.count("mcp__pwc-local__read_paper") == 1
    last = api.model.received[len(CALLS)]
    assert last.call.read == 0 and "cursor" not in last.payload


def test_a_side_request_without_our_tools_changes_nothing(api: ScriptedApi) -> None:
    schema = {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "next_speaker": {"type": "string", "enum": ["model", "user"]},
            "score": {"type": "integer", "minimum": 1},
        },
    }
    body = {
        "contents": [{"role": "user", "parts": [{"text": "who speaks next?"}]}],
        "generationConfig": {"responseJsonSchema": schema},
    }
    answer = httpx.post(f"{api.url}/v1beta/models/flash:generateContent", json=body).json()
    text = answer["candidates"][0]["content"]["parts"][0]["text"]
    assert json.loads(text) == {"reasoning": "", "next_speaker": "user", "score": 1}
    assert api.model.asked == {} and filler({"type": "array"}) == []


def test_the_model_waits_for_servers_still_connecting(api: ScriptedApi) -> None:
    """Claude Code and Codex may send the first request before our tools are listed."""
    tools = [{"name": "Read"}, {"name": "WaitForMcpServers"}]
    body = {"model": "m", "messages": [{"role": "user", "content": "go"}], "tools": tools}
    answer = httpx.post(f"{api.url}/v1/messages", json=body).json()
    assert answer["content"][0]["name"] == "WaitForMcpServers"
    assert answer["stop_reason"] == "tool_use" and api.model.asked == {}


def test_traffic_meant_for_the_internet_is_refused_and_listed(api: ScriptedApi) -> None:
    with socket.create_connection(("127.0.0.1", api.port), timeout=5) as proxy_client:
        proxy_client.sendall(b"CONNECT telemetry.example.com:443 HTTP/1.1\r\n\r\n")
        assert proxy_client.recv(100).startswith(b"HTTP/1.1 403")
    with httpx.Client(proxy=api.url) as client:
        assert client.get("http://updates.example.org/latest").status_code == 403
    assert api.refused_hosts == {"telemetry.example.com", "updates.example.org"}


# The report: which half, whole or cut.
SENT_TEXT = (
    "# Attention Is All You Need\n\nThe dominant sequence transduction models are based "
    "on complex recurrent networks. Ελληνικά, 中文 and 日本語 stay whole.\n"
)
SENT_STRUCTURED = {"paper": "1706.03762", "score": 38.0, "title": "Ελληνικά", "next_cursor": CURSOR}


def reference_with(call: Call, text: str, structured: Any) -> Reference:
    reference = Reference(chunk_bytes=100)
    content = [{"type": "text", "text": text}]
    reference.add(call, {"content": content, "structuredContent": structured})
    return reference


def sent_of(reference: Reference) -> Any:
    (sent,) = reference.sent.values()
    return sent


def test_judge_tells_the_half_and_whether_it_is_whole() -> None:
    call = Call(0, "read_paper", {}, read=0)
    sent = sent_of(reference_with(call, SENT_TEXT, SENT_STRUCTURED))
    other_cursor = dict(SENT_STRUCTURED, next_cursor=CURSOR[::-1])  # another run's key
    as_js = json.dumps(dict(other_cursor, score=38), indent=2)  # `38`, as JavaScript prints it
    link = "[Resource link: paper-info 1706.03762] pwc://papers/1706.03762\n"
    assert judge(link + as_js, sent) == judge(as_js, sent)
    assert judge(as_js, sent).half == "structured" and judge(as_js, sent).whole
    assert judge(f"wrapped: {SENT_TEXT}", sent).half == "text"
    both = judge(SENT_TEXT + json.dumps(SENT_STRUCTURED), sent)
    assert (both.half, both.whole) == ("both", True)
    head_and_tail = SENT_TEXT[:50] + "\n... cut ...\n" + SENT_TEXT[-30:]
    verdict = judge(head_and_tail, sent)
    assert (verdict.half, verdict.whole) == ("text", False)
    assert verdict.kept == pytest.approx(80 / len(SENT_TEXT.strip()), abs=0.02)
    assert judge("Output saved to a file.", sent).half == "?"


def test_the_table_and_its_docs_section() -> None:
    call = Call(len(CALLS), "read_paper", {"paper": READ_PAPER}, read=0)
    reference = reference_with(call, SENT_TEXT, SENT_STRUCTURED)
    model = ScriptedModel()
    assert model.next_call(len(CALLS)) == call
    model.receive(len(CALLS), SENT_TEXT[:60], {"content": SENT_TEXT[:60]})
    run = ClientRun("fake", "Fake", "1.0", model, seconds=3, refused_hosts=["x.example"])
    table = render_table(reference, [run])
    row = next(line for line in table.splitlines() if line.startswith("| read_paper chunk 1"))
    assert f"60 text cut {60 / len(SENT_TEXT.strip()):.0%}" in row and "cursor lost" in row
    assert "stopped at 1 of 1 chunks" in table and "refused: x.example" in table
    document = f"# Figures\n\n{HEADING}\n\nold\n\n## Later\n\nkept\n"
    replaced = replace_section(document, f"{HEADING}\n\nnew\n")
    assert replaced == f"# Figures\n\n{HEADING}\n\nnew\n\n## Later\n\nkept\n"
    assert replace_section("# Figures\n", f"{HEADING}\n\nnew\n").endswith(f"\n\n{HEADING}\n\nnew\n")


@pytest.mark.parametrize("chunk", [4096, 16384, 65536])
def test_the_paper_read_takes_three_chunks_of_any_size(chunk: int) -> None:
    size = len(three_chunk_markdown(chunk).encode())
    assert 2 * chunk < size <= 3 * chunk


# Each client run is bounded and a failure is that client's result, not the run's end.
def _client(prepare: Callable[[Scratch], tuple[list[str], dict[str, str]]]) -> Client:
    return Client("fake", "Fake", "fake-package", "fake", prepare)


@pytest.mark.e2e
def test_a_client_that_hangs_is_ended_and_reported(api: ScriptedApi, tmp_path: Path) -> None:
    # A process that never ends stands in for a client stuck on its model or server.
    def prepare(scratch: Scratch) -> tuple[list[str], dict[str, str]]:
        return ["-c", "import time; time.sleep(120)"], scratch.base_env()

    scratch = Scratch(tmp_path, api.url, "http://127.0.0.1:9/api/v1", "pwc-mcp-local")
    began = time.monotonic()
    model, outcome = run_client(_client(prepare), Path(sys.executable), api, scratch, 1.0)
    assert outcome.timed_out and outcome.error == "timed out after 1 s"
    assert time.monotonic() - began < 30 and model.received == {}


@pytest.mark.e2e
def test_a_client_that_cannot_be_set_up_or_started_is_reported(
    api: ScriptedApi, tmp_path: Path
) -> None:
    def broken(scratch: Scratch) -> tuple[list[str], dict[str, str]]:
        raise RuntimeError("pwc-mcp-local install codex failed: no such target")

    scratch = Scratch(tmp_path, api.url, "http://127.0.0.1:9/api/v1", "pwc-mcp-local")
    _, outcome = run_client(_client(broken), Path(sys.executable), api, scratch, 5.0)
    assert outcome.error == "setup failed: pwc-mcp-local install codex failed: no such target"
    missing = tmp_path / "node_modules" / ".bin" / "fake"
    _, outcome = run_client(_client(lambda s: ([], s.base_env())), missing, api, scratch, 5.0)
    assert outcome.error.startswith("could not start fake:")


@pytest.mark.parametrize(
    ("payload", "found"),
    [
        (f"[Truncated: call read_paper again with cursor {CURSOR} to read on.]", CURSOR),
        (json.dumps({"markdown": "x", "next_cursor": CURSOR}), CURSOR),
        (json.dumps({"next_cursor": CURSOR, "markdown": "x"}, indent=2), CURSOR),
        (f"next_cursor: {CURSOR}\n\n# Title", CURSOR),
        (json.dumps({"next_cursor": None, "markdown": "the end"}), None),
        ("Output too large; saved to /tmp/result.txt", None),
    ],
)
def test_the_cursor_is_found_wherever_a_half_puts_it(payload: str, found: str | None) -> None:
    assert find_cursor(payload) == found


@pytest.mark.e2e
def test_each_client_is_configured_to_run_the_installed_server(tmp_path: Path) -> None:
    """`install claude-code` / `install codex` where our installer has a target; the
    `install print` entry in Gemini CLI's and opencode's own files; all with the
    catalog's URL and the scratch home, which Codex would not pass on by itself."""
    server = default_server()
    catalog = "http://127.0.0.1:9/api/v1"
    configs = {}
    for key in ("claude-code", "gemini", "codex", "opencode"):
        scratch = Scratch(tmp_path / key, "http://127.0.0.1:8", catalog, server)
        _, env = BY_KEY[key].prepare(scratch)
        assert env["HOME"] == str(scratch.home) and env["HTTPS_PROXY"] == scratch.api_url
        configs[key] = scratch.home
    claude = json.loads((configs["claude-code"] / ".claude.json").read_text())
    gemini = json.loads((configs["gemini"] / ".gemini" / "settings.json").read_text())
    opencode_file = configs["opencode"] / ".config" / "opencode" / "opencode.json"
    opencode = json.loads(opencode_file.read_text())["mcp"]["pwc-local"]
    codex = (configs["codex"] / ".codex" / "config.toml").read_text()
    for entry in (claude["mcpServers"]["pwc-local"], gemini["mcpServers"]["pwc-local"]):
        assert entry["command"] == server and entry["env"]["PWC_API_URL"] == catalog
    assert opencode["command"][0] == server and opencode["environment"]["PWC_API_URL"] == catalog
    assert f'PWC_API_URL = "{catalog}"' in codex and 'wire_api = "responses"' in codex


def test_a_client_without_our_tools_is_noted(api: ScriptedApi) -> None:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "go"}],
        "tools": [{"name": "Read"}],
    }
    answer = httpx.post(f"{api.url}/v1/messages", json=body).json()
    assert answer["content"][0]["type"] == "text"
    assert api.model.notes == ["a request offered 1 tools, none of ours"]


# The mode whose model never waits (`--no-wait`): what the first request offers.
def test_a_model_that_never_waits_answers_without_our_tools_and_records_each_offer(
    api: ScriptedApi,
) -> None:
    api.waits = False
    api.serve(ScriptedModel(calls=CALLS[:1], max_reads=0))
    api.begin()
    first = {"model": "m", "messages": [{"role": "user", "content": "go"}], "stream": False}
    waiting = [{"name": "Read"}, {"name": "WaitForMcpServers"}]
    answer = httpx.post(f"{api.url}/v1/messages", json=dict(first, tools=waiting)).json()
    assert answer["content"][0]["type"] == "text" and api.model.asked == {}
    ready = waiting + [{"name": f"mcp__pwc-local__{t}"} for t in TOOLS]
    answer = httpx.post(f"{api.url}/v1/messages", json=dict(first, tools=ready)).json()
    assert answer["content"][0]["name"] == "mcp__pwc-local__search_papers"
    result = {"type": "tool_result", "tool_use_id": answer["content"][0]["id"], "content": "r"}
    turn = [
        {"role": "assistant", "content": answer["content"]},
        {"role": "user", "content": [result]},
    ]
    body = dict(first, tools=ready, messages=first["messages"] + turn)
    closing = httpx.post(f"{api.url}/v1/messages", json=body).json()
    assert closing["content"][0]["type"] == "text" and api.model.finished
    assert sorted(api.model.received) == [0] and api.model.notes[0].endswith("none of ours")
    offers = [(o.offered, o.ours) for o in api.offers]
    assert offers == [(2, 0), (len(TOOLS) + 2, len(TOOLS)), (len(TOOLS) + 2, len(TOOLS))]
    assert 0 <= api.offers[0].seconds <= api.offers[-1].seconds


def test_our_tools_are_told_from_the_clients_own_under_each_naming() -> None:
    offered = [
        "exec_command",
        "list_mcp_resources",
        "mcp__pwc_local/search_papers",  # Codex: a namespace
        "mcp__pwc-local__get_task",  # Claude Code
        "pwc-local_read_paper",  # opencode
        "get_benchmark",  # Gemini CLI: bare
        "mcp__other__search",
    ]
    assert ours(offered) == offered[2:6]


CLAUDE_LOG = [
    {
        "debug": "Starting connection with timeout of 60000ms",
        "timestamp": "2026-12-07T18:43:00.000Z",
    },
    {
        "debug": "stdio server rejected initialize after the version negotiation probe timed out",
        "timestamp": "2026-12-07T18:43:05.000Z",
    },
    {
        "debug": "Successfully connected (transport: stdio) in 6150ms",
        "timestamp": "2026-12-07T18:43:06.100Z",
    },
    {
        "debug": 'Connection established with capabilities: {"hasTools":true,'
        '"protocolEra":"modern","negotiatedProtocolVersion":"2026-07-28"}',
        "timestamp": "2026-12-07T18:43:06.200Z",
    },
]


def test_claude_codes_mcp_log_tells_a_late_probe_the_protocol_and_the_time(tmp_path: Path) -> None:
    assert mcp_log(tmp_path).cell() == "-"
    logs = tmp_path / ".cache" / "claude-cli-nodejs" / "-work" / "mcp-logs-pwc-local"
    logs.mkdir(parents=True)
    (logs / "2026-12-07T18-43-00.jsonl").write_text(
        "\n".join(json.dumps(line) for line in CLAUDE_LOG) + "\n"
    )
    began = datetime(2026, 12, 7, 18, 42, 58, tzinfo=timezone.utc).timestamp()
    log = mcp_log(tmp_path, began=began)
    assert log.late == (CLAUDE_LOG[1]["debug"],) and log.protocol == "2026-07-28"
    assert log.connected_ms == 6150 and log.connected_after == pytest.approx(8.1)
    assert log.cell() == (
        "connected in 6,150 ms (8.1 s after the client started) on 2026-07-28, "
        '"stdio server rejected initialize after the version negotiation probe timed out"'
    )
    gave_up = {"debug": "Connection abandoned after 8657ms (Claude Code is shutting down)"}
    (logs / "2026-12-07T18-43-00.jsonl").write_text(json.dumps(gave_up) + "\n")
    expected = "not connected (abandoned after 8,657 ms, the client ending), no probe timed out"
    assert mcp_log(tmp_path).cell() == expected


def _look(version: str, ours_first: int, busy: int) -> FirstLook:
    offers = [Offer(2.0, 40, ours_first), Offer(5.0, 40, 31)]
    return FirstLook("codex", "Codex", version, busy, 1.5, 31, offers, [0], 9.0)


def test_runs_without_waiting_keep_one_row_per_server_client_and_load() -> None:
    document = "# Figures\n\n## Later\n\nkept\n"
    document = merge_first_looks(document, [_look("1.0", 0, 0)], "old", "t1", "namespace")
    document = merge_first_looks(document, [_look("1.0", 31, 4)], "new", "t2", "namespace")
    document = document.replace("t2 |\n", "t2 |\n\nA note by hand.\n")
    document = merge_first_looks(document, [_look("1.1", 31, 0)], "old", "t3", "namespace")
    rows = [
        line
        for line in document.splitlines()
        if line.startswith("| old") or line.startswith("| new")
    ]
    assert rows == [
        "| old | Codex 1.1 | 1.5 | 31 of 31 | request 1 (2.0 s) | answered | - | 9 s, t3 |",
        "| new | Codex 1.0 | 4 busy + 1.5 | 31 of 31 | request 1 (2.0 s) | answered | - "
        "| 9 s, t2 |",
    ]
    assert document.startswith(f"# Figures\n\n## Later\n\nkept\n\n{FIRST_LOOK}\n")
    assert document.count(FIRST_LOOK) == 1 and document.endswith("| 9 s, t2 |\n\nA note by hand.\n")
    assert _look("1.0", 0, 0).appeared() == "request 2 (5.0 s)"


@pytest.mark.e2e
def test_busy_processes_spin_while_the_run_lasts_and_end_by_themselves() -> None:
    with busy(1, 600) as (spinner,):
        assert spinner.poll() is None
    assert spinner.returncode is not None
    with busy(1, 0) as (brief,):
        assert brief.wait(60) == 0  # bounded by itself, even if never killed
