"""The MCP clients we can register with: where each keeps its config, and in what shape.

Each `ClientTarget` is data plus two small functions: the user-level config path,
computed purely from a `Host` (platform name, environment, home directory), and
optionally a project-level path below a directory. Because `Host` is a plain value,
tests can ask where Claude Desktop's config lives on Windows without running there.

Formats:

* JSON with an object of servers under one key (`mcpServers`, `servers`,
  `context_servers`); strict JSON for the Claude apps (which parse with a plain
  JSON parser), JSONC for the editors (which accept comments and trailing commas);
* TOML for Codex, one `[mcp_servers.NAME]` table per server.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pwc_local.clients.entry import ServerEntry

WINDOWS, MACOS, LINUX = "windows", "macos", "linux"


@dataclass(frozen=True)
class Host:
    """The machine a config path is computed for: `system` is windows, macos or linux."""

    system: str
    environ: Mapping[str, str]
    home: Path

    @classmethod
    def current(cls) -> Host:
        if sys.platform == "win32":
            system = WINDOWS
        elif sys.platform == "darwin":
            system = MACOS
        else:
            system = LINUX
        return cls(system, dict(os.environ), Path.home())

    def env_path(self, name: str, default: Path) -> Path:
        value = self.environ.get(name, "")
        return Path(value) if value else default

    @property
    def appdata(self) -> Path:
        """Windows `%APPDATA%` (roaming application data)."""
        return self.env_path("APPDATA", self.home / "AppData" / "Roaming")

    @property
    def localappdata(self) -> Path:
        return self.env_path("LOCALAPPDATA", self.home / "AppData" / "Local")

    @property
    def xdg_config(self) -> Path:
        return self.env_path("XDG_CONFIG_HOME", self.home / ".config")


@dataclass(frozen=True)
class Scope:
    """Where an entry is written, and so how it must name the program.

    A user-level file stays on this machine: the absolute path of this installation
    works there even when the client does not see the shell's PATH (desktop apps). A
    project-level file is committed and shared with a team: this machine's absolute
    path means nothing elsewhere, so the entry runs the command by name (`portable`),
    and everyone who uses the file needs it on their PATH (`note` says so).
    """

    name: str
    portable: bool
    note: str = ""


USER_SCOPE = Scope("user", portable=False)
PROJECT_SCOPE = Scope(
    "project",
    portable=True,
    note=(
        "The entry runs `pwc-mcp-local` by name, because {path} is meant to be shared "
        "through the repository: everyone who uses it needs pwc-mcp-local on the PATH "
        "their client sees (pipx install pwc-mcp-local; pipx ensurepath)."
    ),
)


@dataclass(frozen=True)
class ClientTarget:
    """One MCP client's registration format.

    `container` is the key path of the servers object (JSON) or table (TOML);
    `extra` holds the fixed fields the client wants in every entry, such as
    `"type": "stdio"`.
    """

    id: str
    title: str
    format: str  # "json", "jsonc" or "toml"
    container: tuple[str, ...]
    user_path: Callable[[Host], Path]
    project_path: Callable[[Path], Path] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    reload_hint: str = ""
    # A terminal program (Claude Code, Codex) starts servers with the shell's PATH; a
    # desktop application with the system's. `doctor` starts entries the same way.
    shell_path: bool = False

    def render(self, entry: ServerEntry) -> dict[str, Any]:
        """The client's entry for `entry`: fixed fields, command, args, and env if any."""
        rendered: dict[str, Any] = dict(self.extra)
        rendered["command"] = entry.command
        rendered["args"] = list(entry.args)
        if entry.env:
            rendered["env"] = dict(entry.env)
        return rendered

    @property
    def managed_keys(self) -> tuple[str, ...]:
        """The entry fields we own; any other field of an existing entry is kept."""
        return (*self.extra, "command", "args", "env")


def claude_desktop_path(host: Host) -> Path:
    """Claude Desktop's `claude_desktop_config.json`.

    On Windows the Store (MSIX) build redirects the app's `%APPDATA%\\Claude` into
    `%LOCALAPPDATA%\\Packages\\Claude_<id>\\LocalCache\\Roaming\\Claude`; when that folder
    exists the app reads the file there, so it wins over `%APPDATA%\\Claude`.
    """
    name = "claude_desktop_config.json"
    if host.system == MACOS:
        return host.home / "Library" / "Application Support" / "Claude" / name
    if host.system == WINDOWS:
        packages = host.localappdata / "Packages"
        try:
            candidates = sorted(packages.glob("Claude_*"))
        except OSError:
            candidates = []
        folders = [p / "LocalCache" / "Roaming" / "Claude" for p in candidates]
        folders = [f for f in folders if f.is_dir()]
        # Prefer a folder that already has the config, then any existing one.
        for folder in sorted(folders, key=lambda f: not (f / name).is_file()):
            return folder / name
        return host.appdata / "Claude" / name
    return host.xdg_config / "Claude" / name


def claude_code_path(host: Host) -> Path:
    """Claude Code's user config `~/.claude.json` (inside `$CLAUDE_CONFIG_DIR` if set)."""
    return host.env_path("CLAUDE_CONFIG_DIR", host.home) / ".claude.json"


def vscode_path(host: Host) -> Path:
    """VS Code's user-level `mcp.json`, beside its `settings.json`."""
    if host.system == MACOS:
        base = host.home / "Library" / "Application Support"
    elif host.system == WINDOWS:
        base = host.appdata
    else:
        base = host.xdg_config
    return base / "Code" / "User" / "mcp.json"


def zed_path(host: Host) -> Path:
    """Zed's `settings.json`: `%APPDATA%\\Zed` on Windows, else `~/.config/zed`."""
    if host.system == WINDOWS:
        return host.appdata / "Zed" / "settings.json"
    if host.system == MACOS:
        return host.home / ".config" / "zed" / "settings.json"
    return host.xdg_config / "zed" / "settings.json"


def codex_path(host: Host) -> Path:
    """Codex's `config.toml` in `$CODEX_HOME`, by default `~/.codex`."""
    return host.env_path("CODEX_HOME", host.home / ".codex") / "config.toml"


TARGETS: dict[str, ClientTarget] = {
    target.id: target
    for target in (
        ClientTarget(
            "claude-desktop",
            "Claude Desktop",
            "json",
            ("mcpServers",),
            claude_desktop_path,
            reload_hint="Quit and reopen Claude Desktop to apply the change.",
        ),
        ClientTarget(
            "claude-code",
            "Claude Code",
            "json",
            ("mcpServers",),
            claude_code_path,
            project_path=lambda d: d / ".mcp.json",
            extra={"type": "stdio"},
            reload_hint="New Claude Code sessions see the change (`/mcp` lists servers).",
            shell_path=True,
        ),
        ClientTarget(
            "vscode",
            "VS Code",
            "jsonc",
            ("servers",),
            vscode_path,
            project_path=lambda d: d / ".vscode" / "mcp.json",
            extra={"type": "stdio"},
            reload_hint="In VS Code, the `MCP: List Servers` command shows and starts servers.",
        ),
        ClientTarget(
            "cursor",
            "Cursor",
            "jsonc",
            ("mcpServers",),
            lambda host: host.home / ".cursor" / "mcp.json",
            project_path=lambda d: d / ".cursor" / "mcp.json",
            reload_hint="Check the server under Cursor Settings > MCP.",
        ),
        ClientTarget(
            "windsurf",
            "Windsurf",
            "jsonc",
            ("mcpServers",),
            lambda host: host.home / ".codeium" / "windsurf" / "mcp_config.json",
            reload_hint="Press refresh in Windsurf's MCP panel to apply the change.",
        ),
        ClientTarget(
            "codex",
            "Codex",
            "toml",
            ("mcp_servers",),
            codex_path,
            reload_hint="New Codex sessions see the change.",
            shell_path=True,
        ),
        ClientTarget(
            "zed",
            "Zed",
            "jsonc",
            ("context_servers",),
            zed_path,
            extra={"source": "custom"},
            reload_hint="Zed applies settings.json changes by itself.",
        ),
    )
}
