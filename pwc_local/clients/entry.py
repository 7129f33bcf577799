"""What a client runs to start the server: command, arguments, environment.

Desktop applications do not inherit the shell's `PATH`, so an entry that says just
`pwc-mcp-local` often fails to start. Entries therefore name the absolute path of
the installed `pwc-mcp-local` script, found by `server_command()`; when there is no
such script (an unusual install), they run the absolute interpreter with
`-m pwc_local` instead.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCRIPT_NAME = "pwc-mcp-local"
DEFAULT_NAME = "pwc-local"

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ServerEntry:
    """The process a client should spawn: `command args...` with `env` added."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


def validate_name(name: str) -> str:
    """An entry name: 1 to 64 letters, digits, `-` or `_` (safe in every format)."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a valid name: use 1 to 64 letters, digits, '-' or '_'")
    return name


def parse_env(pairs: Iterable[str]) -> dict[str, str]:
    """Turn `KEY=VALUE` strings into a mapping; a later KEY wins."""
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"{pair!r} is not KEY=VALUE")
        if not _ENV_KEY.fullmatch(key):
            raise ValueError(f"{key!r} is not a valid environment variable name")
        env[key] = value
    return env


def entry_for(env: Mapping[str, str], *, portable: bool) -> ServerEntry:
    """The entry to write: this installation's absolute command, or, for a file that is
    shared with other machines (`portable`), the command by name."""
    if portable:
        return ServerEntry(SCRIPT_NAME, (), env)
    command, args = server_command()
    return ServerEntry(command, args, env)


def server_env_problems(env: Mapping[str, str]) -> list[str]:
    """What the server would refuse in an entry's environment, one line each.

    Our settings are checked by the server's own loader (`load_settings`), so a value
    passes here exactly when the server would accept it; a `PWC_MCP_LOCAL_` name
    that is no setting (a typo the server would silently ignore) is refused too.
    """
    from pwc_local.config import (
        ENV_CONFIG_FILE,
        ENV_NAMES,
        ENV_PREFIX,
        did_you_mean,
        load_settings,
    )

    known = {*ENV_NAMES.values(), ENV_CONFIG_FILE}
    problems = [
        f"{key} is not a setting pwc-mcp-local reads{did_you_mean(key, sorted(known))} "
        f"(known: {', '.join(sorted(known))})"
        for key in env
        if key.startswith(ENV_PREFIX) and key not in known
    ]
    ours = {key: value for key, value in env.items() if key in known}
    if not ours:
        return problems
    found: list[str] = []
    load_settings(environ=ours, problems=found, env_origin="--env")
    config = ours.get(ENV_CONFIG_FILE)
    problems += [
        message for message in found if " from --env " in message or (config and config in message)
    ]
    return problems


# Words that make an environment variable's name a secret's (split at `_`).
_SECRET_WORDS = frozenset(
    {"KEY", "APIKEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "PASS", "CREDENTIAL", "CREDENTIALS"}
)
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@")


def secret_names(env: Mapping[str, str]) -> list[str]:
    """The variables of `env` that look like secrets: a name with a word such as KEY,
    TOKEN or PASSWORD in it (`PWC_MCP_CURSOR_KEY_CURRENT`), or a URL with a password."""
    return [
        key
        for key, value in env.items()
        if _SECRET_WORDS & set(key.upper().split("_")) or _URL_PASSWORD.search(value)
    ]


def entry_program(entry: Any) -> str | None:
    """The program a client entry runs, in any client's shape (None when it has none)."""
    if not isinstance(entry, dict):
        return None
    command = entry.get("command", entry.get("cmd"))  # Goose: "cmd"
    if isinstance(command, dict):  # older Zed: "command": {"path": ..., "args": [...]}
        command = command.get("path")
    if isinstance(command, list):  # opencode: "command": [program, *args]
        command = command[0] if command else None
    return command if isinstance(command, str) and command else None


def entry_args(entry: Any) -> list[str]:
    """The arguments a client entry passes its program, in any client's shape."""
    if not isinstance(entry, dict):
        return []
    command, args = entry.get("command"), entry.get("args")
    if isinstance(command, dict):
        args = command.get("args")
    elif isinstance(command, list):
        args = command[1:]
    return [str(arg) for arg in args] if isinstance(args, list) else []


def entry_env(entry: Any) -> dict[str, str]:
    """The environment a client entry adds (`env`; opencode's `environment`, Goose's `envs`)."""
    if not isinstance(entry, dict):
        return {}
    env = entry.get("env", entry.get("environment", entry.get("envs")))
    command = entry.get("command")
    if isinstance(command, dict):
        env = command.get("env", env)
    if not isinstance(env, dict):
        return {}
    return {str(key): str(value) for key, value in env.items()}


def is_our_entry(name: str, entry: Any) -> bool:
    """Whether a client's server entry is one of ours: named `pwc-local`, or running
    the `pwc-mcp-local` script (any path) or `python -m pwc_local`. `doctor` checks
    these entries and `uninstall --all` removes them."""
    if name == DEFAULT_NAME:
        return True
    if not isinstance(entry, dict):
        return False
    program = entry_program(entry) or ""
    if Path(program.replace("\\", "/")).name in (SCRIPT_NAME, SCRIPT_NAME + ".exe"):
        return True
    args = entry_args(entry)
    return "pwc_local" in args and "-m" in args


def script_file_name(windows: bool) -> str:
    return SCRIPT_NAME + ".exe" if windows else SCRIPT_NAME


def server_command(
    *,
    argv0: str | None = None,
    executable: str | None = None,
    which: Callable[[str], str | None] = shutil.which,
    windows: bool | None = None,
) -> tuple[str, tuple[str, ...]]:
    """The absolute command (and arguments) that starts this installation's server.

    Tried in order: the script this process was started as (`argv0`), the script
    beside the running interpreter (a venv's `bin/`, or `Scripts/` on Windows), the
    script on `PATH`; failing all three, `[interpreter, "-m", "pwc_local"]`. The
    parameters default to this process and exist so tests can describe others.
    """
    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = sys.executable if executable is None else executable
    windows = os.name == "nt" if windows is None else windows
    name = script_file_name(windows)

    candidates: list[Path] = []
    if argv0 and Path(argv0).name in (SCRIPT_NAME, name):
        candidates.append(Path(argv0))
    if executable:
        here = Path(executable).parent
        candidates += [here / name, here / "Scripts" / name]
    found = which(SCRIPT_NAME)
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if is_runnable(candidate):
            return os.path.abspath(candidate), ()
    return os.path.abspath(executable), ("-m", "pwc_local")


def is_runnable(path: Path) -> bool:
    """Whether `path` is an existing regular file we may execute."""
    return path.is_file() and os.access(path, os.X_OK)
