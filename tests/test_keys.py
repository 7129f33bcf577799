"""The per-machine cursor key: creation, refusal of unsafe files, races, env, rotation."""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pwc_local.common.cursors import CursorCodec, CursorState
from pwc_local.store import keys
from pwc_local.store.keys import (
    ENV_CURRENT,
    ENV_PREVIOUS,
    KEY_FILE_NAME,
    PREVIOUS_KEY_FILE_NAME,
    KeyFileError,
    default_key_dir,
    key_status,
    load_keyring,
    rotate_key,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes and O_NOFOLLOW")

NO_ENV: dict[str, str] = {}


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def key_dir(tmp_path: Path) -> Path:
    return tmp_path / "config" / "pwc-mcp-local"


def test_first_load_creates_a_private_key_file(key_dir: Path) -> None:
    ring = load_keyring(key_dir, environ=NO_ENV)

    key_path = key_dir / KEY_FILE_NAME
    assert ring.source == "file" and ring.path == key_path
    assert mode_of(key_dir) == 0o700
    assert mode_of(key_path) == 0o600
    assert os.lstat(key_path).st_uid == os.geteuid()
    text = key_path.read_text()
    assert len(ring.current) == 64 and int(ring.current, 16) >= 0
    assert text == ring.current + "\n"
    assert ring.previous is None
    # No temporary file is left behind.
    assert sorted(p.name for p in key_dir.iterdir()) == [KEY_FILE_NAME]


def test_later_loads_return_the_same_key(key_dir: Path) -> None:
    first = load_keyring(key_dir, environ=NO_ENV)
    assert load_keyring(key_dir, environ=NO_ENV).current == first.current


def test_default_directory_honours_xdg_config_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG_CONFIG_HOME applies on Linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert default_key_dir() == tmp_path / "xdg" / "pwc-mcp-local"
    load_keyring(environ=NO_ENV)
    assert (tmp_path / "xdg" / "pwc-mcp-local" / KEY_FILE_NAME).is_file()


def test_key_readable_by_others_is_refused_and_kept(key_dir: Path) -> None:
    ring = load_keyring(key_dir, environ=NO_ENV)
    key_path = key_dir / KEY_FILE_NAME
    os.chmod(key_path, 0o644)

    with pytest.raises(KeyFileError) as caught:
        load_keyring(key_dir, environ=NO_ENV)

    message = str(caught.value)
    assert "0644" in message and f"chmod 600 {key_path}" in message
    assert ring.current not in message
    assert key_path.read_text().strip() == ring.current  # never silently replaced
    assert mode_of(key_path) == 0o644


def test_group_readable_key_is_refused(key_dir: Path) -> None:
    load_keyring(key_dir, environ=NO_ENV)
    os.chmod(key_dir / KEY_FILE_NAME, 0o640)
    with pytest.raises(KeyFileError, match="chmod 600"):
        load_keyring(key_dir, environ=NO_ENV)


def test_symlinked_key_is_refused(key_dir: Path, tmp_path: Path) -> None:
    key_dir.mkdir(parents=True, mode=0o700)
    target = tmp_path / "elsewhere"
    target.write_text("a" * 64 + "\n")
    os.chmod(target, 0o600)
    (key_dir / KEY_FILE_NAME).symlink_to(target)

    with pytest.raises(KeyFileError, match="symbolic link"):
        load_keyring(key_dir, environ=NO_ENV)
    assert (key_dir / KEY_FILE_NAME).is_symlink()  # left for the person to fix
    assert target.read_text() == "a" * 64 + "\n"


def test_dangling_symlink_is_refused_not_replaced(key_dir: Path, tmp_path: Path) -> None:
    key_dir.mkdir(parents=True, mode=0o700)
    (key_dir / KEY_FILE_NAME).symlink_to(tmp_path / "missing")
    with pytest.raises(KeyFileError, match="symbolic link"):
        load_keyring(key_dir, environ=NO_ENV)
    assert not (tmp_path / "missing").exists()


def test_directory_open_to_others_is_refused(key_dir: Path) -> None:
    load_keyring(key_dir, environ=NO_ENV)
    os.chmod(key_dir, 0o755)
    with pytest.raises(KeyFileError) as caught:
        load_keyring(key_dir, environ=NO_ENV)
    assert f"chmod 700 {key_dir}" in str(caught.value)


def test_symlinked_directory_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "pwc-mcp-local"
    link.symlink_to(real)
    with pytest.raises(KeyFileError, match="symbolic link"):
        load_keyring(link, environ=NO_ENV)
    assert list(real.iterdir()) == []


@pytest.mark.skipif(os.name == "posix" and os.geteuid() != 0, reason="needs root to chown")
def test_foreign_owned_key_is_refused(key_dir: Path) -> None:
    load_keyring(key_dir, environ=NO_ENV)
    os.chown(key_dir / KEY_FILE_NAME, 4242, -1)
    with pytest.raises(KeyFileError, match="belongs to uid 4242"):
        load_keyring(key_dir, environ=NO_ENV)


def test_malformed_key_is_refused_and_kept(key_dir: Path) -> None:
    load_keyring(key_dir, environ=NO_ENV)
    key_path = key_dir / KEY_FILE_NAME
    key_path.write_text("not a key\n")
    with pytest.raises(KeyFileError, match="malformed"):
        load_keyring(key_dir, environ=NO_ENV)
    assert key_path.read_text() == "not a key\n"


def test_a_fifo_in_place_of_the_key_fails_fast(key_dir: Path) -> None:
    key_dir.mkdir(parents=True, mode=0o700)
    os.mkfifo(key_dir / KEY_FILE_NAME, 0o600)
    with pytest.raises(KeyFileError, match="not a regular file"):
        load_keyring(key_dir, environ=NO_ENV)


def test_file_systems_without_hard_links_still_get_a_private_key(
    key_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(src: object, dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(keys.os, "link", no_links)
    ring = load_keyring(key_dir, environ=NO_ENV)
    assert mode_of(key_dir / KEY_FILE_NAME) == 0o600
    assert (key_dir / KEY_FILE_NAME).read_text() == ring.current + "\n"


def test_an_unwritable_location_is_an_actionable_error(tmp_path: Path) -> None:
    blocker = tmp_path / "config"
    blocker.write_text("a file where a directory should be")
    with pytest.raises(KeyFileError, match="cannot write the cursor key"):
        load_keyring(blocker / "pwc-mcp-local", environ=NO_ENV)


def _race_for_key(directory: str, barrier: multiprocessing.synchronize.Barrier, out) -> None:
    barrier.wait()
    out.put(load_keyring(Path(directory), environ={}).current)


@pytest.mark.e2e
def test_processes_racing_for_the_first_key_share_one(tmp_path: Path) -> None:
    # forkserver: quick like fork, without forking the test runner's threads.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    for round_number in range(4):
        directory = tmp_path / f"round{round_number}" / "pwc-mcp-local"
        racers = 4
        barrier = context.Barrier(racers)
        out = context.Queue()
        processes = [
            context.Process(target=_race_for_key, args=(str(directory), barrier, out))
            for _ in range(racers)
        ]
        for process in processes:
            process.start()
        seen = [out.get(timeout=60) for _ in processes]
        for process in processes:
            process.join(timeout=60)
            assert process.exitcode == 0
        on_disk = (directory / KEY_FILE_NAME).read_text().strip()
        assert set(seen) == {on_disk}
        assert mode_of(directory / KEY_FILE_NAME) == 0o600
        assert [p.name for p in directory.iterdir()] == [KEY_FILE_NAME]


def test_environment_overrides_the_file(key_dir: Path) -> None:
    env = {ENV_CURRENT: "env-secret-now", ENV_PREVIOUS: "env-secret-before"}
    ring = load_keyring(key_dir, environ=env)
    assert (ring.current, ring.previous, ring.source) == (
        "env-secret-now",
        "env-secret-before",
        "environment",
    )
    assert not key_dir.exists()  # nothing was generated


def test_environment_override_wins_even_over_a_bad_file(key_dir: Path) -> None:
    load_keyring(key_dir, environ=NO_ENV)
    os.chmod(key_dir / KEY_FILE_NAME, 0o644)
    assert load_keyring(key_dir, environ={ENV_CURRENT: "s"}).current == "s"


def test_previous_without_current_in_environment_is_an_error(key_dir: Path) -> None:
    with pytest.raises(KeyFileError, match=ENV_CURRENT):
        load_keyring(key_dir, environ={ENV_PREVIOUS: "old"})


def test_rotation_keeps_the_old_key_as_previous(key_dir: Path) -> None:
    before = load_keyring(key_dir, environ=NO_ENV)
    rotated = rotate_key(key_dir)

    assert rotated.current != before.current and rotated.previous == before.current
    loaded = load_keyring(key_dir, environ=NO_ENV)
    assert (loaded.current, loaded.previous) == (rotated.current, before.current)
    assert mode_of(key_dir / KEY_FILE_NAME) == 0o600
    assert mode_of(key_dir / PREVIOUS_KEY_FILE_NAME) == 0o600
    assert sorted(p.name for p in key_dir.iterdir() if not p.name.endswith(".lock")) == [
        KEY_FILE_NAME,
        PREVIOUS_KEY_FILE_NAME,
    ]

    again = rotate_key(key_dir)
    assert again.previous == rotated.current
    assert before.current not in {again.current, again.previous}


def test_cursor_signed_before_rotation_still_verifies(key_dir: Path) -> None:
    before = load_keyring(key_dir, environ=NO_ENV)
    old_codec = CursorCodec(before.current, before.previous)
    now = 1_700_000_000.0
    state = CursorState(
        ref="1706.03762",
        paper="1706.03762",
        source="arxiv",
        version="a" * 64,
        offset=65536,
        limit=65536,
        exp=int(now) + 3600,
    )
    token = old_codec.mint(state, now=now)

    after = rotate_key(key_dir)
    new_codec = CursorCodec(after.current, after.previous)
    assert new_codec.verify(token, reference="1706.03762", now=now + 1) == state


def test_rotating_before_any_key_exists_just_makes_one(key_dir: Path) -> None:
    ring = rotate_key(key_dir)
    assert ring.previous is None
    assert not (key_dir / PREVIOUS_KEY_FILE_NAME).exists()
    assert load_keyring(key_dir, environ=NO_ENV).current == ring.current


def test_rotation_refuses_an_unsafe_key(key_dir: Path) -> None:
    ring = load_keyring(key_dir, environ=NO_ENV)
    os.chmod(key_dir / KEY_FILE_NAME, 0o666)
    with pytest.raises(KeyFileError):
        rotate_key(key_dir)
    assert (key_dir / KEY_FILE_NAME).read_text().strip() == ring.current


def test_repr_never_shows_secrets(key_dir: Path) -> None:
    ring = load_keyring(key_dir, environ=NO_ENV)
    rotated = rotate_key(key_dir)
    for shown in (repr(ring), repr(rotated), str(rotated)):
        assert ring.current not in shown and rotated.current not in shown


def test_status_describes_without_creating_or_revealing(key_dir: Path) -> None:
    missing = key_status(key_dir, environ=NO_ENV)
    assert missing.current.exists is False and not key_dir.exists()
    assert missing.problem is None  # made on first use; nothing to fix

    ring = load_keyring(key_dir, environ=NO_ENV)
    status = key_status(key_dir, environ=NO_ENV)
    assert status.problem is None and status.source == "file"
    assert status.current.mode == 0o600 and status.current.owner_uid == os.geteuid()
    assert status.current.kid == ring.current_kid and len(ring.current_kid) == 16
    assert ring.current not in repr(status)

    os.chmod(key_dir / KEY_FILE_NAME, 0o604)
    assert "chmod 600" in (key_status(key_dir, environ=NO_ENV).problem or "")


def test_status_reports_an_unsafe_directory_before_any_key_exists(key_dir: Path) -> None:
    # The first read_paper would refuse this directory: status must say so now.
    key_dir.mkdir(parents=True, mode=0o755)
    os.chmod(key_dir, 0o755)
    status = key_status(key_dir, environ=NO_ENV)
    assert status.current.exists is False
    assert f"chmod 700 {key_dir}" in (status.problem or "")
    with pytest.raises(KeyFileError, match="chmod 700"):
        load_keyring(key_dir, environ=NO_ENV)


# -- the `key` commands -------------------------------------------------------------------


def invoke(tmp_path: Path, *args: str) -> Any:
    from click.testing import CliRunner

    from pwc_local.cli import main

    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), ENV_CURRENT: "", ENV_PREVIOUS: ""}
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def test_key_status_and_rotate_never_print_the_key(tmp_path: Path) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG_CONFIG_HOME applies on Linux")
    key_dir = tmp_path / "config" / "pwc-mcp-local"
    ring = load_keyring(key_dir, environ=NO_ENV)

    status = invoke(tmp_path, "key", "status", "--json")
    assert status.exit_code == 0
    document = json.loads(status.output)
    assert document["current"]["mode"] == "0600"
    assert document["current"]["kid"] == ring.current_kid
    assert document["source"] == "file" and document["problem"] is None

    rotated = invoke(tmp_path, "key", "rotate", "--json")
    assert rotated.exit_code == 0
    after = load_keyring(key_dir, environ=NO_ENV)
    assert json.loads(rotated.output) == {
        "path": str(key_dir / KEY_FILE_NAME),
        "kid": after.current_kid,
        "previous_kid": ring.current_kid,
    }
    people = invoke(tmp_path, "key", "status").output
    assert after.previous_kid in people  # type: ignore[operator]
    for output in (status.output, rotated.output, people):
        assert ring.current not in output and after.current not in output


def test_key_rotate_without_a_key_says_it_made_one(tmp_path: Path) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG_CONFIG_HOME applies on Linux")
    result = invoke(tmp_path, "key", "rotate")
    assert result.exit_code == 0
    ring = load_keyring(tmp_path / "config" / "pwc-mcp-local", environ=NO_ENV)
    assert "Created the cursor key" in result.output and ring.current_kid in result.output
    assert "None" not in result.output and "Rotated" not in result.output


def test_key_status_fails_on_an_unsafe_key(tmp_path: Path) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG_CONFIG_HOME applies on Linux")
    key_dir = tmp_path / "config" / "pwc-mcp-local"
    load_keyring(key_dir, environ=NO_ENV)
    os.chmod(key_dir / KEY_FILE_NAME, 0o644)
    result = invoke(tmp_path, "key", "status")
    assert result.exit_code == 1
    assert "chmod 600" in result.output
    rotate = invoke(tmp_path, "key", "rotate")
    assert rotate.exit_code == 1 and "chmod 600" in rotate.output


# -- Windows: narrowing the key file's ACL ------------------------------------------------


def test_windows_restriction_runs_icacls_for_the_current_user(tmp_path: Path) -> None:
    from pwc_local.store.keys import restrict_to_current_user

    seen: list[list[str]] = []

    def fake_run(command: list[str], **_: Any) -> subprocess.CompletedProcess[bytes]:
        seen.append(command)
        return subprocess.CompletedProcess(command, 0, b"", b"")

    target = tmp_path / "cursor-key"
    env = {"USERNAME": "ada", "USERDOMAIN": "LAB"}
    assert restrict_to_current_user(target, environ=env, run=fake_run)
    assert seen == [["icacls", str(target), "/inheritance:r", "/grant:r", "LAB\\ada:F"]]


def test_windows_restriction_failure_is_reported_not_raised(tmp_path: Path) -> None:
    from pwc_local.store.keys import restrict_to_current_user

    def failing(command: list[str], **_: Any) -> subprocess.CompletedProcess[bytes]:
        return subprocess.CompletedProcess(command, 5, b"", b"Access is denied.")

    def missing(command: list[str], **_: Any) -> subprocess.CompletedProcess[bytes]:
        raise FileNotFoundError("icacls")

    target = tmp_path / "cursor-key"
    assert not restrict_to_current_user(target, environ={"USERNAME": "ada"}, run=failing)
    assert not restrict_to_current_user(target, environ={"USERNAME": "ada"}, run=missing)
    assert not restrict_to_current_user(target, environ={}, run=failing)
