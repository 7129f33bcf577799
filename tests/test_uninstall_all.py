"""`pwc-mcp-local uninstall --all [--purge]`: every client left, what stays on disk named.

A private home holds an entry of ours in every client of `TARGETS` (the one table,
so a client added there is covered here too), a foreign server beside one of them,
and a real cache, library and cursor key made by the stores themselves. The removal
commands the report prints are run as printed, to show they remove what they say.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pwc_local.cli import main
from pwc_local.clients.files import backups
from pwc_local.clients.installer import load_document
from pwc_local.clients.targets import TARGETS, Host
from pwc_local.config import load_settings


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(name, str(home / name.lower()))
    for name in list(os.environ):
        if name.startswith("PWC_") or name in ("CODEX_HOME", "CLAUDE_CONFIG_DIR"):
            monkeypatch.delenv(name)
    return home


def run(*args: str, answer: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=answer, catch_exceptions=False)


def our_entries(target_id: str) -> list[str]:
    target = TARGETS[target_id]
    _source, document = load_document(target, target.user_path(Host.current()))
    return list(document.servers())


def make_data(home: Path) -> dict[str, Path]:
    """A cache entry, a library and a cursor key, each made by its own store."""
    from pwc_local.store.cache import DiskCache
    from pwc_local.store.keys import default_key_dir, load_keyring
    from pwc_local.store.library import Library
    from pwc_local.store.library_db import DB_FILE_NAME, default_library_dir

    settings = load_settings()
    cache = DiskCache.from_settings(settings)
    cache.put("response", ["tasks/", 1], {"results": []}, ttl=60)
    cache.close()
    Library.open().close()
    load_keyring(create=True)
    return {
        "cache": settings.resolved_cache_dir(),
        "library": default_library_dir() / DB_FILE_NAME,
        "key": default_key_dir() / "cursor-key",
    }


def test_all_removes_every_entry_of_ours_from_every_client_and_backs_each_up(home: Path):
    for target_id in TARGETS:
        assert run("install", target_id).exit_code == 0
    assert run("install", "cursor", "--name", "papers").exit_code == 0
    cursor_file = TARGETS["cursor"].user_path(Host.current())
    document = json.loads(cursor_file.read_text())
    document["mcpServers"]["someone-else"] = {"command": "/opt/other/server"}
    cursor_file.write_text(json.dumps(document))

    result = run("uninstall", "--all")
    assert result.exit_code == 0, result.output
    for target_id, target in TARGETS.items():
        expected = ["someone-else"] if target_id == "cursor" else []
        assert our_entries(target_id) == expected, target_id
        assert backups(target.user_path(Host.current())), target_id  # backed up first
        assert f"the {target.title} config" in result.output
    assert "Removed 'papers' from the Cursor config" in result.output
    assert "uninstall CLIENT --project DIR" in result.output  # what it cannot find

    again = run("uninstall", "--all")
    assert "No pwc-mcp-local entry in any client's user config." in again.output


def test_dry_run_shows_the_diffs_and_changes_nothing(home: Path):
    assert run("install", "claude-desktop").exit_code == 0
    path = TARGETS["claude-desktop"].user_path(Host.current())
    before = path.read_text()
    result = run("uninstall", "--all", "--dry-run", "--purge")
    assert result.exit_code == 0
    assert f"--- {path}" in result.output
    assert path.read_text() == before and backups(path) == []


@pytest.mark.e2e  # runs the printed `rm` commands
def test_what_stays_on_disk_is_named_with_a_command_that_removes_it(home: Path):
    made = make_data(home)
    result = run("uninstall", "--all")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    commands = [line.split("remove: ", 1)[1] for line in lines if "remove: " in line]
    assert len(commands) == 3, result.output
    for (what, path), command in zip(made.items(), commands, strict=True):
        assert str(path) in command, (what, command)
    assert "uninstall --all --purge removes them all" in result.output
    if os.name == "posix":  # the printed commands do what they say
        for command in commands:
            subprocess.run(shlex.split(command), check=True)
        assert not any(path.exists() for path in made.values())
        nothing = run("uninstall", "--all")
        assert "Nothing of pwc-mcp-local's is left on disk" in nothing.output


def test_purge_asks_then_deletes_cache_library_and_key_but_keeps_the_settings_file(
    home: Path,
):
    made = make_data(home)
    settings = home / "xdg_config_home" / "pwc" / "mcp-local.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('log_level = "info"\n')
    mine = made["library"].parent / "my-notes.txt"  # not ours: stays, and so its folder
    mine.write_text("keep me")

    declined = run("uninstall", "--all", "--purge", answer="n\n")
    assert declined.exit_code == 0
    assert "Delete the cache, the library and the cursor key for good" in declined.output
    # The library file holds the watch list too: both the listing and the question say so.
    assert "saved papers and the watch list)" in declined.output
    assert "(saved papers, the watch list and open cursors are lost)?" in declined.output
    assert "Nothing was deleted." in declined.output
    assert all(path.exists() for path in made.values())

    result = run("uninstall", "--all", "--purge", answer="y\n")
    assert result.exit_code == 0, result.output
    assert not any(path.exists() for path in made.values())
    assert not made["key"].parent.exists()  # left empty, so removed
    assert mine.read_text() == "keep me"
    assert settings.exists() and f"Your settings file {settings} is kept" in result.output

    make_data(home)
    unasked = run("uninstall", "--all", "--purge", "--yes")
    assert "for good" not in unasked.output and "Deleted the cache" in unasked.output


def test_a_cache_directory_that_holds_other_files_is_left_alone(
    home: Path, monkeypatch: pytest.MonkeyPatch
):
    shared = home / "Downloads"
    shared.mkdir(mode=0o700)  # private: a shared one is refused as a cache
    (shared / "thesis.pdf").write_bytes(b"%PDF")
    monkeypatch.setenv("PWC_MCP_LOCAL_CACHE_DIR", str(shared))
    make_data(home)
    result = run("uninstall", "--all", "--purge", "--yes")
    assert "not removed by --purge: it also holds files the cache did not make" in result.output
    assert (shared / "thesis.pdf").exists() and (shared / "cache.db").exists()
    assert "Deleted the library" in result.output


def test_usage_errors(home: Path):
    assert run("uninstall").exit_code == 2
    assert run("uninstall", "claude-desktop", "--purge").exit_code == 2
    assert run("uninstall", "claude-desktop", "--all").exit_code == 2


def test_a_file_that_does_not_parse_is_named_and_the_others_are_still_cleaned(home: Path):
    assert run("install", "claude-desktop").exit_code == 0
    codex = TARGETS["codex"].user_path(Host.current())
    codex.parent.mkdir(parents=True)
    codex.write_text('[mcp_servers.pwc-local\ncommand = "x"\n')
    result = run("uninstall", "--all")
    assert result.exit_code == 1
    assert f"Codex: {codex}:1:" in result.output and "left unchanged" in result.output
    assert codex.read_text() == '[mcp_servers.pwc-local\ncommand = "x"\n'
    assert our_entries("claude-desktop") == []
