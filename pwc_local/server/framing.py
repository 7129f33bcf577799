"""Framing of the stdio transport: splitting stdin into lines, judging each line, and
writing messages as lines.

Everything here is pure (no I/O beyond the stream handed in), so each rule of the
MCP stdio framing can be tested on its own:

* `inspect_line` decides what a line is: a message for the SDK (`Accepted`), a
  malformed one that gets a JSON-RPC error answer (`Rejected`), a tool call refused
  with a tool error (`ToolRefusal`: arguments that are not valid Unicode), or nothing;
* `encode_message` writes one compact JSON document and `b"\\n"`, on every platform;
* `oversized_answer` stands in for an answer over `MAX_ANSWER_BYTES`;
* `public_error` keeps the SDK's catch-all error answer to what JSON-RPC defines.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any, TypeGuard

from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCResponse,
    RequestId,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from pwc_local import contract
from pwc_local.failures import coded_text
from pwc_local.server.errors import AnswerTooLarge, LocalAnswerTooLarge, WatchAnswerTooLarge
from pwc_local.server.hygiene import (
    invalid_message,
    is_encodable,
    may_hold_surrogates,
    unencodable_path,
)
from pwc_local.upstream.errors import UsageError

MAX_ANSWER_BYTES = 2 * 1024 * 1024
"""The longest message written to stdout, in bytes (the hosted server's 2 MiB response bound)."""

OVERSIZED_ANSWER = coded_text(AnswerTooLarge())
OVERSIZED_LOCAL_ANSWER = coded_text(LocalAnswerTooLarge())
OVERSIZED_WATCH_ANSWER = coded_text(WatchAnswerTooLarge())  # no limit or max_bytes to advise


# Valid JSON, but str.splitlines()-based readers would break a line at these code
# points, so they are written as escapes (legal anywhere they can occur: in strings).
_LINE_BREAKING_UTF8 = (
    (b"\xe2\x80\xa8", b"\\u2028"),
    (b"\xe2\x80\xa9", b"\\u2029"),
    (b"\xc2\x85", b"\\u0085"),
)


# ---------------------------------------------------------------------------------------
# Reading lines and judging them: pure, no I/O beyond the stream handed in.


@dataclass(frozen=True)
class Accepted:
    """A well-formed JSON-RPC message, validated by the SDK's own message model."""

    message: JSONRPCMessage


@dataclass(frozen=True)
class Rejected:
    """A protocol error to send back instead of passing the line on."""

    code: int
    message: str
    id: RequestId | float | None = None  # a fractional id is echoed, so its caller can match
    data: dict[str, Any] | None = None

    def frame(self) -> bytes:
        """The JSON-RPC error response as one line of bytes."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        body = {"jsonrpc": "2.0", "id": self.id, "error": error}
        return json.dumps(body, separators=(",", ":")).encode("ascii") + b"\n"


@dataclass(frozen=True)
class ToolRefusal:
    """A tool call answered with a tool error (`isError`) instead of being run."""

    id: RequestId
    tool: str
    text: str

    def frame(self) -> bytes:
        """The `tools/call` result as one line, framed like the SDK frames tool errors."""
        text = f"Error executing tool {self.tool[:64]}: {self.text}"
        result = {"content": [{"type": "text", "text": text}], "isError": True}
        body = {"jsonrpc": "2.0", "id": self.id, "result": result}
        return json.dumps(body, separators=(",", ":")).encode("ascii") + b"\n"


def inspect_line(line: bytes) -> Accepted | Rejected | ToolRefusal | None:
    """Judge one stdin line: pass it on (`Accepted`), answer it (`Rejected`), or drop it.

    `None` means there is nothing to answer: a blank line, or a notification whose
    params the SDK could not use (notifications never get a response).

    >>> inspect_line(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\\n')
    Accepted(message=JSONRPCRequest(jsonrpc='2.0', id=1, method='ping', params=None))
    >>> inspect_line(b"hello").code
    -32700
    """
    text = line.strip()
    if not text:
        return None
    try:
        doc = json.loads(text.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        return Rejected(PARSE_ERROR, "Parse error: the line is not valid UTF-8")
    except RecursionError:  # valid JSON perhaps, nested deeper than the parser goes
        reason = "Invalid request: the message is nested too deeply (over about 900 levels)"
        return Rejected(INVALID_REQUEST, reason, readable_id(text.decode("utf-8")))
    except ValueError:
        return Rejected(PARSE_ERROR, "Parse error: the line is not valid JSON")
    problem = _envelope_problem(doc)
    if problem is not None:
        return problem
    if "id" in doc and may_hold_surrogates(text):
        refusal = _text_problem(doc)
        if refusal is not None:
            return refusal
    try:
        return Accepted(jsonrpc_message_adapter.validate_python(doc, by_name=False))
    except ValidationError:
        if "method" in doc and "id" not in doc:
            return None  # a notification whose params the SDK cannot use: no answer is due
        return invalid("the message does not have the shape of a JSON-RPC 2.0 message")


_TOKENS = re.compile(r'"|,|[\[{][\[{\s]*|[\]}][\]}\s]*')
_BLANKS = str.maketrans("", "", " \t\n\r")
MAX_SKIPPED_TOKENS = 100_000  # about a tenth of a second; clients send the id first anyway


def readable_id(text: str) -> RequestId | float | None:
    """The top-level `"id"` of a JSON object too deep for `json.loads`, or None.

    Read without recursion: the object's members are walked in order and each value
    other than the id's skipped by counting brackets outside strings, so a request
    nested too deeply is still answered with its own id.

    >>> readable_id('{"jsonrpc":"2.0","params":[[[[]]]],"id":7,"method":"x"}')
    7
    """
    decoder = json.JSONDecoder()
    position = _after_space(text, 0)
    if not text.startswith("{", position):
        return None
    position += 1
    try:
        while True:
            position = _after_space(text, position)
            if not text.startswith('"', position):
                return None
            key, position = scanstring(text, position + 1)
            position = _after_space(text, position)
            if not text.startswith(":", position):
                return None
            position = _after_space(text, position + 1)
            if key == "id":
                value, _ = decoder.raw_decode(text, position)
                shallow = is_request_id(value) or isinstance(value, float)
                return value if shallow else None
            position = _after_space(text, _skip_value(text, position))
            if not text.startswith(",", position):
                return None
            position += 1
    except (ValueError, RecursionError):
        return None


def _after_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\n\r":
        position += 1
    return position


def _skip_value(text: str, position: int) -> int:
    """The position just after the JSON value starting at `position` (not checked).

    Runs of brackets are taken whole, so a value a million levels deep is skipped in
    a few regular-expression steps, not a step per character; a value of more than
    `MAX_SKIPPED_TOKENS` strings and runs is given up on (`ValueError`: no id is read).
    """
    depth = 0
    for _ in range(MAX_SKIPPED_TOKENS):
        found = _TOKENS.search(text, position)
        if found is None:
            raise ValueError("the value does not end")
        token, position = found.group(), found.start()
        if token == '"':
            position = scanstring(text, position + 1)[1]
            if depth == 0:
                return position
            continue
        if token == ",":
            if depth == 0:  # the comma after a scalar value
                return position
        elif token[0] in "[{":
            depth += len(token.translate(_BLANKS))
        elif depth == 0:  # the end of the object around a scalar value
            return position
        else:
            closing = len(token.translate(_BLANKS))
            if closing >= depth:  # the value ends within this run
                ending = re.match(r"(?:\s*[\]}])" + "{" + str(depth) + "}", token)
                assert ending is not None
                return position + ending.end()
            depth -= closing
        position = found.end()
    raise ValueError("too long to skip")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # json.loads would otherwise accept NaN


def invalid(reason: str, data: dict[str, Any] | None = None) -> Rejected:
    # JSON-RPC: when the request object itself is invalid, the answer's id is null.
    return Rejected(INVALID_REQUEST, f"Invalid request: {reason}", None, data)


def is_request_id(value: object) -> TypeGuard[str | int]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _envelope_problem(doc: Any) -> Rejected | None:
    """What is wrong with the JSON-RPC envelope of `doc`, or None if nothing is."""
    if isinstance(doc, list):
        return invalid("batches (JSON arrays) are not supported; send one message per line")
    if not isinstance(doc, dict):
        return invalid("a message must be a JSON object")
    if doc.get("jsonrpc") != "2.0":
        return invalid('"jsonrpc" must be "2.0"')
    if "method" in doc:
        if not isinstance(doc["method"], str):
            return invalid('"method" must be a string')
        if "id" not in doc:
            return None  # a notification; its params are left to the SDK's model
        if not is_request_id(doc["id"]):
            request_id = doc["id"]
            if isinstance(request_id, float) and math.isfinite(request_id):
                # JSON-RPC: numbers SHOULD NOT have fractions; MCP: strings or integers.
                # Answered with the id as sent, so the caller's wait ends.
                reason = 'Invalid request: "id" must be a string or an integer, not a fraction'
                return Rejected(INVALID_REQUEST, reason, request_id)
            return invalid('"id" must be a string or an integer')
        return _params_problem(doc)
    if "result" in doc or "error" in doc:
        if "result" in doc and "error" in doc:
            return invalid('a response carries "result" or "error", not both')
        request_id = doc.get("id", ...)
        if not (is_request_id(request_id) or (request_id is None and "error" in doc)):
            return invalid('a response needs the "id" of the request it answers')
        return None
    return invalid('a message needs "method" (a request or notification) or "result"/"error"')


def _params_problem(doc: dict[str, Any]) -> Rejected | None:
    """-32602 for request params that no MCP method can accept (said with a code)."""
    request_id = doc["id"]
    if "params" not in doc:
        params: dict[str, Any] = {}
    elif isinstance(doc["params"], dict):
        params = doc["params"]
    else:
        return Rejected(INVALID_PARAMS, 'Invalid params: "params" must be an object', request_id)
    if "_meta" in params and not isinstance(params["_meta"], dict):
        return Rejected(INVALID_PARAMS, 'Invalid params: "_meta" must be an object', request_id)
    if doc["method"] == "tools/call":
        if not isinstance(params.get("name"), str):
            reason = 'Invalid params: tools/call needs the tool "name" as a string'
            return Rejected(INVALID_PARAMS, reason, request_id)
        if "arguments" in params and not isinstance(params["arguments"], dict):
            reason = 'Invalid params: tools/call "arguments" must be an object'
            return Rejected(INVALID_PARAMS, reason, request_id)
    if doc["method"] == "resources/read" and not isinstance(params.get("uri"), str):
        reason = coded_text(UsageError('resources/read needs the resource "uri" as a string.'))
        return Rejected(INVALID_PARAMS, reason, request_id)
    if doc["method"] == "prompts/get":
        if not isinstance(params.get("name"), str):
            reason = coded_text(UsageError('prompts/get needs the prompt "name" as a string.'))
            return Rejected(INVALID_PARAMS, reason, request_id)
        arguments = params.get("arguments")
        if arguments is not None and not (
            isinstance(arguments, dict) and all(isinstance(v, str) for v in arguments.values())
        ):
            reason = coded_text(UsageError('prompts/get "arguments" must map names to strings.'))
            return Rejected(INVALID_PARAMS, reason, request_id)
    return None


def _text_problem(doc: dict[str, Any]) -> Rejected | ToolRefusal | None:
    """A refusal for a request whose params hold text that is not valid Unicode.

    See `pwc_local.server.hygiene`: a tool call is refused as a tool error naming the
    argument; any other request answers -32602 naming the parameter.
    """
    params = doc.get("params")
    if not isinstance(params, dict):
        return None
    if doc.get("method") == "tools/call":
        tool = params.get("name")
        if not isinstance(tool, str) or not is_encodable(tool):
            return None  # no such tool: the SDK's "unknown tool" answer fits better
        path = unencodable_path(params.get("arguments") or {})
        return None if path is None else ToolRefusal(doc["id"], tool, invalid_message(path))
    path = unencodable_path(params)
    if path is None:
        return None
    return Rejected(INVALID_PARAMS, invalid_message(path), doc["id"])


# ---------------------------------------------------------------------------------------
# Writing: one compact JSON document and b"\n" per message, on every platform.


def encode_message(message: JSONRPCMessage) -> bytes:
    """Serialise an outgoing message as one line of UTF-8 bytes ending in b"\\n"."""
    try:
        # The serializer's own bytes: model_dump_json would decode them to a str that
        # we would encode again, two copies of every 64 KiB chunk.
        data = message.__pydantic_serializer__.to_json(message, by_alias=True, exclude_unset=True)
    except Exception:
        # Lone surrogates (e.g. from undecodable file names) cannot be UTF-8; as JSON
        # escapes they still can travel.
        plain = message.model_dump(mode="json", by_alias=True, exclude_unset=True)
        data = json.dumps(plain, separators=(",", ":")).encode("ascii")
    for raw, escaped in _LINE_BREAKING_UTF8:
        if raw in data:
            data = data.replace(raw, escaped)
    return data + b"\n"


MODERN_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


def enveloped(params: dict[str, Any] | None) -> bool:
    """Whether request params carry the 2026-07-28 envelope (its protocol-version key in `_meta`).

    The client's first request decides a session's era: one so marked (other than
    `initialize`) opens the modern era, anything else the handshake era.
    """
    meta = (params or {}).get("_meta")
    return isinstance(meta, dict) and MODERN_VERSION_KEY in meta


def pong(request_id: RequestId) -> bytes:
    """The answer to a handshake-era `ping`, as one line (the transport answers it itself)."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "result": {}}
    return json.dumps(body, separators=(",", ":")).encode("ascii") + b"\n"


def connection_closed(request_id: RequestId) -> bytes:
    """The error for a request the session ends without running (the SDK's words and code)."""
    return Rejected(CONNECTION_CLOSED, "Connection closed", request_id).frame()


def oversized_answer(request_id: RequestId, tool: str | None) -> bytes:
    """What is sent instead of an answer over `MAX_ANSWER_BYTES`, as one line.

    A tool call gets a tool error (`isError`), framed like every other one, so the
    model can act on it; any other request gets a JSON-RPC -32603 with the same text.
    """
    if tool is None:
        return Rejected(INTERNAL_ERROR, OVERSIZED_ANSWER, request_id).frame()
    return ToolRefusal(request_id, tool, _oversized_text(tool)).frame()


def _oversized_text(tool: str) -> str:
    """The catalog is to blame only for a hosted tool's answer; a local tool's is local data."""
    entry = contract.BY_NAME.get(tool)
    if entry is None or entry.group == "hosted":
        return OVERSIZED_ANSWER
    return OVERSIZED_WATCH_ANSWER if entry.group == "watch" else OVERSIZED_LOCAL_ANSWER


def public_error(message: JSONRPCMessage) -> JSONRPCMessage:
    """`message`, except that an error answer with code 0 becomes -32603 "Internal error".

    The SDK answers an exception it did not expect with code 0, which JSON-RPC does not
    define, and with the exception's text, which may quote internals or the request.
    The exception is in the server's log; the client learns only that it happened.
    """
    if isinstance(message, JSONRPCError) and message.error.code == 0:
        error = ErrorData(code=INTERNAL_ERROR, message="Internal error")
        return JSONRPCError(jsonrpc="2.0", id=message.id, error=error)
    return message


def answered_id(message: JSONRPCMessage) -> RequestId | None:
    if isinstance(message, JSONRPCResponse | JSONRPCError):
        return message.id
    return None
