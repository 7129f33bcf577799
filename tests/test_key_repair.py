"""`key rotate --replace-insecure`: the way out when the key file is readable by others.

Plain `key rotate` refuses such a key (keeping it as "previous" would keep honouring
cursors anyone could forge) and now points at the flag; the flag replaces the
exposed files with a fresh private key, logs it at warning level, and every cursor
signed before stops verifying.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from pwc_local.cli import main
from pwc_local.common.cursors import CursorCodec, CursorState
from pwc_local.store.keys import KEY_FILE_NAME, PREVIOUS_KEY_FILE_NAME, load_keyring
from pwc_local.upstream.errors import CursorError

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
NOW = 1_700_000_000.0
STATE = CursorState(
    ref="1706.03762",
    paper="1706.03762",
    source="arxiv",
    version="a" * 64,
    offset=65536,
    limit=65536,
    exp=int(NOW) + 3600,
)


def key_dir(tmp_path: Path) -> Path:
    return tmp_path / "config" / "pwc-mcp-local"


def run(tmp_path: Path, *args: str):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PWC_MCP_CURSOR_KEY_CURRENT": ""}
    return CliRunner().invoke(main, ["key", *args], env=env)


def test_an_exposed_key_is_refused_then_replaced(tmp_path: Path) -> None:
    ring = load_keyring(key_dir(tmp_path), environ={})
    token = CursorCodec(ring.current, ring.previous).mint(STATE, now=NOW)
    key = key_dir(tmp_path) / KEY_FILE_NAME
    key.chmod(0o644)

    refused = run(tmp_path, "rotate")
    assert refused.exit_code == 1
    assert "--replace-insecure" in refused.output
    assert key.read_text().strip() == ring.current  # refused means untouched

    replaced = run(tmp_path, "rotate", "--replace-insecure")
    assert replaced.exit_code == 0, replaced.output
    assert "no longer valid" in replaced.output
    assert "WARNING" in replaced.output and "other users could read it" in replaced.output
    assert ring.current not in replaced.output
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not (key_dir(tmp_path) / PREVIOUS_KEY_FILE_NAME).exists()

    new = load_keyring(key_dir(tmp_path), environ={})
    assert new.current != ring.current and new.previous is None
    with pytest.raises(CursorError):
        CursorCodec(new.current, new.previous).verify(token, reference="1706.03762", now=NOW)


def test_a_private_key_is_left_alone(tmp_path: Path) -> None:
    ring = load_keyring(key_dir(tmp_path), environ={})
    result = run(tmp_path, "rotate", "--replace-insecure")
    assert result.exit_code == 0
    assert "Nothing to replace" in result.output
    assert load_keyring(key_dir(tmp_path), environ={}).current == ring.current


def test_an_exposed_previous_key_and_an_open_directory_are_fixed_too(tmp_path: Path) -> None:
    load_keyring(key_dir(tmp_path), environ={})
    run(tmp_path, "rotate")  # now there is a previous key
    previous = key_dir(tmp_path) / PREVIOUS_KEY_FILE_NAME
    previous.chmod(0o640)
    key_dir(tmp_path).chmod(0o755)
    result = run(tmp_path, "rotate", "--replace-insecure")
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(key_dir(tmp_path).stat().st_mode) == 0o700
    assert not previous.exists()
    assert run(tmp_path, "status").exit_code == 0
