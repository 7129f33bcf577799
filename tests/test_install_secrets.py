"""`install --env` with a secret (issue 28, "Trust").

A key, token or password given with `--env` would sit in a client config that the
client, other programs and backups read. `install` refuses it unless
`--allow-secret`, and then writes the file (and its `.bak`) 0600; a shared project
file and `claude mcp add` (its arguments show in `ps`) never take one.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

KEY = "PWC_MCP_CURSOR_KEY_CURRENT=" + "ab" * 32


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_key_in_env_is_refused_and_nothing_is_written(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    target = tmp_path / "client.json"
    result = cli("install", "cursor", "--file", str(target), "--env", KEY)
    assert result.exit_code == 2
    flat = " ".join(result.output.split())
    assert "--env PWC_MCP_CURSOR_KEY_CURRENT looks like a secret" in flat
    assert str(target) in flat and "--allow-secret" in flat
    assert "ab" * 32 not in result.output  # the secret itself is not repeated
    assert not target.exists()


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_allow_secret_writes_the_file_and_its_backup_0600(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    target = tmp_path / "client.json"
    target.write_text('{"mcpServers": {}}\n')
    target.chmod(0o644)
    result = cli("install", "cursor", "--file", str(target), "--env", KEY, "--allow-secret")
    assert result.exit_code == 0, result.output
    entry = json.loads(target.read_text())["mcpServers"]["pwc-local"]
    assert entry["env"] == {"PWC_MCP_CURSOR_KEY_CURRENT": "ab" * 32}
    assert _mode(target) == 0o600
    [saved] = tmp_path.glob("client.json.*.bak")
    assert _mode(saved) == 0o600


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_an_ordinary_setting_keeps_the_file_mode(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    target = tmp_path / "client.json"
    target.write_text('{"mcpServers": {}}\n')
    target.chmod(0o644)
    result = cli("install", "cursor", "--file", str(target), "--env", "PWC_MCP_LOCAL_TIMEOUT=9")
    assert result.exit_code == 0, result.output
    assert _mode(target) == 0o644


def test_a_project_file_never_takes_a_secret(cli: Callable[..., Result], tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    result = cli("install", "cursor", "--project", str(project), "--env", KEY, "--allow-secret")
    assert result.exit_code == 2
    assert "never goes into a shared project file" in " ".join(result.output.split())
    assert not (project / ".cursor").exists()


@pytest.mark.parametrize(
    ("pair", "secret"),
    [
        ("GITHUB_TOKEN=x", True),
        ("MY_API_KEY=x", True),
        ("DB_PASSWORD=x", True),
        ("HTTPS_PROXY=http://user:hunter2@proxy:3128", True),
        ("HTTPS_PROXY=http://proxy:3128", False),
        ("PWC_API_URL=http://127.0.0.1:8765/api/v1", False),
        ("KEYBOARD_LAYOUT=us", False),
    ],
)
def test_what_looks_like_a_secret(pair: str, secret: bool) -> None:
    from pwc_local.clients.entry import parse_env, secret_names

    assert bool(secret_names(parse_env([pair]))) is secret
