"""Where each client keeps its config on each platform, and which command an entry runs.

The platform is simulated: `Host` is a plain value, so Windows and macOS paths are
computed here on whatever machine runs the tests.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pwc_local.clients.entry import parse_env, server_command, validate_name
from pwc_local.clients.targets import MACOS, TARGETS, WINDOWS, Host, claude_desktop_path


def windows(tmp_path: Path, **env: str) -> Host:
    home = tmp_path / "Users" / "ada"
    defaults = {
        "APPDATA": str(home / "AppData" / "Roaming"),
        "LOCALAPPDATA": str(home / "AppData" / "Local"),
    }
    return Host(WINDOWS, {**defaults, **env}, home)


def test_claude_desktop_on_windows_uses_appdata_without_the_store_package(tmp_path: Path):
    host = windows(tmp_path)
    assert claude_desktop_path(host) == Path(host.environ["APPDATA"]) / "Claude" / (
        "claude_desktop_config.json"
    )


def test_claude_desktop_on_windows_prefers_the_msix_folder_when_it_exists(tmp_path: Path):
    host = windows(tmp_path)
    packages = Path(host.environ["LOCALAPPDATA"]) / "Packages"
    (packages / "Claude_pzs8sxrjxfjjc" / "LocalCache" / "Roaming" / "Claude").mkdir(parents=True)
    (packages / "Other_123").mkdir()
    assert claude_desktop_path(host) == (
        packages
        / "Claude_pzs8sxrjxfjjc"
        / "LocalCache"
        / "Roaming"
        / "Claude"
        / "claude_desktop_config.json"
    )


def test_msix_package_without_its_claude_folder_does_not_count(tmp_path: Path):
    host = windows(tmp_path)
    (Path(host.environ["LOCALAPPDATA"]) / "Packages" / "Claude_abc").mkdir(parents=True)
    assert claude_desktop_path(host).parent == Path(host.environ["APPDATA"]) / "Claude"


def test_msix_folder_that_already_has_a_config_wins(tmp_path: Path):
    host = windows(tmp_path)
    packages = Path(host.environ["LOCALAPPDATA"]) / "Packages"
    for package in ("Claude_aaa", "Claude_bbb"):
        (packages / package / "LocalCache" / "Roaming" / "Claude").mkdir(parents=True)
    config = packages / "Claude_bbb" / "LocalCache" / "Roaming" / "Claude"
    (config / "claude_desktop_config.json").write_text("{}")
    assert claude_desktop_path(host).parent == config


def test_windows_defaults_when_the_environment_lacks_appdata(tmp_path: Path):
    home = tmp_path / "u"
    host = Host(WINDOWS, {}, home)
    assert claude_desktop_path(host).parent == home / "AppData" / "Roaming" / "Claude"
    assert TARGETS["vscode"].user_path(host) == home / "AppData/Roaming/Code/User/mcp.json"
    assert TARGETS["zed"].user_path(host) == home / "AppData/Roaming/Zed/settings.json"
    assert TARGETS["cursor"].user_path(host) == home / ".cursor/mcp.json"


def test_macos_paths():
    home = Path("/Users/ada")
    host = Host(MACOS, {"XDG_CONFIG_HOME": "/ignored"}, home)
    support = home / "Library/Application Support"
    assert TARGETS["claude-desktop"].user_path(host) == support / (
        "Claude/claude_desktop_config.json"
    )
    assert TARGETS["vscode"].user_path(host) == support / "Code/User/mcp.json"
    assert TARGETS["zed"].user_path(host) == home / ".config/zed/settings.json"


def test_linux_paths_follow_xdg_config_home():
    home = Path("/home/ada")
    plain = Host("linux", {}, home)
    xdg = Host("linux", {"XDG_CONFIG_HOME": "/cfg"}, home)
    assert TARGETS["claude-desktop"].user_path(plain) == home / (
        ".config/Claude/claude_desktop_config.json"
    )
    assert TARGETS["claude-desktop"].user_path(xdg) == Path(
        "/cfg/Claude/claude_desktop_config.json"
    )
    assert TARGETS["vscode"].user_path(xdg) == Path("/cfg/Code/User/mcp.json")
    assert TARGETS["zed"].user_path(xdg) == Path("/cfg/zed/settings.json")
    assert TARGETS["windsurf"].user_path(xdg) == home / ".codeium/windsurf/mcp_config.json"


def test_client_home_overrides():
    home = Path("/home/ada")
    host = Host("linux", {"CODEX_HOME": "/codex", "CLAUDE_CONFIG_DIR": "/claude"}, home)
    assert TARGETS["codex"].user_path(host) == Path("/codex/config.toml")
    assert TARGETS["claude-code"].user_path(host) == Path("/claude/.claude.json")
    bare = Host("linux", {}, home)
    assert TARGETS["codex"].user_path(bare) == home / ".codex/config.toml"
    assert TARGETS["claude-code"].user_path(bare) == home / ".claude.json"


def test_project_paths():
    project = Path("/src/app")
    assert TARGETS["claude-code"].project_path(project) == project / ".mcp.json"  # type: ignore[misc]
    assert TARGETS["vscode"].project_path(project) == project / ".vscode/mcp.json"  # type: ignore[misc]
    assert TARGETS["claude-desktop"].project_path is None


# -- the command an entry runs -------------------------------------------------------------


def make_script(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def no_which(name: str) -> None:
    return None


def test_command_prefers_the_script_this_process_was_started_as(tmp_path: Path):
    started = make_script(tmp_path / "bin" / "pwc-mcp-local")
    make_script(tmp_path / "venv" / "bin" / "pwc-mcp-local")
    command, args = server_command(
        argv0=str(started),
        executable=str(tmp_path / "venv" / "bin" / "python"),
        which=no_which,
        windows=False,
    )
    assert (command, args) == (str(started), ())


def test_command_beside_the_interpreter(tmp_path: Path):
    script = make_script(tmp_path / "venv" / "bin" / "pwc-mcp-local")
    command, args = server_command(
        argv0="/usr/bin/pytest",
        executable=str(tmp_path / "venv" / "bin" / "python"),
        which=no_which,
        windows=False,
    )
    assert (command, args) == (str(script), ())


def test_command_on_windows_finds_scripts_exe(tmp_path: Path):
    script = make_script(tmp_path / "Python311" / "Scripts" / "pwc-mcp-local.exe")
    command, _ = server_command(
        argv0="",
        executable=str(tmp_path / "Python311" / "python.exe"),
        which=no_which,
        windows=True,
    )
    assert command == str(script)


def test_command_from_path_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    make_script(tmp_path / "onpath" / "pwc-mcp-local")
    monkeypatch.chdir(tmp_path)
    command, _ = server_command(
        argv0="",
        executable=str(tmp_path / "nowhere" / "python"),
        which=lambda name: os.path.join("onpath", name),
        windows=False,
    )
    assert command == str(tmp_path / "onpath" / "pwc-mcp-local")


def test_command_falls_back_to_the_interpreter_with_dash_m(tmp_path: Path):
    not_executable = tmp_path / "venv" / "bin" / "pwc-mcp-local"
    not_executable.parent.mkdir(parents=True)
    not_executable.write_text("")
    command, args = server_command(
        argv0="",
        executable=str(tmp_path / "venv" / "bin" / "python"),
        which=no_which,
        windows=False,
    )
    assert (command, args) == (str(tmp_path / "venv" / "bin" / "python"), ("-m", "pwc_local"))


@pytest.mark.parametrize("name", ["pwc-local", "pwc_2", "A"])
def test_valid_names(name: str):
    assert validate_name(name) == name


@pytest.mark.parametrize("name", ["", "pwc local", "pwc.local", "pwc/x", "é", "x" * 65])
def test_invalid_names(name: str):
    with pytest.raises(ValueError, match="not a valid name"):
        validate_name(name)


def test_env_pairs():
    assert parse_env(["A=1", "B=x=y", "A=2", "EMPTY="]) == {"A": "2", "B": "x=y", "EMPTY": ""}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_env(["NOVALUE"])
    with pytest.raises(ValueError, match="not a valid environment variable name"):
        parse_env(["1BAD=x"])
