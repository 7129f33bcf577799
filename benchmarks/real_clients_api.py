"""The scripted model API on 127.0.0.1: four wire dialects over one `ScriptedModel`.

Each real client is pointed here by its base-URL setting and believes it talks to
its vendor's model. Every request is parsed into the same three facts: the tool
names offered, how many tool results the conversation already holds, and the
latest tool result exactly as the client sent it (its text parts and the raw
element). The answer is the script's next tool call, or a closing sentence.

| dialect | path (POST) | tool result in the next request |
| --- | --- | --- |
| Anthropic Messages, SSE or JSON | `.../messages` | `tool_result` block `content` |
| Gemini | `.../models/M:streamGenerateContent`, `:generateContent` | `functionResponse` |
| OpenAI Responses, SSE | `.../responses` | `function_call_output.output` |
| OpenAI Chat Completions, SSE | `.../chat/completions` | `tool` message `content` |

A request that offers none of our tools is a client's side request (a title, a
routing or next-speaker check): it gets a short text, or for a JSON schema the
smallest object that fits, and changes nothing. Unless `waits` is off, a main
request whose client offers a tool that waits for MCP servers (and none of ours
yet) gets a call to it, as a patient model would; with `waits` off the model
answers without our tools, as a real one does. Every request that offers tools
is kept in `offers`: when, how many tools, how many of them ours. The same server answers proxy
requests (`CONNECT`, absolute URLs) with 403 and records the host: clients run
with their proxy variables pointed here, so any traffic meant for the internet
is refused and listed instead of leaving the machine.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchmarks.real_clients_script import CALLS, Call, ScriptedModel

CLOSING = "Done: every scripted call was made."
MAX_WAITS = 30
WAIT_SECONDS = 1.0
NAMESPACE_MARK = "/"  # joins a Responses namespace and a function name in `offered`
# A client tool that waits for MCP servers still connecting (Claude Code's
# WaitForMcpServers) or at least asks them something (Codex's list_mcp_resources):
# the model calls it when our tools are not listed yet, since a client may send
# its first request before the server has answered `tools/list`.
_WAIT = re.compile(r"wait.*mcp|^list_mcp_resources$", re.IGNORECASE)
_STEP_ID = re.compile(r"s(\d+)")
# Our server's tools as a client names them: under the server's name (`pwc-local`,
# which Codex spells `pwc_local`), or bare under a name of the script.
_OUR_SERVER = re.compile(r"pwc[-_]local", re.IGNORECASE)
_OUR_TOOLS = tuple(sorted({tool for tool, _ in CALLS} | {"read_paper"}))


def ours(offered: list[str]) -> list[str]:
    """The offered names that are our server's tools."""
    return [
        name
        for name in offered
        if _OUR_SERVER.search(name) or any(match_tool(tool, [name]) for tool in _OUR_TOOLS)
    ]


@dataclass(frozen=True)
class Offer:
    """The tools one request offered, `seconds` after the client started."""

    seconds: float
    offered: int  # tools in all
    ours: int  # of them our server's


def call_id(call: Call) -> str:
    """The id the model gives call `step`; the step is read back from it."""
    return f"call_s{call.step}" if call.step >= 0 else f"wait_{-call.step}"


def step_of(identifier: Any) -> int | None:
    found = _STEP_ID.search(str(identifier or ""))
    return int(found.group(1)) if found else None


def text_of(value: Any) -> str:
    """The text a model reads in a tool-result value: a string as is; in a list or
    object, every `text` (or string `output`/`content`) part, joined by newlines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(part for part in (text_of(item) for item in value) if part)
    if isinstance(value, dict):
        for key in ("text", "output", "content", "llmContent", "result"):
            if key in value:
                return text_of(value[key])
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else json.dumps(value)


def match_tool(tool: str, offered: list[str]) -> str | None:
    """The offered name of our tool `tool`: the same name, or one ending in it after a
    separator (`mcp__pwc-local__read_paper`, `pwc-local_read_paper`)."""
    if tool in offered:
        return tool
    for name in offered:
        if re.search(rf"(^|[_.:/-]){re.escape(tool)}$", name):
            return name
    return None


def filler(schema: Any) -> Any:
    """The smallest value that fits a JSON schema (for clients' side requests)."""
    if not isinstance(schema, dict):
        return {}
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return schema["enum"][-1]
    if kind == "object":
        props = schema.get("properties", {})
        return {name: filler(props[name]) for name in props}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return ""


class Turn:
    """One parsed request: what the dialects share. `results` holds every tool result
    in the conversation; the model keeps the first it saw of each (clients may later
    shorten old results to save context, which is not what the model was given)."""

    def __init__(self, offered: list[str], done: int, results: list[tuple[int, str, Any, bool]]):
        self.offered = offered
        self.done = done  # tool results in the conversation
        self.results = results  # (step, payload, raw, is_error)


class ScriptedApi:
    """The HTTP server; `model` is the run being served (swap it between clients)."""

    def __init__(self, model: ScriptedModel | None = None) -> None:
        self.model = model or ScriptedModel()
        self.requests: list[str] = []  # "METHOD path" of every request, in order
        self.refused_hosts: set[str] = set()
        self.trace_dir: Path | None = None  # when set, every request body is kept there
        self.wait_seconds = WAIT_SECONDS
        self.waits = True  # the model waits for servers still connecting (see above)
        self.offers: list[Offer] = []
        self._since = time.monotonic()
        self._waits = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self)
        serve = self._server.serve_forever
        self._thread = threading.Thread(target=serve, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ScriptedApi:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ScriptedApi:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve(self, model: ScriptedModel, trace_dir: Path | None = None) -> None:
        """Serve a new run: `model`, with no requests, refusals, offers or waits yet."""
        with self._lock:
            self.model = model
            self.requests = []
            self.refused_hosts = set()
            self.trace_dir = trace_dir
            self.offers = []
            self._since = time.monotonic()
            self._waits = 0

    def begin(self) -> None:
        """The client starts now: the times in `offers` count from here."""
        with self._lock:
            self._since = time.monotonic()

    def log(self, line: str, body: bytes = b"") -> None:
        with self._lock:
            self.requests.append(line)
            if self.trace_dir is not None and body:
                self.trace_dir.mkdir(parents=True, exist_ok=True)
                name = f"{len(self.requests):03d}-{line.split('/')[-1][:40]}.json"
                (self.trace_dir / name.replace(":", "_")).write_bytes(body)

    # The turn every dialect shares.
    def answer(self, turn: Turn) -> Call | str | None:
        """The next call for a main request, or a text for a side request."""
        if turn.offered:
            since = time.monotonic() - self._since
            offer = Offer(since, len(turn.offered), len(ours(turn.offered)))
            with self._lock:
                self.offers.append(offer)
        if not any(match_tool(tool, turn.offered) for tool, _ in self.model.calls):
            waiting = [name for name in turn.offered if _WAIT.search(name)]
            if waiting and self.waits and self._waits < MAX_WAITS:  # the model waits for them
                self._waits += 1
                time.sleep(self.wait_seconds)  # and the server time to start
                return Call(-self._waits, waiting[0], {})
            if turn.offered and not self.model.asked:
                self.model.note(f"a request offered {len(turn.offered)} tools, none of ours")
            return "ok"
        self.model.offered = turn.offered
        for step, payload, raw, error in turn.results:
            self.model.receive(step, payload, raw, error=error)
        while True:
            call = self.model.next_call(turn.done)
            if call is None or match_tool(call.tool, turn.offered):
                return call
            self.model.note(f"{call.tool} not offered by the client")
            self.model.receive(call.step, "", None, error=True)
            turn.done += 1  # skipped: the model moves on, the client never sees it


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], api: ScriptedApi) -> None:
        super().__init__(address, _Handler)
        self.api = api


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_CONNECT(self) -> None:
        self._refuse_proxy(self.path.split(":")[0])

    def do_GET(self) -> None:
        if self._proxied():
            return
        self.server.api.log(f"GET {self.path}")
        path = urlsplit(self.path).path
        if path.endswith("/models"):
            self._json({"data": [], "models": [], "object": "list"})
        else:
            self._json({"error": {"message": "not scripted"}}, status=404)

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        if self._proxied():
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else self._read_chunked()
        path = urlsplit(self.path).path
        self.server.api.log(f"POST {path}", raw)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._json({"error": {"message": "not JSON"}}, status=400)
            return
        api = self.server.api
        if path.endswith("/count_tokens") or path.endswith(":countTokens"):
            self._json({"input_tokens": 1, "totalTokens": 1})
        elif path.endswith("/messages"):
            _Anthropic(self, api).serve(body)
        elif ":generateContent" in path or ":streamGenerateContent" in path:
            _Gemini(self, api).serve(body, stream=":stream" in path)
        elif path.endswith("/responses"):
            _Responses(self, api).serve(body)
        elif path.endswith("/chat/completions"):
            _Chat(self, api).serve(body)
        else:
            self._json({"error": {"message": "not scripted"}}, status=404)

    # Plumbing.
    def _proxied(self) -> bool:
        if self.path.startswith("http://") or self.path.startswith("https://"):
            host = urlsplit(self.path).hostname or "?"
            if host not in ("127.0.0.1", "localhost"):
                self._refuse_proxy(host)
                return True
            self.path = self.path.split(host, 1)[1].split("/", 1)[-1]
            self.path = "/" + self.path if not self.path.startswith("/") else self.path
        return False

    def _refuse_proxy(self, host: str) -> None:
        self.server.api.refused_hosts.add(host)
        self.server.api.log(f"{self.command} {host} (refused)")
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _read_chunked(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return b""
        data = b""
        while True:
            size = int(self.rfile.readline().strip() or b"0", 16)
            if size == 0:
                self.rfile.readline()
                return data
            data += self.rfile.read(size)
            self.rfile.readline()

    def _json(self, value: Any, status: int = 200) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def sse(self, events: Iterator[tuple[str | None, Any]], trailer: bytes = b"") -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
        self.wfile.write(trailer)
        self.wfile.flush()
        self.close_connection = True


class _Dialect:
    def __init__(self, handler: _Handler, api: ScriptedApi) -> None:
        self.handler = handler
        self.api = api

    def arguments(self, call: Call) -> dict[str, Any]:
        return call.arguments

    def name(self, call: Call, turn: Turn) -> str:
        return match_tool(call.tool, turn.offered) or call.tool


class _Anthropic(_Dialect):
    """Anthropic Messages: tools `[{name, input_schema}]`; results are `tool_result`
    blocks in the last user message, matched to calls by `tool_use_id`."""

    def serve(self, body: dict[str, Any]) -> None:
        offered = [t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]
        done, results = 0, []
        messages = body.get("messages") or []
        for message in messages:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    step = step_of(block.get("tool_use_id"))
                    if step is not None:
                        done += 1
                        payload = text_of(block.get("content"))
                        results.append((step, payload, block, bool(block.get("is_error"))))
        turn = Turn(offered, done, results)
        answer = self.api.answer(turn)
        if (isinstance(answer, str) and body.get("output_format")) or _wants_json(body):
            answer = json.dumps(filler(_schema_of(body)))
        model = str(body.get("model") or "scripted")
        if isinstance(answer, Call):
            block = {"type": "tool_use", "id": call_id(answer), "name": self.name(answer, turn)}
            args = json.dumps(self.arguments(answer))
            stop = "tool_use"
        else:
            block = {"type": "text", "text": answer or CLOSING}
            stop = "end_turn"
        if not body.get("stream"):
            message_block = dict(block, input=json.loads(args)) if stop == "tool_use" else block
            self.handler._json(_message(model, [message_block], stop))
            return

        def events() -> Iterator[tuple[str | None, Any]]:
            yield "message_start", {"type": "message_start", "message": _message(model, [], None)}
            if stop == "tool_use":
                start = dict(block, input={})
                delta = {"type": "input_json_delta", "partial_json": args}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": start},
            )
            yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            yield "content_block_stop", {"type": "content_block_stop", "index": 0}
            yield (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            )
            yield "message_stop", {"type": "message_stop"}

        self.handler.sse(events())


def _message(model: str, content: list[Any], stop: str | None) -> dict[str, Any]:
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _wants_json(body: dict[str, Any]) -> bool:
    config = body.get("generationConfig") or {}
    return bool(config.get("responseJsonSchema") or config.get("responseSchema"))


def _schema_of(body: dict[str, Any]) -> Any:
    config = body.get("generationConfig") or {}
    output = body.get("output_format") or {}
    return config.get("responseJsonSchema") or config.get("responseSchema") or output.get("schema")


class _Gemini(_Dialect):
    """Gemini generateContent: tools `[{functionDeclarations: [...]}]`; results are
    `functionResponse` parts, matched by `id` when the client keeps it, else in order."""

    def serve(self, body: dict[str, Any], *, stream: bool) -> None:
        offered = []
        for tool in body.get("tools") or []:
            for declaration in tool.get("functionDeclarations") or []:
                offered.append(str(declaration.get("name", "")))
        done, results = 0, []
        contents = body.get("contents") or []
        for content in contents:
            for piece in content.get("parts") or []:
                response = piece.get("functionResponse") if isinstance(piece, dict) else None
                if response is None:
                    continue
                done += 1
                step = step_of(response.get("id"))
                step = done - 1 if step is None else step
                value = response.get("response")
                error = isinstance(value, dict) and "error" in value and "output" not in value
                results.append((step, text_of(value), response, error))
        turn = Turn(offered, done, results)
        answer = self.api.answer(turn)
        if _wants_json(body):
            answer = json.dumps(filler(_schema_of(body)))
        if isinstance(answer, Call):
            part: dict[str, Any] = {
                "functionCall": {
                    "id": call_id(answer),
                    "name": self.name(answer, turn),
                    "args": self.arguments(answer),
                }
            }
        else:
            part = {"text": answer or CLOSING}
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 1,
                "candidatesTokenCount": 1,
                "totalTokenCount": 2,
            },
            "modelVersion": "scripted",
        }
        if stream:
            self.handler.sse(iter([(None, chunk)]))
        else:
            self.handler._json(chunk)


class _Responses(_Dialect):
    """OpenAI Responses: tools `[{type: function, name}]`; results are
    `function_call_output` items, matched by `call_id`."""

    def serve(self, body: dict[str, Any]) -> None:
        offered = _function_names(body.get("tools") or [])
        items = body.get("input") or []
        if isinstance(items, str):
            items = []
        outputs = [
            i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        results = []
        for output in outputs:
            step = step_of(output.get("call_id"))
            if step is not None:
                results.append((step, text_of(output.get("output")), output, False))
        turn = Turn(offered, len(results), results)
        answer = self.api.answer(turn)
        if isinstance(answer, Call):
            item: dict[str, Any] = {
                "type": "function_call",
                "id": f"fc_{answer.step}",
                "call_id": call_id(answer),
                "name": self.name(answer, turn),
                "arguments": json.dumps(self.arguments(answer)),
                "status": "completed",
            }
            namespace, mark, name = item["name"].rpartition(NAMESPACE_MARK)
            if mark:  # a namespaced call names its namespace and function apart
                item.update(namespace=namespace, name=name)
        else:
            item = {
                "type": "message",
                "id": "msg_scripted",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": answer or CLOSING, "annotations": []}],
            }
        response = {
            "id": "resp_scripted",
            "object": "response",
            "model": str(body.get("model") or "scripted"),
            "status": "in_progress",
            "output": [],
        }
        usage = {
            "input_tokens": 1,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 2,
        }

        def events() -> Iterator[tuple[str | None, Any]]:
            yield "response.created", {"type": "response.created", "response": response}
            added = {"type": "response.output_item.added", "output_index": 0, "item": item}
            yield "response.output_item.added", added
            yield "response.output_item.done", dict(added, type="response.output_item.done")
            finished = dict(response, status="completed", output=[item], usage=usage)
            yield "response.completed", {"type": "response.completed", "response": finished}

        self.handler.sse(events())


def _function_names(tools: list[Any]) -> list[str]:
    names = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "function":
            inner = tool.get("function")  # Chat Completions nests it; Responses does not
            names.append(str((inner if isinstance(inner, dict) else tool).get("name", "")))
        elif isinstance(tool.get("tools"), list):  # a namespace of functions (Codex's MCP tools)
            prefix = str(tool.get("name", ""))
            names += [f"{prefix}{NAMESPACE_MARK}{name}" for name in _function_names(tool["tools"])]
    return names


class _Chat(_Dialect):
    """OpenAI Chat Completions: tools `[{type: function, function: {name}}]`; results
    are `tool` messages, matched by `tool_call_id`."""

    def serve(self, body: dict[str, Any]) -> None:
        offered = _function_names(body.get("tools") or [])
        messages = body.get("messages") or []
        results = []
        for message in messages:
            if message.get("role") != "tool":
                continue
            step = step_of(message.get("tool_call_id"))
            if step is not None:
                results.append((step, text_of(message.get("content")), message, False))
        turn = Turn(offered, len(results), results)
        answer = self.api.answer(turn)
        base = {
            "id": "chat_scripted",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "scripted",
        }
        if isinstance(answer, Call):
            delta: dict[str, Any] = {
                "role": "assistant",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": call_id(answer),
                        "type": "function",
                        "function": {
                            "name": self.name(answer, turn),
                            "arguments": json.dumps(self.arguments(answer)),
                        },
                    }
                ],
            }
            reason = "tool_calls"
        else:
            delta = {"role": "assistant", "content": answer or CLOSING}
            reason = "stop"
        first = dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}])
        last = dict(
            base,
            choices=[{"index": 0, "delta": {}, "finish_reason": reason}],
            usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        )
        if not body.get("stream"):
            message = dict(delta)
            self.handler._json(
                dict(
                    base,
                    object="chat.completion",
                    choices=[{"index": 0, "message": message, "finish_reason": reason}],
                )
            )
            return

        def events() -> Iterator[tuple[str | None, Any]]:
            yield None, first
            yield None, last

        self.handler.sse(events(), trailer=b"data: [DONE]\n\n")
