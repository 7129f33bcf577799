"""The checks behind `pwc-mcp-local doctor`.

Each check looks at one thing a working setup needs and returns a `Check`: a status
(`ok`, `warn`, `fail`, `skip`), a one-line summary, and for anything that is not ok,
the fix a person can apply. `iter_checks` yields them in a fixed order as each one
completes, quick local checks first, so the command can print every line at once;
the command in `pwc_local.commands.doctor` only formats the results.

The checks, in order: the resolved configuration and where each value came from; the
settings file (only its owner may write it); the executable a client would run; the
cache directory (private, writable, size, bound); the
cursor key (present, mode, owner; the secret itself is never read out); the catalog
(one cheap request to the configured URL with the configured timeout: its latency,
or the precise cause from `pwc_local.upstream.causes`, and the proxy in use); a
self-test that starts the server with this shell's settings, completes the MCP
handshake and lists the tools; and every MCP client config that has an entry for us,
each entry started exactly as its client starts it (command, arguments, `env`, over
a desktop application's minimal environment), reporting the line the server printed
or why the OS would not start it (a missing interpreter, an exec format error).

An entry's server does not see this shell's `PWC_*` variables: it runs with its own
`env`, else the defaults. So each entry's settings are resolved from the environment
it starts with, every one that differs from the shell's is named in a note, and the
catalog it will use is checked (once per URL and timeout): the shell's catalog
answering says nothing about an entry pointed elsewhere.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pwc_local.clients.entry import (
    DEFAULT_NAME,
    SCRIPT_NAME,
    entry_args,
    entry_env,
    entry_program,
    is_our_entry,
    is_runnable,
)
from pwc_local.clients.errors import ClientConfigError
from pwc_local.clients.installer import load_document
from pwc_local.clients.leftovers import disk_size
from pwc_local.clients.targets import TARGETS, WINDOWS, ClientTarget, Host
from pwc_local.config import (
    CONFIG_FILE_NAME,
    ENV_NAMES,
    Settings,
    config_file_path,
    format_size,
    pwc_config_dir,
)

Status = Literal["ok", "warn", "fail", "skip"]
SELF_TEST_TIMEOUT = 30.0
# What a desktop application's children find on PATH (launchd's and most session
# managers' default), not the shell's: a bare command name must be found there.
DESKTOP_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
# Passed on to the self-test server: our settings, and the directories they default to.
_PASSED_ENV_PREFIXES = ("PWC_", "XDG_")


@dataclass(frozen=True)
class Check:
    """The outcome of one check; `details` carries structured facts for `--json`."""

    name: str
    status: Status
    summary: str
    fix: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    # Facts worth a line whatever the status, such as a client entry whose settings
    # differ from the shell's.
    notes: tuple[str, ...] = ()


def iter_checks(
    settings: Settings,
    *,
    command: tuple[str, Sequence[str]],
    host: Host,
    config_error: str | None = None,
    offline: bool = False,
    server_args: Sequence[str] = (),
    settings_file: Path | None = None,
) -> Iterator[Check]:
    """Run every check, yielding each result as soon as it is known, so a caller can
    print it at once. `command` is what clients are told to run (see
    `pwc_local.clients.entry.server_command`); `server_args` are extra command-line
    options (such as `--api-url`) the self-test passes to the server. With a
    `config_error`, `settings` holds every value that was valid (see
    `load_settings(problems=...)`), so the catalog check still probes the URL and
    timeout the user set. `settings_file` is the one named by `--config`, if any."""
    import anyio

    trusted = check_settings_file(settings_file, host.environ)
    if trusted.status == "fail" and config_error is not None:  # said once, on its own line
        config_error = config_error.replace(trusted.details.get("refusal", ""), "").strip("; ")
    refused = trusted.status == "fail"
    yield check_configuration(settings, config_error or None, host.environ, refused=refused)
    yield trusted
    yield check_executable(command)
    yield check_cache(settings)
    yield check_cursor_key(host.environ)
    catalogs = CatalogProbes(host.environ)
    if offline:
        yield Check("catalog", "skip", "not checked (--offline)")
    else:
        yield catalogs.check(settings)
    self_test_command = (command[0], [*command[1], *server_args])
    yield anyio.run(check_self_test, self_test_command, host.environ)
    yield from iter_client_checks(host, shell=settings, catalogs=None if offline else catalogs)


# -- configuration -------------------------------------------------------------------------


def check_configuration(
    settings: Settings,
    error: str | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    refused: bool = False,
) -> Check:
    """The resolved settings and the origin of each (flag, environment, file, default);
    `refused`: the settings file is refused (`check_settings_file` says why)."""
    if error is not None:
        return Check(
            "configuration",
            "fail",
            error,
            fix="correct or remove the value named above; the server refuses to start with it",
        )
    details: dict[str, Any] = {}
    for name in ENV_NAMES:
        value = _effective(settings, name)
        details[name] = {
            "value": None if value is None else _shown(name, value),
            "source": settings.sources.get(name, "default"),
        }
    if settings.config_file is not None:
        summary = f"settings file {settings.config_file} in use"
    elif refused:
        summary = "defaults and environment (the settings file is refused: see below)"
    else:
        default_file = pwc_config_dir(environ) / CONFIG_FILE_NAME
        summary = f"defaults and environment (no settings file at {default_file})"
    return Check("configuration", "ok", summary, details=details)


def check_settings_file(explicit: Path | None, environ: Mapping[str, str]) -> Check:
    """The settings file is one only its owner may write, in a directory only they may
    write (`private_files.read_trusted`): the server refuses one others could rewrite."""
    from pwc_local import private_files

    path, required = config_file_path(explicit, environ)
    details: dict[str, Any] = {"path": str(path)}
    name = "settings file"
    try:
        private_files.read_trusted(path, 0)
    except FileNotFoundError:
        if required:
            return Check(name, "fail", f"{path} does not exist", "create it, or unset it", details)
        return Check(name, "skip", "none (see the configuration line)", details=details)
    except private_files.NotPrivate as exc:
        refused = private_files.refusal(name, path, exc.exposure)
        details["refusal"] = str(refused)
        fix = f"{refused.fix} (the server refuses to start until then)"
        return Check(name, "fail", refused.problem, fix, details)
    except OSError as exc:
        return Check(name, "fail", f"cannot read {path}: {exc.strerror or exc}", None, details)
    return Check(name, "ok", f"{path}: only you can change it", details=details)


def _seconds(value: Any) -> str:
    return f"{value:g} s"


# Every setting that is a duration or a size, and how it is written with its unit; a
# new one belongs here (tests/test_doctor.py checks that no number is shown bare).
# pipx reinstalls from where it installed (a checkout, a wheel): not yet on PyPI.
REINSTALL = "reinstall it: pipx reinstall pwc-mcp-local (pipx keeps where it came from)"

SETTING_UNITS: dict[str, Callable[[Any], str]] = {
    "cache_size": lambda value: human_size(int(value)),
    "read_chunk": lambda value: human_size(int(value)),
    "timeout": _seconds,
    "cursor_ttl": _seconds,
    "outage_budget": _seconds,
}


def _shown(name: str, value: Any) -> str:
    """A setting as a person writes it: `1 GiB`, `25 s`, a path, a URL."""
    unit = SETTING_UNITS.get(name)
    return unit(value) if unit is not None else str(value)


def _counted(count: int, noun: str, nouns: str = "") -> str:
    """`1 tool`, `27 tools`."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def human_size(count: int) -> str:
    """`format_size` without a needless `.0`: `1 GiB`, `1.5 GiB`, `512 B`."""
    return format_size(count).replace(".0 ", " ")


# -- executable ----------------------------------------------------------------------------


def check_executable(command: tuple[str, Sequence[str]]) -> Check:
    """The program `install` writes into client configs."""
    program, args = command
    details = {"command": [program, *args], "on_path": shutil.which(SCRIPT_NAME)}
    if not is_runnable(Path(program)):
        return Check(
            "executable",
            "fail",
            f"{program} is not an executable file",
            fix=REINSTALL,
            details=details,
        )
    if args:
        return Check(
            "executable",
            "warn",
            f"no {SCRIPT_NAME} script found; clients will run {program} {' '.join(args)}",
            fix="install with pipx for a stable script path: pipx install . in a checkout, "
            "or pipx install FILE.whl",
            details=details,
        )
    return Check("executable", "ok", program, details=details)


# -- cache ---------------------------------------------------------------------------------


def check_cache(settings: Settings) -> Check:
    """The cache directory exists (or can be made), takes a new file, and its size."""
    from pwc_local.store.cache import CacheError, ensure_directory

    directory = settings.resolved_cache_dir()
    details: dict[str, Any] = {"path": str(directory), "bound": settings.cache_size}
    elsewhere = f"point {ENV_NAMES['cache_dir']} at a directory only you can use"
    fix = f"make {directory} a directory you can write to, or {elsewhere}"
    try:
        # As private as a server makes it: the default directory narrowed to 0700, a
        # configured one refused when others may use it.
        ensure_directory(directory, ours=settings.cache_dir is None)
    except CacheError as exc:
        if exc.refusal is None:
            return Check("cache", "fail", str(exc), fix, details)
        problem, remedy = exc.refusal.problem, exc.refusal.fix
        return Check("cache", "fail", f"{problem}: not used", f"{remedy}, or {elsewhere}", details)
    try:
        fd, probe = tempfile.mkstemp(prefix=".doctor-", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return Check("cache", "fail", f"{directory} is not writable: {reason}", fix, details)
    size = disk_size(directory)
    details["bytes"] = size
    entries = _cache_entries(settings)
    if entries is not None:
        details["entries"] = entries
    counted = f", {_counted(entries, 'entry', 'entries')}" if entries is not None else ""
    bound = human_size(settings.cache_size)
    summary = f"{directory}: private, writable, {format_size(size)} of {bound}{counted}"
    if size > settings.cache_size:
        return Check(
            "cache",
            "warn",
            summary + " (over its bound)",
            fix="pwc-mcp-local cache prune, or raise PWC_MCP_LOCAL_CACHE_SIZE",
            details=details,
        )
    return Check("cache", "ok", summary, details=details)


def _cache_entries(settings: Settings) -> int | None:
    """Entry count from the cache's own statistics, when they can be read."""
    try:
        from pwc_local.store.cache import DiskCache

        cache = DiskCache.from_settings(settings)
        try:
            return cache.stats().entries
        finally:
            cache.close()
    except Exception:  # statistics are a nicety; the filesystem checks above decide
        return None


# -- cursor key ----------------------------------------------------------------------------


def check_cursor_key(environ: Mapping[str, str], directory: Path | None = None) -> Check:
    """Key file present (or not yet needed), private (mode 0600 in a 0700 directory)
    and owned by this user. Only metadata is inspected and shown; never the secret."""
    from pwc_local.store.keys import ENV_CURRENT, key_status

    status = key_status(directory, environ=environ)
    path = status.current.path
    details: dict[str, Any] = {"path": str(path), "source": status.source}
    if status.source == "environment" and status.problem is None:
        return Check(
            "cursor key", "ok", f"from {ENV_CURRENT}; the key file is not used", None, details
        )
    if not status.current.exists and status.problem is None:
        return Check(
            "cursor key",
            "ok",
            f"not created yet; the server makes {path} on first use",
            None,
            details,
        )
    info = status.current
    if info.exists:
        details.update(
            mode=None if info.mode is None else f"{info.mode:04o}", owner_uid=info.owner_uid
        )
    if os.name == "posix" and info.exists and info.mode is not None:
        uid = os.geteuid()
        if info.owner_uid is not None and info.owner_uid != uid:
            return Check(
                "cursor key",
                "fail",
                f"{path} belongs to uid {info.owner_uid}, not to you (uid {uid})",
                fix=f"chown {uid} {path}  (or delete it: a new key is made on next start)",
                details=details,
            )
        if info.mode & 0o077:
            return Check(
                "cursor key",
                "fail",
                f"{path} has mode {info.mode:04o}; other users could read it",
                fix=f"chmod 600 {path}",
                details=details,
            )
    if status.problem is not None:
        fix = "follow the advice above"
        if info.exists:
            fix += f", or delete {path} (open read_paper cursors then stop working)"
        return Check("cursor key", "fail", status.problem, fix=fix, details=details)
    mode = f"mode {info.mode:04o}, " if info.mode is not None else ""
    return Check("cursor key", "ok", f"{path}: {mode}owned by you", None, details)


# -- catalog -------------------------------------------------------------------------------


class CatalogProbes:
    """The catalog check for each catalog doctor meets: the shell's, then each client
    entry's (its own URL and timeout, see `entry_settings`). A URL and timeout already
    checked are not asked again, so entries that run with the shell's catalog cost no
    further request. The request goes through this process's proxy variables."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ
        self._done: dict[tuple[str, float], Check] = {}

    def check(self, settings: Settings) -> Check:
        import anyio

        key = (settings.api_url, settings.timeout)
        if key not in self._done:
            self._done[key] = anyio.run(check_catalog, settings, self._environ)
        return self._done[key]


async def check_catalog(settings: Settings, environ: Mapping[str, str] | None = None) -> Check:
    """One cheap request (`tasks/?page=1&page_size=1`) to the configured URL, with the
    configured timeout, through the same client (trust store, proxies) the server
    uses: its latency, or the precise cause of the failure and where to fix it."""
    from pwc_local.upstream import errors
    from pwc_local.upstream.causes import proxy_for
    from pwc_local.upstream.http import HttpCatalog
    from pwc_local.upstream.source import PROBE_PARAMS, PROBE_PATH

    url = settings.api_url
    proxy = proxy_for(url, os.environ if environ is None else environ)
    details: dict[str, Any] = {"api_url": url, "timeout": settings.timeout, "proxy": proxy}
    via = f" via proxy {proxy}" if proxy else ""
    started = time.perf_counter()
    try:
        async with HttpCatalog(url, timeout=settings.timeout) as catalog:
            await catalog.get_json(PROBE_PATH, PROBE_PARAMS)
    except errors.CatalogError as exc:
        details["error"] = type(exc).__name__
        summary, fix, kind = _catalog_failure(exc, settings, proxy)
        details["cause"] = kind
        return Check("catalog", "fail", f"{summary}{via}", fix, details)
    elapsed = time.perf_counter() - started
    details["latency_ms"] = round(elapsed * 1000)
    return Check("catalog", "ok", f"{url} answered in {elapsed * 1000:.0f} ms{via}", None, details)


def _catalog_failure(exc: Exception, settings: Settings, proxy: str | None) -> tuple[str, str, str]:
    """(summary, fix, cause kind) for a failed catalog probe."""
    from pwc_local.upstream import errors
    from pwc_local.upstream.causes import find_cause

    url = settings.api_url
    where = settings.origin("api_url")
    timeout_where = settings.origin("timeout")
    if isinstance(exc, errors.UpstreamTimeout):
        return (
            f"{url} did not answer within {settings.timeout:g} s",
            f"check the network; on a slow link raise {ENV_NAMES['timeout']} "
            f"(now {settings.timeout:g} s, {timeout_where})",
            "timeout",
        )
    if isinstance(exc, errors.UpstreamUnreachable):
        cause = find_cause(exc)
        kind = cause.kind if cause else "network"
        text = cause.text if cause else "cannot connect"
        return f"{url}: {text}", _unreachable_fix(kind, url, where, proxy), kind
    if isinstance(exc, errors.HTTPStatusError):
        if exc.status == 429:
            return (
                f"{url} is rate limiting this machine (HTTP 429)",
                "wait a minute and retry",
                "http",
            )
        if exc.status in (401, 403, 404):
            return (
                f"{url} answered HTTP {exc.status}",
                f"check that {ENV_NAMES['api_url']} ({where}) is the catalog API base, "
                "ending in /api/v1",
                "http",
            )
        return f"{url} answered HTTP {exc.status}", "the catalog has a problem; retry later", "http"
    return (
        f"{url} answered with something that is not the catalog's JSON",
        f"check that {ENV_NAMES['api_url']} ({where}) points at the catalog API",
        "not_json",
    )


def _unreachable_fix(kind: str, url: str, where: str, proxy: str | None) -> str:
    setting = f"{ENV_NAMES['api_url']} ({where})"
    host = urlsplit(url).hostname or url
    if kind == "dns":
        return f"check the host name {host} in {setting}, and your network and DNS"
    if kind == "refused":
        return f"check the host and port in {setting}; nothing accepts connections there"
    if kind == "tls":
        return (
            f"if {url} is right and a proxy or firewall inspects TLS, add its root "
            "certificate to the system trust store (pwc-mcp-local uses it); "
            f"otherwise check {setting}"
        )
    if kind == "proxy":
        return f"check the proxy settings (HTTPS_PROXY, now {proxy}), or add {host} to NO_PROXY"
    return f"check the network connection and proxy settings, and {setting}"


# -- self-test -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """What happened when a server was started and spoken to as a client would."""

    ok: bool
    summary: str
    details: Mapping[str, Any]


async def probe_server(
    program: str,
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    timeout: float = SELF_TEST_TIMEOUT,
) -> Probe:
    """Spawn `program args` with `env` (over the SDK's minimal inherited environment),
    complete the MCP handshake and list the tools. On failure the summary is the
    line the server printed last on stderr, or why it could not be started at all."""
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=program, args=list(args), env=dict(env))
    details: dict[str, Any] = {"command": [program, *args]}
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        started = time.perf_counter()
        try:
            with anyio.fail_after(timeout):
                # "legacy" is the initialize handshake that today's MCP clients perform.
                transport = stdio_client(params, errlog=errlog)
                async with Client(transport, mode="legacy", cache=None) as client:
                    tools = await _list_tool_names(client)
                    version = client.protocol_version
        except TimeoutError:
            return Probe(False, f"no MCP handshake within {timeout:g} s", details)
        except Exception as exc:  # any failure to start or talk is the finding itself
            errlog.seek(0)
            last = [line for line in errlog.read().splitlines() if line.strip()]
            details["stderr_tail"] = last[-5:]
            spawn_error = _spawn_error(exc)
            if spawn_error is not None:
                return Probe(False, _explain_spawn(program, spawn_error), details)
            reason = last[-1] if last else f"{type(exc).__name__}: {exc}"
            return Probe(False, f"server failed the handshake: {reason}", details)
    elapsed = time.perf_counter() - started
    details.update(tools=len(tools), seconds=round(elapsed, 3), protocol=version)
    expected = expected_tools(env)
    if len(tools) != expected:
        return Probe(
            False, f"server listed {_counted(len(tools), 'tool')}, expected {expected}", details
        )
    return Probe(True, f"handshake and {_counted(len(tools), 'tool')} in {elapsed:.1f} s", details)


def expected_tools(env: Mapping[str, str] | None = None) -> int:
    """How many tools a server started with `env` lists: the contract table's entries
    its `tools` setting selects (all of them by default). Imported here, not at the
    top: the table pulls in the MCP models (most of a second), and doctor's first
    lines must not wait for it."""
    from pwc_local.config import ConfigError, load_settings
    from pwc_local.contract import TOOLS

    try:
        settings = load_settings(environ=dict(env or {}))
    except ConfigError:  # the server will refuse to start; that is reported instead
        return len(TOOLS)
    return sum(settings.tool_selected(spec.name, spec.group) for spec in TOOLS)


def _spawn_error(exc: BaseException) -> OSError | None:
    """The OSError of a failed exec, also when a task group wrapped it."""
    if isinstance(exc, OSError):
        return exc
    for inner in getattr(exc, "exceptions", ()):  # an ExceptionGroup (3.10: the backport)
        found = _spawn_error(inner)
        if found is not None:
            return found
    return None


def _explain_spawn(program: str, exc: OSError) -> str:
    """Why the OS would not start `program`, in terms of what to fix."""
    path = Path(program)
    if exc.errno == errno.ENOENT and path.is_file():
        interpreter = _shebang(path)
        if interpreter is not None:
            return (
                f"{program} cannot start: its interpreter {interpreter} (first line of the "
                "script) does not exist, as after a Python upgrade or a removed environment"
            )
    if exc.errno == errno.ENOEXEC:
        return f"{program} cannot start: exec format error (not a program this system can run)"
    if exc.errno == errno.EACCES:
        return f"{program} cannot start: permission denied (not executable)"
    if exc.errno == errno.ENOENT:
        return f"{program} cannot start: no such file"
    return f"{program} cannot start: {exc.strerror or exc}"


def _shebang(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    parts = first[2:].decode("utf-8", "replace").split()
    return parts[0] if parts else None


async def check_self_test(
    command: tuple[str, Sequence[str]],
    environ: Mapping[str, str],
    *,
    timeout: float = SELF_TEST_TIMEOUT,
) -> Check:
    """Start the server with this shell's settings, do the MCP handshake, list the tools."""
    program, args = command
    env = {k: v for k, v in environ.items() if k.startswith(_PASSED_ENV_PREFIXES)}
    shown = " ".join([program, *args])
    probe = await probe_server(program, args, env, timeout=timeout)
    if probe.ok:
        return Check("self-test", "ok", probe.summary, None, probe.details)
    fix = f"run {shown} by hand and read its error output"
    if "tools" in probe.details:  # it answered, but listed the wrong number of tools
        fix = REINSTALL
    return Check("self-test", "fail", probe.summary, fix, probe.details)


async def _list_tool_names(client: Any) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    for _ in range(100):  # a server that pages forever is a failure, not a hang
        result = await client.list_tools(cursor=cursor)
        names += [tool.name for tool in result.tools]
        cursor = result.next_cursor
        if not cursor:
            return names
    raise RuntimeError("tools/list never stopped paging")


# -- clients -------------------------------------------------------------------------------


def check_clients(host: Host, **options: Any) -> list[Check]:
    """One line per MCP client (see `iter_client_checks` for the options)."""
    return list(iter_client_checks(host, **options))


def iter_client_checks(
    host: Host,
    *,
    spawn: bool = True,
    shell: Settings | None = None,
    catalogs: CatalogProbes | None = None,
) -> Iterator[Check]:
    """One check per MCP client: our entries in its user config, each started exactly
    as the client starts it (its command, arguments and environment, on top of a
    desktop application's minimal environment) unless `spawn` is false.

    Each entry's own settings (`entry_settings`) are compared with the `shell`'s, a
    note naming every one that differs; with `catalogs`, the catalog the entry will
    use is checked too, so an entry pointed at a dead URL fails here even when the
    shell's catalog answers."""
    for target in TARGETS.values():
        yield _check_client(target, target.user_path(host), host, spawn, shell, catalogs)


def desktop_environment(host: Host, target: ClientTarget | None = None) -> dict[str, str]:
    """Roughly what a client's child process inherits: the account's basics and a
    system PATH (a terminal client's: the shell's PATH), none of the shell's PWC_*
    settings."""
    if host.system == WINDOWS:
        return {}  # the SDK's Windows defaults (APPDATA, PATH, SYSTEMROOT ...) apply
    keep = ("HOME", "USER", "LOGNAME", "LANG", "TMPDIR")
    env = {k: v for k, v in host.environ.items() if k in keep or k.startswith("XDG_")}
    env["PATH"] = _client_path(host, target)
    return env


def entry_environment(host: Host, target: ClientTarget, entry: Any) -> dict[str, str]:
    """The environment an entry's server starts with: the client's, then its `env`."""
    return {**desktop_environment(host, target), **entry_env(entry)}


def entry_settings(env: Mapping[str, str]) -> Settings | None:
    """The settings a server started with `env` resolves (its `env`, the settings file
    it finds, the defaults), or None when it would refuse them (its start-up line
    reports that)."""
    from pwc_local.config import ConfigError, load_settings

    try:
        return load_settings(environ=env)
    except ConfigError:
        return None


def setting_differences(shell: Settings, entry: Settings, title: str) -> list[str]:
    """One sentence per setting an entry resolves differently from this shell, such as
    `PWC_API_URL: your shell sets X, Claude Desktop's entry uses the default Y`."""
    notes = []
    for name, env_name in ENV_NAMES.items():
        if getattr(shell, name) == getattr(entry, name):
            continue
        ours = _whose_value(shell, name, "your shell")
        theirs = _whose_value(entry, name, f"{title}'s entry")
        notes.append(f"{env_name}: {ours}, {theirs}")
    return notes


def _effective(settings: Settings, name: str) -> Any:
    """The value setting `name` takes effect with: an unset `cache_dir`, `structured` or
    `read_chunk` is the one it falls back to (the platform's directory, the profile's)."""
    if name == "cache_dir":
        return settings.resolved_cache_dir()
    if name == "structured":
        return settings.profile
    if name == "read_chunk":
        return settings.chunk_bytes
    return getattr(settings, name)


def _whose_value(settings: Settings, name: str, who: str) -> str:
    value = _effective(settings, name)
    shown = "none" if value is None else _shown(name, value)
    source = settings.sources.get(name, "default")
    if source == "default":
        return f"{who} uses the default {shown}"
    if source.startswith("environment"):
        return f"{who} sets {shown}"
    if source == "command line":
        return f"{who} sets {shown} on the command line"
    return f"{who} reads {shown} from {source.removeprefix('config file ')}"


def _client_path(host: Host, target: ClientTarget | None) -> str:
    if target is not None and target.shell_path and host.environ.get("PATH"):
        return host.environ["PATH"]
    return DESKTOP_PATH


def _check_client(
    target: ClientTarget,
    path: Path,
    host: Host,
    spawn: bool,
    shell: Settings | None,
    catalogs: CatalogProbes | None,
) -> Check:
    import anyio

    name = target.id
    details: dict[str, Any] = {"path": str(path)}
    if not path.exists():
        return Check(name, "skip", f"no config file ({path})", details=details)
    try:
        _source, document = load_document(target, path)
        servers = document.servers()
    except ClientConfigError as exc:
        return Check(
            name,
            "fail",
            str(exc),
            fix=f"repair {path} by hand; {target.title} cannot read it either",
            details=details,
        )
    ours = {key: value for key, value in servers.items() if is_our_entry(key, value)}
    if not ours:
        return Check(name, "skip", f"no entry for pwc-mcp-local in {path}", details=details)
    problems: list[str] = []
    described: list[str] = []
    notes: list[str] = []
    catalog_fixes: list[str] = []
    entries: dict[str, Any] = {}
    for entry_name, entry in ours.items():
        program = entry_program(entry)
        runnable = program is not None and _resolves(program, _client_path(host, target))
        info: dict[str, Any] = {"command": program, "runnable": runnable}
        entries[entry_name] = info
        if not runnable or program is None:
            problems.append(f"{entry_name!r} runs {program or 'nothing'}, which does not exist")
            continue
        env = entry_environment(host, target, entry)
        own = entry_settings(env)
        if own is not None and shell is not None:
            differences = setting_differences(shell, own, target.title)
            info["differences"] = differences
            who = f"{entry_name!r}: " if len(ours) > 1 else ""
            notes += [who + difference for difference in differences]
        line = f"{entry_name!r} runs {program}"
        if not spawn:
            described.append(line)
            continue
        probe = anyio.run(_probe_entry, program, entry_args(entry), env)
        info["started"] = probe.ok
        info["probe"] = dict(probe.details)
        line += f": {probe.summary}"
        if not probe.ok:
            problems.append(line)
            continue
        if own is not None and catalogs is not None:
            catalog = catalogs.check(own)
            info["catalog"] = {"status": catalog.status, "summary": catalog.summary}
            if catalog.status == "fail":
                problems.append(f"{line}, but its catalog fails: {catalog.summary}")
                catalog_fixes.append(catalog.fix or "")
                continue
            line += f"; catalog {catalog.summary}"
        described.append(line)
    details["entries"] = entries
    if target.notice:  # what the client does with a sound entry (Gemini's folder trust)
        notes.append(target.notice)
    if problems:
        flag = "" if DEFAULT_NAME in ours else f" --name {next(iter(ours))}"
        rewrite = f"pwc-mcp-local install {target.id}{flag} --force"
        fix = f"correct the entry in {path}, or rewrite it: {rewrite}"
        if catalog_fixes:
            fix = (
                f"{'; '.join(dict.fromkeys(catalog_fixes))} (the entry's own settings are its "
                f'"env" in {path}; {rewrite} --env NAME=VALUE rewrites them)'
            )
        return Check(name, "fail", "; ".join(problems), fix, details, tuple(notes))
    return Check(name, "ok", "; ".join(described), details=details, notes=tuple(notes))


async def _probe_entry(program: str, args: Sequence[str], env: Mapping[str, str]) -> Probe:
    return await probe_server(program, args, env)


def _resolves(program: str, path: str | None = None) -> bool:
    """An absolute path must be an executable file; a bare name must be on `path`."""
    if os.path.isabs(program):
        return is_runnable(Path(program))
    return shutil.which(program, path=path) is not None


def python_version() -> str:
    return ".".join(map(str, sys.version_info[:3]))
