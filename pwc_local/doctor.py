"""The checks behind `pwc-mcp-local doctor`.

Each check looks at one thing a working setup needs and returns a `Check`: a status
(`ok`, `warn`, `fail`, `skip`), a one-line summary, and for anything that is not ok,
the fix a person can apply. `run_checks` runs them all in a fixed order; the command
in `pwc_local.commands.doctor` only formats the result.

The checks, in order: the resolved configuration and where each value came from; the
executable a client would run; the cache directory (writable, size, bound); the
cursor key (present, mode, owner; the secret itself is never read out); the catalog
(one cheap request, its latency or the exact failure); a self-test that starts the
server over stdio as a client would, completes the MCP handshake and lists the tools;
and every MCP client config that has an entry for us, and whether it points at an
executable that exists.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pwc_local.clients.entry import DEFAULT_NAME, SCRIPT_NAME, is_runnable
from pwc_local.clients.errors import ClientConfigError
from pwc_local.clients.installer import load_document
from pwc_local.clients.targets import TARGETS, ClientTarget, Host
from pwc_local.config import CONFIG_FILE_NAME, ENV_NAMES, Settings, format_size, pwc_config_dir
from pwc_local.server.contract import TOOLS

Status = Literal["ok", "warn", "fail", "skip"]
EXPECTED_TOOLS = len(TOOLS)  # every entry of the contract table is registered
SELF_TEST_TIMEOUT = 30.0
CATALOG_TIMEOUT = 10.0
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


def run_checks(
    settings: Settings,
    *,
    command: tuple[str, Sequence[str]],
    host: Host,
    config_error: str | None = None,
    offline: bool = False,
    server_args: Sequence[str] = (),
) -> list[Check]:
    """Run every check. `command` is what clients are told to run (see
    `pwc_local.clients.entry.server_command`); `server_args` are extra command-line
    options (such as `--api-url`) the self-test passes to the server."""
    import anyio

    checks = [
        check_configuration(settings, config_error, host.environ),
        check_executable(command),
        check_cache(settings),
        check_cursor_key(host.environ),
    ]
    if offline:
        checks.append(Check("catalog", "skip", "not checked (--offline)"))
    else:
        checks.append(anyio.run(check_catalog, settings))
    self_test_command = (command[0], [*command[1], *server_args])
    expected = sum(settings.tool_selected(spec.name, spec.group) for spec in TOOLS)
    checks.append(
        anyio.run(
            functools.partial(check_self_test, expected=expected), self_test_command, host.environ
        )
    )
    checks.extend(check_clients(host))
    return checks


# -- configuration -------------------------------------------------------------------------


def check_configuration(
    settings: Settings, error: str | None = None, environ: Mapping[str, str] | None = None
) -> Check:
    """The resolved settings and the origin of each (flag, environment, file, default)."""
    if error is not None:
        return Check(
            "configuration",
            "fail",
            error,
            fix="correct or remove the value named above; the server refuses to start with it",
        )
    details: dict[str, Any] = {}
    for name in ENV_NAMES:
        value = getattr(settings, name)
        if name == "cache_dir" and value is None:
            value = settings.resolved_cache_dir()
        details[name] = {
            "value": None if value is None else str(value),
            "source": settings.sources.get(name, "default"),
        }
    if settings.config_file is not None:
        summary = f"settings file {settings.config_file} in use"
    else:
        default_file = pwc_config_dir(environ) / CONFIG_FILE_NAME
        summary = f"defaults and environment (no settings file at {default_file})"
    return Check("configuration", "ok", summary, details=details)


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
            fix="reinstall: pipx install --force pwc-mcp-local",
            details=details,
        )
    if args:
        return Check(
            "executable",
            "warn",
            f"no {SCRIPT_NAME} script found; clients will run {program} {' '.join(args)}",
            fix="install with pipx (pipx install pwc-mcp-local) for a stable script path",
            details=details,
        )
    return Check("executable", "ok", program, details=details)


# -- cache ---------------------------------------------------------------------------------


def check_cache(settings: Settings) -> Check:
    """The cache directory exists (or can be made), takes a new file, and its size."""
    from pwc_local.store.cache import ensure_directory

    directory = settings.resolved_cache_dir()
    details: dict[str, Any] = {"path": str(directory), "bound": settings.cache_size}
    fix = f"make {directory} a directory you can write to, or point {ENV_NAMES['cache_dir']} at one"
    try:
        ensure_directory(directory)  # as private as a server would make it
        if not directory.is_dir():
            raise NotADirectoryError(f"{directory} is not a directory")
        fd, probe = tempfile.mkstemp(prefix=".doctor-", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return Check("cache", "fail", f"{directory} is not writable: {reason}", fix, details)
    size = _tree_size(directory)
    details["bytes"] = size
    entries = _cache_entries(settings)
    if entries is not None:
        details["entries"] = entries
    counted = f", {entries} entries" if entries is not None else ""
    bound = format_size(settings.cache_size)
    summary = f"{directory}: writable, {format_size(size)} of {bound}{counted}"
    if size > settings.cache_size:
        return Check(
            "cache",
            "warn",
            summary + " (over its bound)",
            fix="pwc-mcp-local cache prune, or raise PWC_MCP_LOCAL_CACHE_SIZE",
            details=details,
        )
    return Check("cache", "ok", summary, details=details)


def _tree_size(directory: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(directory):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue  # removed while we walked
    return total


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


async def check_catalog(settings: Settings) -> Check:
    """One cheap request (`tasks/?page=1&page_size=1`): latency, or the exact failure."""
    from pwc_local.catalog import errors
    from pwc_local.catalog.http import HttpCatalog

    url = settings.api_url
    details: dict[str, Any] = {"api_url": url}
    timeout = min(settings.timeout, CATALOG_TIMEOUT)
    started = time.perf_counter()
    try:
        async with HttpCatalog(url, timeout=timeout) as catalog:
            await catalog.get_json("tasks/", {"page": 1, "page_size": 1})
    except errors.CatalogError as exc:
        details["error"] = type(exc).__name__
        summary, fix = _catalog_failure(exc, url, timeout)
        return Check("catalog", "fail", f"{summary} ({type(exc).__name__})", fix, details)
    elapsed = time.perf_counter() - started
    details["latency_ms"] = round(elapsed * 1000)
    return Check("catalog", "ok", f"{url} answered in {elapsed * 1000:.0f} ms", None, details)


def _catalog_failure(exc: Exception, url: str, timeout: float) -> tuple[str, str]:
    from pwc_local.catalog import errors

    setting = ENV_NAMES["api_url"]
    if isinstance(exc, errors.UpstreamUnreachable):
        return (
            f"cannot connect to {url}",
            f"check the network connection and proxy settings, and {setting}",
        )
    if isinstance(exc, errors.UpstreamTimeout):
        return (
            f"{url} did not answer within {timeout:g} s",
            f"check the network; raise {ENV_NAMES['timeout']} on a slow link",
        )
    if isinstance(exc, errors.HTTPStatusError):
        if exc.status == 429:
            return f"{url} is rate limiting this machine (HTTP 429)", "wait a minute and retry"
        if exc.status in (401, 403, 404):
            return (
                f"{url} answered HTTP {exc.status}",
                f"check that {setting} is the catalog API base, ending in /api/v1",
            )
        return f"{url} answered HTTP {exc.status}", "the catalog has a problem; retry later"
    return (
        f"{url} answered with something that is not the catalog's JSON",
        f"check that {setting} points at the catalog API",
    )


# -- self-test -----------------------------------------------------------------------------


async def check_self_test(
    command: tuple[str, Sequence[str]],
    environ: Mapping[str, str],
    *,
    timeout: float = SELF_TEST_TIMEOUT,
    expected: int = EXPECTED_TOOLS,
) -> Check:
    """Start the server as a client would, do the MCP handshake, list the tools.

    `expected` is how many tools the `tools` setting selects (default: all).
    """
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    program, args = command
    env = {k: v for k, v in environ.items() if k.startswith(_PASSED_ENV_PREFIXES)}
    params = StdioServerParameters(command=program, args=list(args), env=env)
    shown = " ".join([program, *args])
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
            return Check(
                "self-test",
                "fail",
                f"no MCP handshake within {timeout:g} s",
                f"run {shown} by hand and read its error output",
                details,
            )
        except Exception as exc:  # any failure to start or talk is the finding itself
            errlog.seek(0)
            last = [line for line in errlog.read().splitlines() if line.strip()]
            reason = last[-1] if last else f"{type(exc).__name__}: {exc}"
            details["stderr_tail"] = last[-5:]
            return Check(
                "self-test",
                "fail",
                f"server failed the handshake: {reason}",
                f"run {shown} by hand and read its error output",
                details,
            )
    elapsed = time.perf_counter() - started
    details.update(tools=len(tools), seconds=round(elapsed, 3), protocol=version)
    if len(tools) != expected:
        return Check(
            "self-test",
            "fail",
            f"server listed {len(tools)} tools, expected {expected}",
            fix="reinstall: pipx install --force pwc-mcp-local",
            details=details,
        )
    return Check(
        "self-test", "ok", f"handshake and {len(tools)} tools in {elapsed:.1f} s", None, details
    )


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


def check_clients(host: Host) -> list[Check]:
    """One line per MCP client: our entries in its user config and what they run."""
    return [_check_client(target, target.user_path(host)) for target in TARGETS.values()]


def _check_client(target: ClientTarget, path: Path) -> Check:
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
    ours = {key: value for key, value in servers.items() if _is_ours(key, value)}
    if not ours:
        return Check(name, "skip", f"no entry for pwc-mcp-local in {path}", details=details)
    problems: list[str] = []
    described: list[str] = []
    entries: dict[str, Any] = {}
    for entry_name, entry in ours.items():
        program = _entry_command(entry)
        runnable = program is not None and _resolves(program)
        entries[entry_name] = {"command": program, "runnable": runnable}
        if runnable:
            described.append(f"{entry_name!r} runs {program}")
        else:
            problems.append(f"{entry_name!r} runs {program or 'nothing'}, which does not exist")
    details["entries"] = entries
    if problems:
        flag = "" if DEFAULT_NAME in ours else f" --name {next(iter(ours))}"
        return Check(
            name,
            "fail",
            "; ".join(problems),
            fix=f"pwc-mcp-local install {target.id}{flag} --force",
            details=details,
        )
    return Check(name, "ok", "; ".join(described), details=details)


def _is_ours(name: str, entry: Any) -> bool:
    if name == DEFAULT_NAME:
        return True
    if not isinstance(entry, dict):
        return False
    program = _entry_command(entry) or ""
    if Path(program.replace("\\", "/")).name in (SCRIPT_NAME, SCRIPT_NAME + ".exe"):
        return True
    args = entry.get("args")
    return isinstance(args, list) and "pwc_local" in args and "-m" in args


def _entry_command(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    command = entry.get("command")
    if isinstance(command, dict):  # older Zed: "command": {"path": ..., "args": [...]}
        command = command.get("path")
    return command if isinstance(command, str) and command else None


def _resolves(program: str) -> bool:
    """An absolute path must be an executable file; a bare name must be on PATH."""
    if os.path.isabs(program):
        return is_runnable(Path(program))
    return shutil.which(program) is not None


def has_failures(checks: Sequence[Check]) -> bool:
    return any(check.status == "fail" for check in checks)


def python_version() -> str:
    return ".".join(map(str, sys.version_info[:3]))
