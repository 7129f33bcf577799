"""The early answers: what a fresh server says before the SDK has loaded.

Importing the SDK takes about a second; a client's first messages ask for things
that never change while serving (the handshake, the listings). This module answers
them from `early.json`, a file generated from the full server at build time
(`python -m pwc_local.server.early_build`; `tests/test_early.py` fails when it is
stale), with the standard library alone. What it cannot answer exactly as the full
server would, it leaves for it: `take` then returns None and the line is queued.

| message                                  | early answer                              |
| ---------------------------------------- | ----------------------------------------- |
| `initialize`, well-formed                | the recorded result, version negotiated;  |
|                                          | the request is replayed to the SDK later  |
| `server/discover`, supported envelope    | the recorded result; decides no era (a    |
|                                          | client may still fall back to initialize) |
| `tools/list`, `prompts/list`,            | the recorded list in the connection's era |
| `resources/list`,                        | (handshake after `initialize`, modern     |
| `resources/templates/list`               | with a supported envelope), filtered by   |
|                                          | the `tools` setting                       |
| `ping` in the handshake era              | `{}`                                      |
| anything else, anything malformed        | queued for the full server, in order      |

Once a line is queued while no request has decided the era, every later line is
queued too: the full server decides. A request reusing the id of a queued one is
queued as well, for the full server to refuse.
"""

from __future__ import annotations

import json
import os
from importlib.util import find_spec

from pwc_local import __version__
from pwc_local.server.lines import LineSplitter, LineTooLong

TYPE_CHECKING = False  # typing.TYPE_CHECKING; this module imports neither typing nor pathlib
if TYPE_CHECKING:
    from typing import Any

    from pwc_local.config import Settings

DATA_NAME = "early.json"
DATA_FILE = os.path.join(os.path.dirname(__file__), DATA_NAME)
FORMAT = 1  # the layout of early.json; a file of another format is not read

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"

# The listing methods and the key of their list in a result.
LISTS = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
}
HANDSHAKE, MODERN = "handshake", "modern"
_LINE_BREAKING = (("\u2028", "\\u2028"), ("\u2029", "\\u2029"), ("\u0085", "\\u0085"))


class Handover:
    """What the early path leaves to the full transport when the SDK has loaded.

    `lines`: read and not answered, in order; `splitter` holds a line begun and not
    ended; `ended`: stdin has closed. `replay`: messages the SDK must see first, each
    with the answer the early path gave it (the SDK's own answer is compared, then
    dropped). `era`: True for the handshake era,
    False for the modern one, None while undecided. `early` goes on answering
    `server/discover` while the era is undecided.
    """

    def __init__(
        self,
        lines: list[bytes | LineTooLong] | None = None,
        splitter: LineSplitter | None = None,
        ended: bool = False,
        replay: list[tuple[dict[str, Any], bytes]] | None = None,
        era: bool | None = None,
        early: EarlyAnswers | None = None,
    ) -> None:
        self.lines = lines if lines is not None else []
        self.splitter = splitter if splitter is not None else LineSplitter()
        self.ended = ended
        self.replay = replay if replay is not None else []
        self.era = era
        self.early = early


class Unusable(Exception):
    """`early.json` cannot answer for these settings; the message says why."""


def load(settings: Settings, path: str | None = None) -> EarlyAnswers:
    """The early answers for `settings` (from `path`, by default `DATA_FILE`); `Unusable`
    when the file cannot serve them.

    It cannot when it is missing or unreadable, of another format, made for another
    version of this package or of the SDK, or holds no data for the settings'
    profile. The server then starts as it would without it, only slower.
    """
    path = DATA_FILE if path is None else path
    try:
        with open(path, "rb") as file:
            data = json.loads(file.read())
    except (OSError, ValueError) as exc:
        raise Unusable(f"cannot read {os.path.basename(path)} ({type(exc).__name__})") from None
    problem = _problem(data, settings)
    if problem is not None:
        raise Unusable(problem)
    return EarlyAnswers(data, data["profiles"][settings.profile], settings)


def _problem(data: Any, settings: Settings) -> str | None:
    """Why `data` (early.json's content) cannot answer for `settings`, or None."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return f"{DATA_NAME} is of another format"
    if data.get("version") != __version__:
        return f"{DATA_NAME} was made for version {data.get('version')}"
    if not all(_installed(name, version) for name, version in data.get("sdk", {}).items()):
        return f"{DATA_NAME} was made with another version of the MCP SDK"
    if not isinstance(data.get("profiles", {}).get(settings.profile), dict):
        return f"{DATA_NAME} has no answers for the {settings.profile} profile"
    return None


def _installed(distribution: str, version: str) -> bool:
    """Whether `distribution` is installed at `version` (one stat, no metadata scan)."""
    try:
        spec = find_spec(distribution.replace("-", "_"))
    except (ImportError, ValueError):
        return False
    locations = list(spec.submodule_search_locations or []) if spec else []
    name = f"{distribution.replace('-', '_')}-{version}.dist-info"
    places = [os.path.join(os.path.dirname(location), name) for location in locations]
    return any(os.path.isdir(place) for place in places)


class EarlyAnswers:
    """Answers from `early.json` for one process's settings, and the connection's state."""

    def __init__(self, data: dict[str, Any], profile: dict[str, Any], settings: Settings):
        self._handshake_versions: list[str] = data["handshake_versions"]
        self._modern_versions: list[str] = data["modern_versions"]
        self._profile = profile
        self._settings = settings
        self._encoded: dict[tuple[str, str], str] = {}
        self.era: str | None = None  # HANDSHAKE or MODERN once a request decides it
        self.replay: list[tuple[dict[str, Any], bytes]] = []
        self._queued_ids: set[tuple[type, Any]] = set()
        self._queued_undecided = False

    def handover(
        self, lines: list[bytes | LineTooLong], splitter: LineSplitter, ended: bool
    ) -> Handover:
        """The state the full transport goes on from."""
        era = None if self.era is None else self.era == HANDSHAKE
        return Handover(lines, splitter, ended, self.replay, era, self)

    def tools(self) -> list[dict[str, Any]]:
        """The tools as this process lists them: the full server takes them as its listing."""
        tools: list[dict[str, Any]] = self._result("tools/list", HANDSHAKE)["tools"]
        return tools

    def take(self, line: bytes) -> bytes | None:
        """The answer to `line`, or None: queue it for the full server."""
        message = _parse(line)
        answer = None if message is None else self._answer(message)
        if answer is None:
            self._queue(message)
        return answer

    def discover(self, line: bytes) -> bytes | None:
        """The answer to a `server/discover` line while the era is undecided, else None."""
        message = _parse(line)
        if message is None or self.era is not None or message.get("method") != "server/discover":
            return None
        return self._answer(message)

    def _queue(self, message: dict[str, Any] | None) -> None:
        if self.era is None:
            self._queued_undecided = True
        if message is not None and "id" in message:
            self._queued_ids.add(_id_key(message["id"]))

    def _answer(self, message: dict[str, Any]) -> bytes | None:
        if self._queued_undecided or "id" not in message:
            return None
        request_id = message["id"]
        if not _is_id(request_id) or _id_key(request_id) in self._queued_ids:
            return None
        if isinstance(request_id, str) and not request_id.isascii():
            return None  # the full transport's own encoding decides how it is written
        method, params = message["method"], message.get("params")
        if method == "initialize":
            return self._initialize(request_id, params, message)
        envelope = _modern_envelope(params, self._modern_versions)
        if method == "server/discover":
            if envelope and self.era != HANDSHAKE:
                return self._reply(request_id, "server/discover", MODERN)
            return None
        if method == "ping" and self.era == HANDSHAKE and _plain(params, allow_meta=True):
            return _frame(request_id, "{}")
        if method not in LISTS:
            return None
        if self.era == HANDSHAKE and _plain(params, allow_meta=True):
            return self._reply(request_id, method, HANDSHAKE)
        if self.era != HANDSHAKE and envelope:
            self.era = MODERN
            return self._reply(request_id, method, MODERN)
        return None

    def _initialize(self, request_id: Any, params: Any, message: dict[str, Any]) -> bytes | None:
        if self.era is not None or not _initialize_params(params):
            return None
        requested = params["protocolVersion"]
        if requested in self._handshake_versions:
            version = requested
        elif requested in self._modern_versions:
            return None  # the SDK's own refusal
        else:
            version = self._handshake_versions[-1]
        self.era = HANDSHAKE
        result = dict(self._profile["initialize"])
        result["protocolVersion"] = version
        answer = _frame(request_id, _encode(result))
        self.replay.append((message, answer))
        return answer

    def _reply(self, request_id: Any, method: str, era: str) -> bytes:
        encoded = self._encoded.get((method, era))
        if encoded is None:
            encoded = _encode(self._result(method, era))
            self._encoded[(method, era)] = encoded
        return _frame(request_id, encoded)

    def _result(self, method: str, era: str) -> dict[str, Any]:
        if method == "server/discover":
            result: dict[str, Any] = self._profile["discover"]
            return result
        key = LISTS[method]
        result = dict(self._profile["results"][era][method])
        result[key] = [
            entry["item"]
            for entry in self._profile["lists"][era][key]
            if entry["gate"] is None or self._settings.tool_selected(*entry["gate"])
        ]
        return result


def _parse(line: bytes) -> dict[str, Any] | None:
    """A JSON-RPC message the early path may look at, else None."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if (
        not isinstance(message, dict)
        or message.get("jsonrpc") != "2.0"
        or not isinstance(message.get("method"), str)
        or not set(message) <= {"jsonrpc", "id", "method", "params"}
    ):
        return None
    return message


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _id_key(value: Any) -> tuple[type, Any]:
    # JSON-RPC ids compare by type and value: 5 and "5" are two requests.
    return (type(value), value if _is_id(value) else repr(value))


def _plain(params: Any, *, allow_meta: bool) -> bool:
    """No parameters, or only a `_meta` object without the modern envelope."""
    if params is None:
        return True
    if not isinstance(params, dict) or not set(params) <= ({"_meta"} if allow_meta else set()):
        return False
    meta = params.get("_meta", {})
    return isinstance(meta, dict) and VERSION_KEY not in meta


def _modern_envelope(params: Any, versions: list[str]) -> bool:
    """Whether `params` hold only a well-formed envelope of a supported modern version."""
    if not isinstance(params, dict) or set(params) != {"_meta"}:
        return False
    meta = params["_meta"]
    if not isinstance(meta, dict) or not set(meta) <= {
        VERSION_KEY,
        CAPABILITIES_KEY,
        CLIENT_INFO_KEY,
    }:
        return False
    info = meta.get(CLIENT_INFO_KEY)
    return (
        meta.get(VERSION_KEY) in versions
        and isinstance(meta.get(CAPABILITIES_KEY), dict)
        and all(isinstance(value, dict) for value in meta[CAPABILITIES_KEY].values())
        and (info is None or _implementation(info))
    )


def _initialize_params(params: Any) -> bool:
    """Whether `initialize` params are well-formed beyond doubt (else the SDK judges)."""
    if not isinstance(params, dict) or not set(params) <= {
        "protocolVersion",
        "capabilities",
        "clientInfo",
        "_meta",
    }:
        return False
    capabilities = params.get("capabilities")
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(capabilities, dict)
        and all(isinstance(value, dict) for value in capabilities.values())
        and _implementation(params.get("clientInfo"))
        and isinstance(params.get("_meta", {}), dict)
    )


def _implementation(info: Any) -> bool:
    """A client's name and version, and no other field but plain strings."""
    return (
        isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
        and set(info) <= {"name", "version", "title", "description", "websiteUrl"}
        and all(isinstance(value, str) for value in info.values())
    )


def _encode(result: dict[str, Any]) -> str:
    """`result` as the full transport writes it: compact JSON, UTF-8, line breaks escaped."""
    text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in _LINE_BREAKING:
        text = text.replace(raw, escaped)
    return text


def _frame(request_id: Any, result: str) -> bytes:
    head = json.dumps({"jsonrpc": "2.0", "id": request_id}, separators=(",", ":"))[:-1]
    return f'{head},"result":{result}}}\n'.encode()
