"""Settings: where each value comes from and what makes it valid.

Precedence, highest first: command-line flags, environment variables
(`PWC_API_URL` exactly as the `pwc` CLI reads it, `PWC_MCP_LOCAL_*` for our own
settings), the optional `mcp-local.toml` in the pwc CLI's configuration directory,
then built-in defaults. Any bad value raises `ConfigError`, whose message is one
line a person can act on; the command line turns it into exit status 2 before any
protocol traffic.

This module is imported before the MCP handshake, so it imports nothing the first
answer does not need: not platformdirs, the TOML parser or the tool contract, and
not even `typing`, `dataclasses` or `pathlib` (tens of milliseconds together, more
than the rest of the way to the first answer; `test_early` lists them). A
`pathlib.Path` is made only for a path that is set or a settings file that exists.
"""

from __future__ import annotations

import math
import os
import re
import sys
from urllib.parse import urlsplit

from pwc_local.failures import CodedError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path
    from typing import Any

APP_NAME = "pwc-mcp-local"
DEFAULT_API_URL = "https://paperswithcode.co/api/v1"
DEFAULT_TIMEOUT = 25.0
DEFAULT_LOG_LEVEL = "warning"
DEFAULT_CACHE_SIZE = 1024**3
DEFAULT_CURSOR_TTL = 24 * 3600
DEFAULT_TOOLS = "all"
DEFAULT_OUTAGE_BUDGET = 1.0
DEFAULT_RESULT_TEXT = "markdown"
# What a tool result's text block holds (present/render.py): the data as Markdown, the
# hosted server's short templates, or the compact JSON of `structuredContent`.
RESULT_TEXTS = ("markdown", "summary", "json")
# The shape of `structuredContent` (pwc_local/present): `compact`, each fact once, for
# clients that hand the model only this half; `hosted`, the hosted server's shapes byte
# for byte (the default when `tools = "hosted"`, the drop-in profile).
STRUCTURED = ("compact", "hosted")
# read_paper's chunk: small enough that every client tried hands it to the model whole
# (docs/benchmarks.md, real clients); the hosted profile keeps the catalog's 64 KiB.
DEFAULT_READ_CHUNK = 8192
MIN_READ_CHUNK = 1024
MAX_READ_CHUNK = 65536  # the catalog's chunk, `contract.CHUNK_BYTES` (test_config checks)
CONFIG_FILE_NAME = "mcp-local.toml"
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")

ENV_API_URL = "PWC_API_URL"
ENV_PREFIX = "PWC_MCP_LOCAL_"

# setting name -> environment variable; the TOML file uses the setting names as keys.
ENV_NAMES = {
    "api_url": ENV_API_URL,
    "timeout": ENV_PREFIX + "TIMEOUT",
    "log_level": ENV_PREFIX + "LOG_LEVEL",
    "log_file": ENV_PREFIX + "LOG_FILE",
    "cache_dir": ENV_PREFIX + "CACHE_DIR",
    "cache_size": ENV_PREFIX + "CACHE_SIZE",
    "cursor_ttl": ENV_PREFIX + "CURSOR_TTL",
    "tools": ENV_PREFIX + "TOOLS",
    "outage_budget": ENV_PREFIX + "OUTAGE_BUDGET",
    "result_text": ENV_PREFIX + "RESULT_TEXT",
    "structured": ENV_PREFIX + "STRUCTURED",
    "read_chunk": ENV_PREFIX + "READ_CHUNK",
}
ENV_CONFIG_FILE = ENV_PREFIX + "CONFIG"


class ConfigError(CodedError, ValueError):
    """A setting is missing, malformed or unreadable; the message says which and why.

    Clients see it as `config_error: <message>`: the message names the file or
    setting and the fix, for the person running the server.
    """

    code = "config_error"
    shown = True


# The settings' names, in order: what `Settings` holds besides `sources`.
FIELDS = (*ENV_NAMES, "config_file")


class Settings:
    """Resolved configuration of one process. `sources` names each value's origin.

    Read-only once made; equal when every value is (whatever their sources). A plain
    class: a dataclass would import `dataclasses` and `inspect` before the first answer.
    """

    __slots__ = (*FIELDS, "sources")
    api_url: str
    timeout: float
    log_level: str
    log_file: Path | None
    cache_dir: Path | None
    cache_size: int
    cursor_ttl: int
    tools: str
    outage_budget: float
    result_text: str
    structured: str | None  # None: `hosted` with `tools = "hosted"`, else `compact`
    read_chunk: int | None  # None: the profile's (64 KiB hosted, 8 KiB compact)
    config_file: Path | None
    sources: Mapping[str, str]

    def __init__(
        self,
        *,
        api_url: str = DEFAULT_API_URL,
        timeout: float = DEFAULT_TIMEOUT,
        log_level: str = DEFAULT_LOG_LEVEL,
        log_file: Path | None = None,
        cache_dir: Path | None = None,
        cache_size: int = DEFAULT_CACHE_SIZE,
        cursor_ttl: int = DEFAULT_CURSOR_TTL,
        tools: str = DEFAULT_TOOLS,
        outage_budget: float = DEFAULT_OUTAGE_BUDGET,
        result_text: str = DEFAULT_RESULT_TEXT,
        structured: str | None = None,
        read_chunk: int | None = None,
        config_file: Path | None = None,
        sources: Mapping[str, str] | None = None,
    ) -> None:
        given = locals()
        for name in FIELDS:
            object.__setattr__(self, name, given[name])
        object.__setattr__(self, "sources", dict(sources or {}))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"settings are read-only ({name})")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in FIELDS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in FIELDS)
        return f"Settings({values})"

    def resolved_cache_dir(self) -> Path:
        """The cache directory: the configured one, else platformdirs' user cache dir."""
        if self.cache_dir is not None:
            return self.cache_dir
        from pathlib import Path

        from platformdirs import user_cache_dir

        return Path(user_cache_dir(APP_NAME, appauthor=False))

    @property
    def profile(self) -> str:
        """The `structuredContent` shape served: `compact` or `hosted` (see `STRUCTURED`)."""
        if self.structured is not None:
            return self.structured
        return "hosted" if self.tools == "hosted" else "compact"

    @property
    def chunk_bytes(self) -> int:
        """read_paper's chunk size: the `read_chunk` setting, else the profile's."""
        if self.read_chunk is not None:
            return self.read_chunk
        return MAX_READ_CHUNK if self.profile == "hosted" else DEFAULT_READ_CHUNK

    def origin(self, name: str) -> str:
        """Where setting `name` comes from, in words: `set in the environment`, `the default` ..."""
        source = self.sources.get(name, "default")
        if source == "default":
            return "the default"
        if source.startswith("environment"):
            return "set in the environment"
        return "set on the command line" if source == "command line" else f"set in {source}"

    def setting_words(self, name: str) -> str:
        """How a message names setting `name`: `PWC_API_URL (set in the environment)`."""
        return f"{ENV_NAMES[name]} ({self.origin(name)})"

    def tool_selected(self, name: str, group: str) -> bool:
        """Whether the `tools` setting lists tool `name` (of contract group `group`)."""
        if self.tools == "all":
            return True
        if self.tools == "hosted":
            return group == "hosted"
        return name in self.tools.split(",")


def pwc_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The `pwc` CLI's configuration directory: `$XDG_CONFIG_HOME/pwc` or `~/.config/pwc`."""
    from pathlib import Path

    return Path(_pwc_config_location(os.environ if environ is None else environ))


def _pwc_config_location(env: Mapping[str, str]) -> str:
    """`pwc_config_dir` as a string: no `pathlib` on the way to the first answer."""
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "pwc")


def load_settings(
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    config_file: Path | None = None,
    *,
    problems: list[str] | None = None,
    env_origin: str = "environment",
) -> Settings:
    """Resolve every setting from flags, environment, config file and defaults.

    `flags` holds command-line values (`None` means "not given"). `config_file`
    names an explicit file, which must then exist; otherwise `PWC_MCP_LOCAL_CONFIG`
    or the default location is used, and a missing default file is fine.

    With a `problems` list, nothing is raised: each bad value (or an unreadable file)
    is appended there as the message `ConfigError` would carry, and that setting
    falls back to the next source. `doctor` uses this to go on probing the catalog
    URL the user set while another setting is wrong. `env_origin` is how messages
    name where `environ` came from (`install` checks its `--env` values this way).
    """
    env = os.environ if environ is None else environ
    given_flags = {k: v for k, v in (flags or {}).items() if v is not None}
    path: Path | None = None
    file_values: dict[str, Any] = {}
    if config_file is not None or env.get(ENV_CONFIG_FILE) or _default_file_present(env):
        path, required = config_file_path(config_file, env)
        try:
            file_values = _read_config_file(path, required=required)
        except ConfigError as exc:
            if problems is None:
                raise
            problems.append(str(exc))

    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, env_name in ENV_NAMES.items():
        candidates = []
        if name in given_flags:
            candidates.append((given_flags[name], "command line"))
        if env.get(env_name, "") != "":
            candidates.append((env[env_name], f"{env_origin} {env_name}"))
        if name in file_values:
            candidates.append((file_values[name], f"config file {path}"))
        sources[name] = "default"
        for raw, origin in candidates:
            try:
                values[name] = _PARSERS[name](raw)
            except ConfigError as exc:
                message = f"invalid {name} from {origin}: {exc}"
                if problems is None:
                    raise ConfigError(message) from None
                problems.append(message)
                continue
            sources[name] = origin
            break
    return Settings(**values, config_file=path if file_values else None, sources=sources)


def config_file_path(explicit: Path | None, env: Mapping[str, str]) -> tuple[Path, bool]:
    """The settings file to read, and whether it must exist (named, not the default)."""
    from pathlib import Path

    if explicit is not None:
        return Path(explicit).expanduser(), True
    if env.get(ENV_CONFIG_FILE):
        return Path(env[ENV_CONFIG_FILE]).expanduser(), True
    return pwc_config_dir(env) / CONFIG_FILE_NAME, False


MAX_CONFIG_BYTES = 1024 * 1024


def _default_file_present(env: Mapping[str, str]) -> bool:
    """Whether anything is at the default settings file's place (a missing one is fine)."""
    return os.path.lexists(os.path.join(_pwc_config_location(env), CONFIG_FILE_NAME))


def _read_config_file(path: Path, *, required: bool) -> dict[str, Any]:
    """The settings in `path`, refused when another user could have written them.

    The file steers the server (the catalog URL, the log file), so one that others
    can write, or in a directory they can write, is not honoured
    (`private_files.read_trusted`): the message names the file and the fix.
    """
    from pwc_local import private_files

    try:
        data = private_files.read_trusted(path, MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        if required:
            raise ConfigError(f"config file {path} does not exist") from None
        return {}
    except private_files.NotPrivate as exc:
        raise ConfigError(str(private_files.refusal("settings file", path, exc.exposure))) from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {path} is over 1 MiB; it cannot be a settings file")
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    unknown = sorted(set(document) - set(ENV_NAMES))
    if unknown:
        known = ", ".join(ENV_NAMES)
        raise ConfigError(
            f"config file {path} has unknown setting {unknown[0]!r}"
            f"{did_you_mean(unknown[0], ENV_NAMES)} (known: {known})"
        )
    return document


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean X?` for the known name closest to a misspelt `name`, else ``."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.8)
    return f"; did you mean {close[0]}?" if close else ""


def parse_api_url(raw: Any) -> str:
    """An absolute http(s) URL with a host; trailing slashes are removed, as `pwc` does."""
    if not isinstance(raw, str) or not raw.strip():
        raise ConfigError("expected an http:// or https:// URL")
    url = raw.strip().rstrip("/")
    # What httpx would refuse as `InvalidURL` at every call (control characters, an
    # over-long URL, a malformed IPv4 address) is refused here, at start-up, naming
    # the setting; importing httpx for the check would cost start-up 80 ms.
    if not url.isprintable():
        raise ConfigError(f"{raw!r} has a control character; it is not a valid URL")
    if len(url) > MAX_URL_CHARS:
        raise ConfigError(f"the URL is over {MAX_URL_CHARS} characters long")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        raise ConfigError(f"{raw!r} is not a valid URL") from None
    if parts.scheme not in ("http", "https"):
        raise ConfigError(f"{raw!r} must start with http:// or https://")
    if not parts.hostname:
        raise ConfigError(f"{raw!r} has no host name")
    if any(char.isspace() for char in url):
        raise ConfigError(f"{raw!r} has a space; it is not a valid URL")
    if _IPV4_STYLE.fullmatch(parts.hostname) and not _is_ipv4(parts.hostname):
        raise ConfigError(f"{raw!r} has a malformed IPv4 address")
    if not parts.hostname.isascii() and not _is_idna(parts.hostname):
        raise ConfigError(f"{raw!r} has a host name that is not a valid international name")
    if parts.query or parts.fragment:
        raise ConfigError(f"{raw!r} must not carry a query or fragment")
    return url


MAX_URL_CHARS = 65536  # httpx's bound
_IPV4_STYLE = re.compile(r"[0-9.]+")


def _is_ipv4(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def _is_idna(host: str) -> bool:
    """Whether httpx can encode the non-ASCII `host` (with `idna`, which httpx requires)."""
    import idna

    try:
        idna.encode(host)
    except idna.IDNAError:
        return False
    return True


MAX_TIMEOUT = 600.0


def parse_timeout(raw: Any) -> float:
    """Seconds per catalog request: more than 0, at most 600.

    A request still running when the client closes stdin is not waited for this long:
    the transport gives it 1.5 s (`stdio.DEFAULT_DRAIN_TIMEOUT`), then cancels it.
    """
    return _seconds(raw, MAX_TIMEOUT)


def parse_log_level(raw: Any) -> str:
    level = str(raw).strip().lower()
    if level not in LOG_LEVELS:
        raise ConfigError(f"{raw!r} is not one of {', '.join(LOG_LEVELS)}")
    return level


def parse_path(raw: Any) -> Path:
    if not isinstance(raw, str) or not raw.strip():
        raise ConfigError("expected a file system path")
    from pathlib import Path

    return Path(raw.strip()).expanduser()


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:([kmgt])(i?)b?|b)?", re.IGNORECASE)
_SIZE_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4}
MAX_CACHE_SIZE = 2**63 - 1  # diskcache keeps the bound in an SQLite INTEGER


def parse_size(raw: Any) -> int:
    """A byte count: `1073741824`, `500MB`, `1GiB`, `2g` (binary units with `i`)."""
    if isinstance(raw, bool):
        raise ConfigError(f"{raw!r} is not a size")
    if isinstance(raw, int):
        value = raw
    else:
        match = _SIZE.fullmatch(str(raw).strip())
        if not match:
            raise ConfigError(f"{raw!r} is not a size such as 1GiB or 500MB")
        number, prefix, binary = match.groups()
        power = _SIZE_POWERS[prefix.lower()] if prefix else 0
        # Decimal, not float: exact for any number of digits, and it cannot overflow.
        # (Imported here: sizes are rare, and the serving path's first answer waits on
        # every module this one imports.)
        from decimal import Decimal

        value = int(Decimal(number) * (1024 if binary else 1000) ** power)
    if value < 1024 * 1024:
        raise ConfigError(f"{raw!r} is below the 1 MiB minimum")
    if value > MAX_CACHE_SIZE:
        raise ConfigError(f"{raw!r} is above the largest size the cache can hold (8 EiB)")
    return value


def format_size(count: int) -> str:
    """A byte count for people: `512 B`, `3.5 MiB`, `1.0 GiB` (the inverse of parse_size)."""
    value = float(count)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{count} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def parse_cursor_ttl(raw: Any) -> int:
    """Cursor lifetime in seconds: 1 minute to 30 days."""
    value = _number(raw, "a number of seconds")
    if not math.isfinite(value) or not 60 <= value <= 30 * 24 * 3600:
        raise ConfigError(f"{raw!r} must be between 60 and 2592000 seconds")
    return int(value)


def _seconds(raw: Any, most: float) -> float:
    """A number of seconds above 0 and at most `most`."""
    value = _number(raw, "a number of seconds")
    if not math.isfinite(value) or not 0 < value <= most:
        raise ConfigError(f"{raw!r} must be a number of seconds above 0 and at most {most:g}")
    return value


def _number(raw: Any, what: str) -> float:
    if isinstance(raw, bool):
        raise ConfigError(f"{raw!r} is not {what}")
    try:
        return float(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{raw!r} is not {what}") from None


MAX_OUTAGE_BUDGET = 60.0


def parse_outage_budget(raw: Any) -> float:
    """Seconds an uncached call waits on a catalog known to be down (connect and answer).

    Above 0 and at most 60; longer than the request timeout means the timeout rules.
    """
    return _seconds(raw, MAX_OUTAGE_BUDGET)


def _one_of(raw: Any, choices: tuple[str, ...], meanings: str) -> str:
    """`raw` as one of `choices` (any case); `meanings` says what each does, for the error."""
    value = str(raw).strip().lower()
    if value not in choices:
        raise ConfigError(f"{str(raw)[:64]!r} is not one of {', '.join(choices)} ({meanings})")
    return value


def parse_result_text(raw: Any) -> str:
    """What the text block of a tool result holds: `markdown`, `summary` or `json`."""
    meanings = (
        "markdown: the data as Markdown; summary: the hosted server's short text; "
        "json: the structured result"
    )
    return _one_of(raw, RESULT_TEXTS, meanings)


def parse_structured(raw: Any) -> str:
    """The shape of `structuredContent`: `compact` or `hosted`."""
    meanings = "compact: each fact once; hosted: the hosted server's shapes"
    return _one_of(raw, STRUCTURED, meanings)


def parse_read_chunk(raw: Any) -> int:
    """read_paper's chunk in bytes, from 1024 to 65536."""
    try:
        value = int(str(raw).strip()) if not isinstance(raw, bool) else None
    except ValueError:
        value = None
    if value is None or not MIN_READ_CHUNK <= value <= MAX_READ_CHUNK:
        raise ConfigError(
            f"{str(raw)[:64]!r} is not a whole number of bytes from {MIN_READ_CHUNK} to "
            f"{MAX_READ_CHUNK} (default {DEFAULT_READ_CHUNK}; 65536 in the hosted profile)"
        )
    return value


_TOOL_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


def parse_tools(raw: Any) -> str:
    """Which tools to serve: `all`, `hosted` (exactly the hosted server's 21), or names.

    Names come comma-separated (`"read_paper, search_library"`) or, in TOML, as a
    list; each must be a tool the server has. The result is `all`, `hosted` or the
    names joined by commas, in the order given, without repeats.
    """
    if isinstance(raw, list | tuple):
        items = [str(item) for item in raw]
    elif isinstance(raw, str):
        items = raw.split(",")
    else:
        raise ConfigError("expected all, hosted or a comma-separated list of tool names")
    names = list(dict.fromkeys(item.strip().lower() for item in items if item.strip()))
    if not names:
        raise ConfigError("expected all, hosted or a comma-separated list of tool names")
    if names in (["all"], ["hosted"]):
        return names[0]
    known = known_tool_names()
    for name in names:
        if not _TOOL_NAME.fullmatch(name) or name not in known:
            shown = name if _TOOL_NAME.fullmatch(name) else repr(name[:64])
            raise ConfigError(
                f"unknown tool {shown}; use all, hosted, or tool names separated by commas "
                "(such as read_paper,search_library)"
            )
    return ",".join(names)


def known_tool_names() -> frozenset[str]:
    """Every tool name the server declares (`pwc_local.contract`)."""
    from pwc_local import contract

    return frozenset(contract.names())


_PARSERS = {
    "api_url": parse_api_url,
    "timeout": parse_timeout,
    "log_level": parse_log_level,
    "log_file": parse_path,
    "cache_dir": parse_path,
    "cache_size": parse_size,
    "cursor_ttl": parse_cursor_ttl,
    "tools": parse_tools,
    "outage_budget": parse_outage_budget,
    "result_text": parse_result_text,
    "structured": parse_structured,
    "read_chunk": parse_read_chunk,
}
