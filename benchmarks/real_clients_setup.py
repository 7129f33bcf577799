"""How each real client is installed, configured and started for one scripted run.

Every client runs in a scratch HOME of its own (XDG directories inside it), with
its model API pointed at the scripted server by the client's base-URL setting, a
dummy API key, updates and telemetry off, and its proxy variables pointing at the
scripted server too, which refuses and records any host other than loopback.
The server is registered with `SERVER install CLIENT` where our installer has a
target (Claude Code, Codex); for Gemini CLI and opencode the entry `SERVER install
print` gives is written into the client's own config file.

| client (npm) | model API | server entry |
| --- | --- | --- |
| Claude Code (@anthropic-ai/claude-code) | `ANTHROPIC_BASE_URL`, Messages | `install claude-code` |
| Gemini CLI (@google/gemini-cli) | `GOOGLE_GEMINI_BASE_URL` | settings.json `mcpServers` |
| Codex (@openai/codex) | `model_providers.*.base_url`, Responses | `install codex` |
| opencode (opencode-ai) | provider `options.baseURL`, Chat Completions | opencode.json `mcp` |
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PROMPT = "Follow the scripted tool calls."
SERVER_NAME = "pwc-local"


@dataclass(frozen=True)
class Client:
    """One client: its npm package, its command in `node_modules/.bin`, and `prepare`,
    which writes its config into a scratch home and returns (argv tail, env)."""

    key: str
    title: str
    package: str
    command: str
    prepare: Callable[[Scratch], tuple[list[str], dict[str, str]]]


@dataclass(frozen=True)
class Scratch:
    """One run's directories and addresses."""

    root: Path
    api_url: str  # the scripted model API, http://127.0.0.1:PORT
    catalog_url: str  # the fake catalog's API URL
    server: str  # the pwc-mcp-local command to register

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def work(self) -> Path:
        return self.root / "work"  # the client's working directory

    def base_env(self) -> dict[str, str]:
        """The environment every client and its server share: scratch home, proxies here."""
        keep = ("PATH", "LANG", "LC_ALL", "TERM", "TMPDIR", "SYSTEMROOT")
        env = {key: os.environ[key] for key in keep if key in os.environ}
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
            XDG_STATE_HOME=str(self.home / ".local" / "state"),
            NO_COLOR="1",
            CI="1",
        )
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
            env[name] = env[name.lower()] = self.api_url
        env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
        return env

    def server_env(self) -> dict[str, str]:
        """What the server needs in its entry (Codex passes the client's environment
        only in part): the fake catalog and the scratch cache, library and config."""
        env = self.base_env()
        names = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
        return {"PWC_API_URL": self.catalog_url, **{name: env[name] for name in names}}

    def install(self, target: str, extra_env: dict[str, str] | None = None) -> str:
        """`SERVER install TARGET --env ...` in the scratch home; its output."""
        argv = [self.server, "install", target, "--name", SERVER_NAME]
        for key, value in self.server_env().items():
            argv += ["--env", f"{key}={value}"]
        env = dict(self.base_env(), **(extra_env or {}))
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[:3])} failed: {done.stderr.strip()[-400:]}")
        return done.stdout

    def entry(self) -> tuple[str, list[str], dict[str, str]]:
        """The command, arguments and environment of the server's entry (`install print`)."""
        text = self.install("print")
        document, _ = json.JSONDecoder().raw_decode(text.lstrip())
        entry = document["mcpServers"][SERVER_NAME]
        return str(entry["command"]), list(entry.get("args", [])), dict(entry.get("env", {}))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def claude_code(scratch: Scratch) -> tuple[list[str], dict[str, str]]:
    scratch.install("claude-code")
    env = dict(
        scratch.base_env(),
        ANTHROPIC_BASE_URL=scratch.api_url,
        ANTHROPIC_API_KEY="sk-ant-scripted",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        DISABLE_COST_WARNINGS="1",
        IS_SANDBOX="1",
        ENABLE_TOOL_SEARCH="false",  # list our tools to the model directly
        MCP_TIMEOUT="60000",
        MCP_TOOL_TIMEOUT="120000",
    )
    argv = [
        "-p",
        PROMPT,
        "--max-turns",
        "80",
        "--allowedTools",
        f"mcp__{SERVER_NAME}",
        "--output-format",
        "text",
    ]
    return argv, env


def gemini_cli(scratch: Scratch) -> tuple[list[str], dict[str, str]]:
    command, args, server_env = scratch.entry()
    settings = {
        "mcpServers": {
            SERVER_NAME: {
                "command": command,
                "args": args,
                "env": server_env,
                "trust": True,
                "timeout": 120000,
            }
        },
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": True}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    }
    _write(scratch.home / ".gemini" / "settings.json", json.dumps(settings, indent=2))
    trusted = {str(scratch.work): "TRUST_FOLDER"}
    _write(scratch.home / ".gemini" / "trustedFolders.json", json.dumps(trusted, indent=2))
    env = dict(
        scratch.base_env(),
        GEMINI_API_KEY="scripted",
        GOOGLE_GEMINI_BASE_URL=scratch.api_url,
        GEMINI_CLI_NO_RELAUNCH="true",
    )
    argv = ["-p", PROMPT, "--approval-mode", "yolo", "--allowed-mcp-server-names", SERVER_NAME]
    return argv, env


def codex(scratch: Scratch) -> tuple[list[str], dict[str, str]]:
    codex_home = scratch.home / ".codex"
    config = f"""model = "gpt-5.1-codex"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.scripted]
name = "Scripted"
base_url = "{scratch.api_url}/v1"
env_key = "SCRIPTED_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
"""
    _write(codex_home / "config.toml", config)
    scratch.install("codex", {"CODEX_HOME": str(codex_home)})
    env = dict(scratch.base_env(), CODEX_HOME=str(codex_home), SCRIPTED_API_KEY="scripted")
    argv = ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", PROMPT]
    return argv, env


def opencode(scratch: Scratch) -> tuple[list[str], dict[str, str]]:
    command, args, server_env = scratch.entry()
    config = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": "scripted/scripted",
        "provider": {
            "scripted": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Scripted",
                "options": {"baseURL": f"{scratch.api_url}/v1", "apiKey": "scripted"},
                "models": {"scripted": {"name": "Scripted", "tool_call": True}},
            }
        },
        "mcp": {
            SERVER_NAME: {
                "type": "local",
                "command": [command, *args],
                "environment": server_env,
                "enabled": True,
                "timeout": 120000,
            }
        },
        "permission": {"*": "allow"},
    }
    _write(scratch.home / ".config" / "opencode" / "opencode.json", json.dumps(config, indent=2))
    env = dict(
        scratch.base_env(),
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_MODELS_FETCH="1",
        OPENCODE_DISABLE_LSP_DOWNLOAD="1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
        OPENCODE_DISABLE_SHARE="1",
    )
    argv = ["run", "--model", "scripted/scripted", PROMPT]
    return argv, env


CLIENTS: tuple[Client, ...] = (
    Client("claude-code", "Claude Code", "@anthropic-ai/claude-code", "claude", claude_code),
    Client("gemini", "Gemini CLI", "@google/gemini-cli", "gemini", gemini_cli),
    Client("codex", "Codex", "@openai/codex", "codex", codex),
    Client("opencode", "opencode", "opencode-ai", "opencode", opencode),
)
BY_KEY = {client.key: client for client in CLIENTS}


def install_clients(
    prefix: Path, clients: tuple[Client, ...], *, install: bool = True
) -> dict[str, str]:
    """`npm install --prefix PREFIX` of the clients missing there (when `install`);
    each one's version (`--version`), or why there is none."""
    missing = [c for c in clients if not (prefix / "node_modules" / ".bin" / c.command).exists()]
    if missing and install:
        prefix.mkdir(parents=True, exist_ok=True)
        argv = ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund"]
        try:
            subprocess.run(argv + [c.package for c in missing], check=False, timeout=1800)
        except (OSError, subprocess.TimeoutExpired) as error:
            print(f"npm install failed: {error}", file=sys.stderr)
    versions = {}
    for client in clients:
        binary = prefix / "node_modules" / ".bin" / client.command
        try:
            done = subprocess.run(
                [str(binary), "--version"], capture_output=True, text=True, timeout=60
            )
            found = re.search(r"\d+(\.\d+)+", done.stdout)
            versions[client.key] = found.group(0) if found else "version unknown"
        except (OSError, subprocess.TimeoutExpired) as error:
            versions[client.key] = f"not installed ({error})"
    return versions
