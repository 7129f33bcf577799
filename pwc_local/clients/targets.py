"""The MCP clients we can register with: where each keeps its config, and in what shape.

Each `ClientTarget` is data plus two small functions: the user-level config path,
computed purely from a `Host` (platform name, environment, home directory), and
optionally a project-level path below a directory. Because `Host` is a plain value,
tests can ask where Claude Desktop's config lives on Windows without running there.

Formats:

* JSON with an object of servers under one key (`mcpServers`, `servers`,
  `context_servers`); strict JSON for the Claude apps (which parse with a plain
  JSON parser), JSONC for the editors (which accept comments and trailing commas);
* TOML for Codex, one `[mcp_servers.NAME]` table per server;
* YAML for Goose, one entry per extension under `extensions` (`clients/yamlblock.py`).

Most entries are `command`, `args` and `env`; opencode's is one `command` array and
an `environment` (`joined_command`, `env_key`). Above each target, a comment names
the page that documents its file, key and entry.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pwc_local.clients.entry import DEFAULT_NAME, ServerEntry

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
        "their client sees (pipx install . in a checkout, or pipx install FILE.whl; "
        "then pipx ensurepath)."
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
    format: str  # "json", "jsonc", "toml" or "yaml"
    container: tuple[str, ...]
    user_path: Callable[[Host], Path]
    project_path: Callable[[Path], Path] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    reload_hint: str = ""
    # A terminal program (Claude Code, Codex) starts servers with the shell's PATH; a
    # desktop application with the system's. `doctor` starts entries the same way.
    shell_path: bool = False
    # The entry's program and environment fields, whether `command` is one array with
    # the args, and the field (if any) that repeats the entry's name (Goose's `name`).
    command_key: str = "command"
    env_key: str = "env"
    joined_command: bool = False
    name_key: str = ""
    # What the client does with the entry that `install` must say (Gemini's trust), and
    # with a project file's entry (`--project`).
    notice: str = ""
    project_notice: str = ""

    def render(self, entry: ServerEntry, name: str = DEFAULT_NAME) -> dict[str, Any]:
        """The client's entry `name` for `entry`: fixed fields, command, args, env if any."""
        rendered: dict[str, Any] = dict(self.extra)
        if self.name_key:
            rendered[self.name_key] = name
        if self.joined_command:
            rendered[self.command_key] = [entry.command, *entry.args]
        else:
            rendered[self.command_key] = entry.command
            rendered["args"] = list(entry.args)
        if entry.env:
            rendered[self.env_key] = dict(entry.env)
        return rendered

    @property
    def managed_keys(self) -> tuple[str, ...]:
        """The entry fields we own; any other field of an existing entry is kept."""
        command = (self.command_key,) if self.joined_command else (self.command_key, "args")
        named = (self.name_key,) if self.name_key else ()
        return (*self.extra, *named, *command, self.env_key)


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


def vscode_storage(host: Host) -> Path:
    """VS Code's `User/globalStorage`, where extensions keep their files."""
    return vscode_path(host).parent / "globalStorage"


def opencode_path(host: Host) -> Path:
    """opencode's global config: `opencode.jsonc` when that is the file there, else
    `opencode.json`, in `~/.config/opencode` (`$XDG_CONFIG_HOME` on every system)."""
    folder = host.xdg_config / "opencode"
    jsonc = folder / "opencode.jsonc"
    return (
        jsonc
        if jsonc.is_file() and not (folder / "opencode.json").is_file()
        else (folder / "opencode.json")
    )


def goose_path(host: Host) -> Path:
    """Goose's `config.yaml`: `%APPDATA%\\Block\\goose\\config` on Windows, else
    `~/.config/goose`."""
    if host.system == WINDOWS:
        return host.appdata / "Block" / "goose" / "config" / "config.yaml"
    return host.xdg_config / "goose" / "config.yaml"


GEMINI_TRUST = (
    "Gemini CLI starts this server only in folders you trust: elsewhere `gemini mcp list` "
    "shows it Disabled and `gemini -p` refuses to run. Trust a folder at Gemini's prompt "
    "there, with `/permissions trust [DIR]` in a session, or for one run with "
    "`gemini --skip-trust`. Even then `gemini -p` offers none of its tools unless run with "
    '`--approval-mode yolo` or the entry has `"trust": true` (add it by hand; install '
    "keeps it), which skips Gemini's confirmations for this server."
)


TARGETS: dict[str, ClientTarget] = {
    target.id: target
    for target in (
        # Each comment names where the client documents the file, key and entry shape.
        # modelcontextprotocol.io/quickstart/user: `mcpServers`, command, args, env.
        ClientTarget(
            "claude-desktop",
            "Claude Desktop",
            "json",
            ("mcpServers",),
            claude_desktop_path,
            reload_hint="Quit and reopen Claude Desktop to apply the change.",
        ),
        # docs.anthropic.com/en/docs/claude-code/mcp: ~/.claude.json or a project's
        # .mcp.json, `mcpServers`, "type": "stdio", command, args, env.
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
            project_notice=(
                "Claude Code starts a project's servers only once you approve them: "
                '`claude mcp list` says "Pending approval" until you run `claude` there.'
            ),
        ),
        # code.visualstudio.com/docs/copilot/customization/mcp-servers: mcp.json, `servers`.
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
        # cursor.com/docs/mcp: ~/.cursor/mcp.json or .cursor/mcp.json, `mcpServers`.
        ClientTarget(
            "cursor",
            "Cursor",
            "jsonc",
            ("mcpServers",),
            lambda host: host.home / ".cursor" / "mcp.json",
            project_path=lambda d: d / ".cursor" / "mcp.json",
            reload_hint="Check the server under Cursor Settings > MCP.",
        ),
        # docs.windsurf.com/windsurf/cascade/mcp: mcp_config.json, `mcpServers`.
        ClientTarget(
            "windsurf",
            "Windsurf",
            "jsonc",
            ("mcpServers",),
            lambda host: host.home / ".codeium" / "windsurf" / "mcp_config.json",
            reload_hint="Press refresh in Windsurf's MCP panel to apply the change.",
        ),
        # developers.openai.com/codex/mcp: `[mcp_servers.NAME]` in config.toml; Codex's
        # docs/config.md, "MCP tool approvals": `[mcp_servers.NAME.tools.TOOL]
        # approval_mode = "approve"` (install --approve-writes).
        ClientTarget(
            "codex",
            "Codex",
            "toml",
            ("mcp_servers",),
            codex_path,
            project_path=lambda d: d / ".codex" / "config.toml",
            reload_hint="New Codex sessions see the change.",
            shell_path=True,
            project_notice=(
                "Codex reads .codex/config.toml only in a project you trust: answer its "
                'prompt there, or add [projects."DIR"] trust_level = "trusted" to '
                "~/.codex/config.toml."
            ),
        ),
        # zed.dev/docs/ai/mcp: `context_servers` in settings.json, command, args, env.
        ClientTarget(
            "zed",
            "Zed",
            "jsonc",
            ("context_servers",),
            zed_path,
            extra={"source": "custom"},
            reload_hint="Zed applies settings.json changes by itself.",
        ),
        # geminicli.com/docs/tools/mcp-server: `mcpServers` in ~/.gemini/settings.json or a
        # project's .gemini/settings.json; command, args, env. It strips comments.
        ClientTarget(
            "gemini",
            "Gemini CLI",
            "jsonc",
            ("mcpServers",),
            lambda host: host.home / ".gemini" / "settings.json",
            project_path=lambda d: d / ".gemini" / "settings.json",
            reload_hint="New Gemini CLI sessions see the change (`gemini mcp list` lists it).",
            shell_path=True,
            notice=GEMINI_TRUST,
        ),
        # opencode.ai/docs/mcp-servers and /docs/config: `mcp` in opencode.json(c),
        # global in ~/.config/opencode, or at a project's root; "type": "local", one
        # "command" array, "environment", "enabled".
        ClientTarget(
            "opencode",
            "opencode",
            "jsonc",
            ("mcp",),
            opencode_path,
            project_path=lambda d: d / "opencode.json",
            extra={"type": "local", "enabled": True},
            reload_hint="New opencode sessions see the change (`opencode mcp list` lists it).",
            shell_path=True,
            env_key="environment",
            joined_command=True,
        ),
        # docs.cline.bot/mcp/configuring-mcp-servers: `mcpServers` in
        # cline_mcp_settings.json, the extension's settings in VS Code's global storage
        # (Cline's CLI keeps its own in ~/.cline/data/settings: use --file there).
        ClientTarget(
            "cline",
            "Cline",
            "json",
            ("mcpServers",),
            lambda host: (
                vscode_storage(host)
                / "saoudrizwan.claude-dev"
                / "settings"
                / "cline_mcp_settings.json"
            ),
            extra={"disabled": False},
            reload_hint="Cline reloads the file by itself; its MCP Servers panel shows the server.",
        ),
        # lmstudio.ai/docs/app/mcp: ~/.lmstudio/mcp.json (%USERPROFILE% on Windows),
        # Cursor's `mcpServers` notation.
        ClientTarget(
            "lmstudio",
            "LM Studio",
            "json",
            ("mcpServers",),
            lambda host: host.home / ".lmstudio" / "mcp.json",
            reload_hint="LM Studio lists the server under Program > Integrations.",
        ),
        # docs.github.com/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers:
        # `mcpServers` in ~/.copilot/mcp-config.json ($COPILOT_HOME), per repository in
        # .github/mcp.json; "type": "local", command, args, env, "tools": ["*"].
        ClientTarget(
            "copilot",
            "GitHub Copilot CLI",
            "json",
            ("mcpServers",),
            lambda host: host.env_path("COPILOT_HOME", host.home / ".copilot") / "mcp-config.json",
            project_path=lambda d: d / ".github" / "mcp.json",
            extra={"type": "local", "tools": ["*"]},
            reload_hint="New Copilot CLI sessions see the change (`/mcp show` lists it).",
            shell_path=True,
            project_notice=(
                "Copilot CLI reads .github/mcp.json only in a folder you trust (it asks "
                "there; `copilot mcp list` shows it under Workspace servers then)."
            ),
        ),
        # block.github.io/goose/docs/guides/config-files: `extensions` in
        # ~/.config/goose/config.yaml (Windows %APPDATA%\Block\goose\config); an entry
        # is enabled, type stdio, name, cmd, args, envs, timeout (seconds).
        ClientTarget(
            "goose",
            "Goose",
            "yaml",
            ("extensions",),
            goose_path,
            extra={
                "enabled": True,
                "type": "stdio",
                "description": "Papers With Code catalog (pwc-mcp-local)",
                "timeout": 300,
            },
            reload_hint="New Goose sessions load the extension (`goose info -v` shows the file).",
            command_key="cmd",
            env_key="envs",
            name_key="name",
        ),
    )
}
