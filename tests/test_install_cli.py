"""`pwc-mcp-local install/uninstall CLIENT` against a temporary home directory.

Every client format goes through the same scenarios: a fresh file, a file with other
servers (and, for the editors, comments), a malformed file, running twice, an
existing different entry with and without `--force`, `--dry-run`, and uninstall.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pwc_local.cli import main
from pwc_local.clients import installer
from pwc_local.clients.entry import server_command
from pwc_local.clients.errors import FileChanged
from pwc_local.clients.files import backup, backups
from pwc_local.clients.jsonc import loads as jsonc_loads
from pwc_local.clients.targets import TARGETS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass(frozen=True)
class Client:
    path: str  # relative to the home directory, Linux layout
    fmt: str
    container: str
    extra: dict[str, str]


CLIENTS = {
    "claude-desktop": Client(".config/Claude/claude_desktop_config.json", "json", "mcpServers", {}),
    "claude-code": Client(".claude.json", "json", "mcpServers", {"type": "stdio"}),
    "vscode": Client(".config/Code/User/mcp.json", "jsonc", "servers", {"type": "stdio"}),
    "cursor": Client(".cursor/mcp.json", "jsonc", "mcpServers", {}),
    "windsurf": Client(".codeium/windsurf/mcp_config.json", "jsonc", "mcpServers", {}),
    "codex": Client(".codex/config.toml", "toml", "mcp_servers", {}),
    "zed": Client(".config/zed/settings.json", "jsonc", "context_servers", {"source": "custom"}),
}

JSON_EXISTING = """{
  "numStartups": 7,
  "CONTAINER": {
    "other": {
      "command": "npx",
      "args": ["-y", "other-server"]
    }
  },
  "tipsHistory": {"a": 1}
}
"""

JSONC_EXISTING = """// Settings, with comments the editor allows
{
  "theme": "One Dark", // keep me
  /* a block comment */
  "CONTAINER": {
    "other": {
      "command": "npx",
      "args": ["-y", "other-server"], // trailing comma next line
    },
  },
}
"""

TOML_EXISTING = """# Codex
model = "o3"

[mcp_servers.other]
command = "npx"
args = ["-y", "other-server"]

[profiles.fast]
model = "o4-mini"
"""

MALFORMED = {
    "json": ('{\n  "numStartups": 7\n  "mcpServers": {}\n}\n', "3:3"),
    "jsonc": ('{\n  // ok\n  "theme": "x"\n  "servers": {}\n}\n', "4:3"),
    "toml": ('model = "o3"\n[mcp_servers.other\ncommand = "x"\n', "2:"),
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "APPDATA", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    return home


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def existing_text(client: Client) -> str:
    if client.fmt == "toml":
        return TOML_EXISTING
    template = JSONC_EXISTING if client.fmt == "jsonc" else JSON_EXISTING
    return template.replace("CONTAINER", client.container)


def parse(client: Client, text: str) -> dict[str, Any]:
    if client.fmt == "toml":
        return tomllib.loads(text)
    return jsonc_loads(text, comments=client.fmt == "jsonc")


def servers(client: Client, path: Path) -> dict[str, Any]:
    return parse(client, path.read_text(encoding="utf-8"))[client.container]


def expected_entry(client: Client, **env: str) -> dict[str, Any]:
    command, args = server_command()
    entry: dict[str, Any] = {**client.extra, "command": command, "args": list(args)}
    if env:
        entry["env"] = env
    return entry


def seed(home: Path, client: Client, text: str) -> Path:
    path = home / client.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


all_clients = pytest.mark.parametrize("client_id", list(CLIENTS))


@all_clients
def test_fresh_install_writes_the_client_format(home: Path, client_id: str):
    client = CLIENTS[client_id]
    result = run("install", client_id, "--env", "PWC_API_URL=http://127.0.0.1:9/api/v1")
    assert result.exit_code == 0, result.output
    path = home / client.path
    entry = servers(client, path)["pwc-local"]
    assert entry == expected_entry(client, PWC_API_URL="http://127.0.0.1:9/api/v1")
    assert os.path.isabs(entry["command"]) and os.access(entry["command"], os.X_OK)
    assert backups(path) == []  # nothing to back up
    assert str(path) in result.output


@all_clients
def test_existing_file_keeps_other_servers_and_every_byte(home: Path, client_id: str):
    client = CLIENTS[client_id]
    original = existing_text(client)
    path = seed(home, client, original)

    assert run("install", client_id).exit_code == 0
    document = parse(client, path.read_text())
    assert document[client.container]["other"]["args"] == ["-y", "other-server"]
    assert document[client.container]["pwc-local"] == expected_entry(client)
    assert backups(path)[-1].read_text() == original
    if client.fmt == "jsonc":
        for comment in ("// keep me", "/* a block comment */", "// trailing comma next line"):
            assert comment in path.read_text()

    result = run("uninstall", client_id)
    assert result.exit_code == 0, result.output
    assert path.read_text() == original  # only our entry was ever touched


@all_clients
def test_second_install_changes_nothing(home: Path, client_id: str):
    client = CLIENTS[client_id]
    path = seed(home, client, existing_text(client))
    assert run("install", client_id).exit_code == 0
    after_first = path.read_bytes()
    for copy in backups(path):
        copy.unlink()

    result = run("install", client_id)
    assert result.exit_code == 0
    assert "Nothing to do" in result.output
    assert path.read_bytes() == after_first
    assert backups(path) == []  # no write, so no backup either


@all_clients
def test_different_entry_needs_force(home: Path, client_id: str):
    client = CLIENTS[client_id]
    path = seed(home, client, existing_text(client))
    assert run("install", client_id, "--env", "A=1").exit_code == 0
    installed = path.read_bytes()

    refused = run("install", client_id, "--env", "A=2")
    assert refused.exit_code == 1
    assert "--force" in refused.output
    assert any(line.startswith("+") and "2" in line for line in refused.output.splitlines())
    assert path.read_bytes() == installed

    forced = run("install", client_id, "--env", "A=2", "--force")
    assert forced.exit_code == 0, forced.output
    assert servers(client, path)["pwc-local"]["env"] == {"A": "2"}
    assert servers(client, path)["other"]["command"] == "npx"
    assert backups(path)[-1].read_bytes() == installed


@all_clients
def test_force_keeps_fields_a_person_added_to_our_entry(home: Path, client_id: str):
    client = CLIENTS[client_id]
    path = home / client.path
    assert run("install", client_id).exit_code == 0
    text = path.read_text()
    if client.fmt == "toml":
        text = text.replace("args = []", "args = []\nstartup_timeout_sec = 30", 1)
        text = text.replace('command = "', 'command = "/old', 1)
    else:
        text = text.replace('"args": []', '"args": [], "startup_timeout_sec": 30', 1)
        text = text.replace('"command": "', '"command": "/old', 1)
    path.write_text(text)
    assert servers(client, path)["pwc-local"]["command"].startswith("/old")

    assert run("install", client_id, "--force").exit_code == 0
    entry = servers(client, path)["pwc-local"]
    assert entry["startup_timeout_sec"] == 30
    assert entry["command"] == server_command()[0]


@all_clients
def test_dry_run_prints_the_diff_and_writes_nothing(home: Path, client_id: str):
    client = CLIENTS[client_id]
    path = seed(home, client, existing_text(client))
    result = run("install", client_id, "--dry-run")
    assert result.exit_code == 0
    assert f"--- {path}" in result.output and f"+++ {path}" in result.output
    assert any(line.startswith("+") and "pwc-local" in line for line in result.output.splitlines())
    assert path.read_text() == existing_text(client)
    assert backups(path) == []
    assert f"Dry run: nothing was written to {path}." in result.output

    fresh = run("uninstall", client_id, "--dry-run")
    assert fresh.exit_code == 0 and path.read_text() == existing_text(client)


def test_dry_run_of_a_missing_file_creates_nothing(home: Path):
    result = run("install", "claude-desktop", "--dry-run")
    assert result.exit_code == 0
    assert "--- /dev/null" in result.output
    assert not (home / CLIENTS["claude-desktop"].path).exists()


@all_clients
def test_malformed_file_is_left_untouched(home: Path, client_id: str):
    client = CLIENTS[client_id]
    text, position = MALFORMED[client.fmt]
    path = seed(home, client, text)
    os.utime(path, (1_000_000, 1_000_000))

    for command in (
        ["install", client_id],
        ["install", client_id, "--force"],
        ["uninstall", client_id],
    ):
        result = run(*command)
        assert result.exit_code == 1
        assert f"{path}:{position}" in result.output
        assert "left unchanged" in result.output
    assert path.read_text() == text
    assert path.stat().st_mtime == 1_000_000
    assert backups(path) == []


def test_codex_force_edits_our_table_in_place_keeping_its_comments(home: Path):
    head = '# Codex\nmodel = "o3"\n\n[mcp_servers.pwc-local] # papers\n# set by hand\n'
    tail = '\n# profiles below\n[profiles.fast]\nmodel = "o4-mini"\n'
    path = seed(
        home,
        CLIENTS["codex"],
        head + 'command = "/old" # venv\nargs = []\nstartup_timeout_sec = 30\n' + tail,
    )
    assert run("install", "codex", "--env", "A=1", "--force").exit_code == 0
    command = json.dumps(server_command()[0], ensure_ascii=False)  # a TOML basic string
    assert path.read_text() == (
        head
        + f"command = {command} # venv\nargs = []\nstartup_timeout_sec = 30\n"
        + '\n[mcp_servers.pwc-local.env]\nA = "1"\n'
        + tail
    )
    assert run("uninstall", "codex").exit_code == 0
    assert path.read_text() == '# Codex\nmodel = "o3"\n' + tail


@all_clients
def test_uninstall_without_an_entry_changes_nothing(home: Path, client_id: str):
    client = CLIENTS[client_id]
    path = seed(home, client, existing_text(client))
    result = run("uninstall", client_id)
    assert result.exit_code == 0
    assert "Nothing to do" in result.output
    assert path.read_text() == existing_text(client)
    assert run("uninstall", client_id).exit_code == 0  # also fine with no file at all
    path.unlink()
    assert run("uninstall", client_id).exit_code == 0
    assert not path.exists()


def test_custom_name_and_its_validation(home: Path):
    client = CLIENTS["cursor"]
    assert run("install", "cursor", "--name", "papers_2").exit_code == 0
    assert set(servers(client, home / client.path)) == {"papers_2"}
    bad = run("install", "cursor", "--name", "pwc local")
    assert bad.exit_code == 2
    assert "letters, digits" in bad.output
    assert run("uninstall", "cursor", "--name", "papers_2").exit_code == 0
    assert servers(client, home / client.path) == {}


def test_bad_env_option(home: Path):
    result = run("install", "cursor", "--env", "NOEQUALS")
    assert result.exit_code == 2
    assert "KEY=VALUE" in result.output
    assert not (home / CLIENTS["cursor"].path).exists()


@pytest.mark.parametrize(
    ("client_id", "relative"),
    [("vscode", ".vscode/mcp.json"), ("claude-code", ".mcp.json"), ("cursor", ".cursor/mcp.json")],
)
def test_project_level_files(home: Path, tmp_path: Path, client_id: str, relative: str):
    project = tmp_path / "project"
    project.mkdir()
    result = run("install", client_id, "--project", str(project))
    assert result.exit_code == 0, result.output
    assert "by name" in result.output and "PATH" in result.output
    document = json.loads((project / relative).read_text())
    key = "servers" if client_id == "vscode" else "mcpServers"
    # A shared file names the command, not this machine's path to it.
    assert document[key]["pwc-local"]["command"] == "pwc-mcp-local"
    assert document[key]["pwc-local"]["args"] == []
    if client_id != "cursor":
        assert document[key]["pwc-local"]["type"] == "stdio"
    assert not (home / CLIENTS[client_id].path).exists()


def test_project_is_refused_for_clients_without_project_files(home: Path, tmp_path: Path):
    result = run("install", "claude-desktop", "--project", str(tmp_path))
    assert result.exit_code == 2
    assert "no project-level" in result.output


def test_file_option_edits_the_named_file(home: Path, tmp_path: Path):
    target = tmp_path / "elsewhere" / "insiders-mcp.json"
    assert run("install", "vscode", "--file", str(target)).exit_code == 0
    assert "pwc-local" in json.loads(target.read_text())["servers"]


def test_print_shows_a_json_entry_and_the_command_line(home: Path):
    result = run("install", "print", "--env", "PWC_MCP_LOCAL_LOG_FILE=/tmp/my logs/x.log")
    assert result.exit_code == 0
    block, _, rest = result.output.partition("\n\n")
    entry = json.loads(block)["mcpServers"]["pwc-local"]
    command = server_command()[0]
    env = {"PWC_MCP_LOCAL_LOG_FILE": "/tmp/my logs/x.log"}
    assert entry == {"command": command, "args": [], "env": env}
    assert f"Command line: 'PWC_MCP_LOCAL_LOG_FILE=/tmp/my logs/x.log' {command}" in rest
    assert not any(home.iterdir())


# -- file handling --------------------------------------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_permissions_are_kept_on_the_file_and_its_backup(home: Path):
    client = CLIENTS["claude-code"]
    path = seed(home, client, existing_text(client))
    path.chmod(0o640)  # neither the temporary file's 0600 nor a umask default
    assert run("install", "claude-code").exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert stat.S_IMODE(backups(path)[-1].stat().st_mode) == 0o640
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_new_file_gets_the_usual_mode_for_the_umask(home: Path):
    old_mask = os.umask(0o027)
    try:
        assert run("install", "cursor").exit_code == 0
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE((home / CLIENTS["cursor"].path).stat().st_mode) == 0o640


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_symlinked_config_is_written_through(home: Path, tmp_path: Path):
    client = CLIENTS["zed"]
    real = tmp_path / "dotfiles" / "zed-settings.json"
    real.parent.mkdir()
    real.write_text(existing_text(client))
    link = home / client.path
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert run("install", "zed").exit_code == 0
    assert link.is_symlink()
    assert "pwc-local" in jsonc_loads(real.read_text(), comments=True)["context_servers"]


def test_crlf_and_byte_order_mark_are_kept(home: Path):
    client = CLIENTS["windsurf"]
    original = "\ufeff" + existing_text(client).replace("\n", "\r\n")
    path = home / client.path
    path.parent.mkdir(parents=True)
    path.write_bytes(original.encode("utf-8"))
    assert run("install", "windsurf").exit_code == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert run("uninstall", "windsurf").exit_code == 0
    assert path.read_bytes() == original.encode("utf-8")


def test_a_file_changed_after_planning_is_not_overwritten(home: Path):
    target = TARGETS["cursor"]
    path = seed(home, CLIENTS["cursor"], '{"mcpServers": {}}')
    change = installer.plan_install(target, path, "pwc-local", {"command": "x"}, force=False)
    path.write_text('{"mcpServers": {"added-meanwhile": {}}}')
    with pytest.raises(FileChanged):
        installer.apply(change)
    assert path.read_text() == '{"mcpServers": {"added-meanwhile": {}}}'


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    home: Path, monkeypatch: pytest.MonkeyPatch
):
    client = CLIENTS["cursor"]
    path = seed(home, client, existing_text(client))

    def broken_replace(src: Any, dst: Any, **_dir_fds: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    result = run("install", "cursor")
    assert result.exit_code == 1
    assert "No space left" in result.output
    assert path.read_text() == existing_text(client)
    assert sorted(p.name for p in path.parent.iterdir()) == ["mcp.json"]


# -- claude-code through the `claude` command ---------------------------------------------


@pytest.mark.e2e
@pytest.mark.skipif(os.name != "posix", reason="shell script stub")
def test_via_cli_runs_claude_mcp_add(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "claude.log"
    stub = bin_dir / "claude"
    stub.write_text(f'#!/bin/sh\nprintf "%s|" "$@" >> "{log}"\necho >> "{log}"\n')
    stub.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")

    dry = run("install", "claude-code", "--via-cli", "--env", "A=1", "--dry-run")
    assert dry.exit_code == 0 and "Would run:" in dry.output
    assert "Dry run: nothing was run or written." in dry.output
    assert not log.exists()

    result = run("install", "claude-code", "--via-cli", "--env", "A=1")
    assert result.exit_code == 0, result.output
    command = server_command()[0]
    assert log.read_text().splitlines() == [
        f"mcp|add|--transport|stdio|--scope|user|--env|A=1|pwc-local|--|{command}|"
    ]


def test_via_cli_is_only_for_claude_code(home: Path):
    result = run("install", "cursor", "--via-cli")
    assert result.exit_code == 2
    assert "only with claude-code" in result.output


def test_user_level_entries_keep_the_absolute_path(home: Path):
    result = run("install", "claude-code")
    assert result.exit_code == 0, result.output
    entry = servers(CLIENTS["claude-code"], home / CLIENTS["claude-code"].path)["pwc-local"]
    assert entry["command"] == server_command()[0] and os.path.isabs(entry["command"])
    assert "by name" not in result.output


@pytest.mark.parametrize(
    ("pair", "named"),
    [
        ("PWC_API_URL=127.0.0.1/bad", "PWC_API_URL"),
        ("PWC_MCP_LOCAL_TIMEOUT=soon", "PWC_MCP_LOCAL_TIMEOUT"),
        ("PWC_MCP_LOCAL_CACHE_SIZE=12", "PWC_MCP_LOCAL_CACHE_SIZE"),
        ("PWC_MCP_LOCAL_TIMOUT=5", "not a setting"),
    ],
)
def test_env_values_the_server_would_refuse_are_refused(home: Path, pair: str, named: str):
    result = run("install", "claude-desktop", "--env", pair)
    assert result.exit_code == 2, result.output
    assert named in result.output and "--env" in result.output
    assert not (home / CLIENTS["claude-desktop"].path).exists()


def test_a_misspelt_setting_name_gets_the_closest_one_suggested(home: Path):
    result = run("install", "claude-desktop", "--env", "PWC_MCP_LOCAL_TIMOUT=5")
    assert result.exit_code == 2
    assert "did you mean PWC_MCP_LOCAL_TIMEOUT?" in " ".join(result.output.split())
    # A name close to none is not given a guess.
    far = run("install", "claude-desktop", "--env", "PWC_MCP_LOCAL_ZZZ=5")
    assert far.exit_code == 2 and "did you mean" not in far.output


def test_env_values_the_server_accepts_pass(home: Path):
    result = run(
        "install",
        "claude-desktop",
        "--env",
        "PWC_API_URL=https://mirror.example/api/v1",
        "--env",
        "PWC_MCP_LOCAL_CACHE_SIZE=2GiB",
        "--env",
        "OTHER=anything",
    )
    assert result.exit_code == 0, result.output


def test_backups_are_dated_and_the_last_three_kept(tmp_path: Path):
    from datetime import datetime, timedelta

    path = tmp_path / "config.json"
    start = datetime(2026, 12, 1, 9, 0, 0)
    made = []
    for step in range(5):
        path.write_text(f"version {step}")
        made.append(backup(path, now=start + timedelta(seconds=step)))
    kept = backups(path)
    assert kept == made[-3:]
    assert [p.read_text() for p in kept] == ["version 2", "version 3", "version 4"]
    assert kept[0].name == "config.json.20261201-090002.bak"
    # Two changes within the same second both keep their copy.
    again = backup(path, now=start + timedelta(seconds=4))
    assert again.name == "config.json.20261201-090004-2.bak"
    assert backups(path)[-1] == again
