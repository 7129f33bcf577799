"""The cache and the settings file follow the key's and the library's rules (issue 28).

* A cache directory another user may use (`PWC_MCP_LOCAL_CACHE_DIR` at a 0777
  directory) is refused, naming the path and the `chmod`: nothing from it is served
  and nothing is stored in it; the default directory is ours, so it is narrowed to
  0700 instead. `cache.db` and its `-wal`/`-shm` are 0600.
* A settings file other users can write (0666, someone else's, or in a directory
  they can write) is not honoured: the server refuses to start with one line naming
  the file and the fix, and `doctor` has a line for it.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.fake_catalog import FakeCatalog
from tests.installed import InstalledServer, call

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _open_dir(path: Path, mode: int = 0o777) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(mode)  # chmod, not mkdir's mode: the umask would narrow that
    return path


def _doctor(server: InstalledServer) -> dict[str, dict[str, object]]:
    done = server.command("doctor", "--offline", "--json")
    return {check["name"]: check for check in json.loads(done.stdout)["checks"]}


# -- the cache directory ------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_world_writable_cache_directory_is_refused_and_never_used(
    installed_server: InstalledServer,
) -> None:
    shared = _open_dir(installed_server.root / "shared-cache")
    installed_server.set(PWC_MCP_LOCAL_CACHE_DIR=str(shared))
    async with installed_server.session() as session:
        task = await call(session, "get_task", task="object-detection")
    assert task["name"] == "Object Detection"  # answered, from the catalog
    assert list(shared.iterdir()) == []  # nothing stored where others could swap it
    log = installed_server.log.read_text()
    assert f"cache directory {shared} is accessible to other users (mode 0777)" in log
    assert f"run: chmod 700 {shared}" in log

    stats = installed_server.command("cache", "stats")
    assert stats.returncode != 0
    assert f"cache directory {shared} is accessible to other users" in stats.stderr

    cache = _doctor(installed_server)["cache"]
    assert cache["status"] == "fail"
    assert (
        cache["summary"]
        == f"cache directory {shared} is accessible to other users (mode 0777): not used"
    )
    assert str(cache["fix"]).startswith(f"run: chmod 700 {shared}, or point ")


@pytest.mark.anyio
async def test_entries_planted_in_a_shared_cache_are_not_served(
    installed_server: InstalledServer, fake_catalog: FakeCatalog
) -> None:
    async with installed_server.session() as session:  # fills the private cache
        await call(session, "get_task", task="object-detection")
    # Another user's directory now holds that very cache (resealed entries would look
    # just like it): it must not answer, so the catalog is asked again.
    cache = installed_server.cache_dir
    cache.chmod(0o777)
    before = len(fake_catalog.requests)
    async with installed_server.session() as session:
        await call(session, "get_task", task="object-detection")
    assert len(fake_catalog.requests) > before


@pytest.mark.anyio
async def test_the_cache_database_and_its_wal_files_are_private(
    installed_server: InstalledServer,
) -> None:
    old = os.umask(0o022)  # the server inherits it: SQLite would make files 0644
    try:
        async with installed_server.session() as session:
            await call(session, "get_task", task="object-detection")
            files = [
                path
                for path in installed_server.cache_dir.iterdir()
                if path.name.startswith("cache.db")
            ]
            assert {path.name for path in files} >= {"cache.db", "cache.db-wal", "cache.db-shm"}
            assert {path.name: _mode(path) for path in files} == dict.fromkeys(
                (path.name for path in files), 0o600
            )
    finally:
        os.umask(old)
    assert _mode(installed_server.cache_dir) == 0o700


@pytest.mark.e2e
def test_the_default_cache_directory_is_narrowed_to_0700(tmp_path: Path) -> None:
    server = InstalledServer(tmp_path)
    del server.env["PWC_MCP_LOCAL_CACHE_DIR"]  # the platform's: XDG_CACHE_HOME/pwc-mcp-local
    default = _open_dir(tmp_path / "xdg-cache" / "pwc-mcp-local", 0o755)
    (default / "cache.db").touch(mode=0o644)
    (default / "cache.db").chmod(0o644)
    done = server.command("cache", "stats")
    assert done.returncode == 0, done.stderr
    assert _mode(default) == 0o700 and _mode(default / "cache.db") == 0o600


# -- the settings file --------------------------------------------------------------------


def _settings_file(server: InstalledServer, mode: int = 0o644) -> Path:
    directory = server.root / "config" / "pwc"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "mcp-local.toml"
    path.write_text('api_url = "http://127.0.0.1:9/elsewhere"\nlog_file = "/tmp/x.log"\n')
    path.chmod(mode)
    return path


@pytest.mark.e2e
def test_a_settings_file_others_can_write_is_refused_with_the_fix(tmp_path: Path) -> None:
    server = InstalledServer(tmp_path)
    path = _settings_file(server, 0o666)
    done = server.command("serve")
    assert done.returncode == 2 and done.stdout == ""
    assert f"settings file {path} is writable by other users (mode 0666)" in done.stderr
    assert f"run: chmod go-w {path}" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1

    checks = _doctor(server)
    line = checks["settings file"]
    assert line["status"] == "fail"
    assert line["summary"] == f"settings file {path} is writable by other users (mode 0666)"
    assert f"chmod go-w {path}" in str(line["fix"])
    # The configuration line does not say it again.
    assert "the settings file is refused" in str(checks["configuration"]["summary"])

    path.chmod(0o644)
    assert server.command("doctor", "--offline", "--json").returncode in (0, 1)
    assert _doctor(server)["settings file"]["status"] == "ok"


@pytest.mark.e2e
def test_a_settings_file_in_a_directory_others_can_write_is_refused(tmp_path: Path) -> None:
    server = InstalledServer(tmp_path)
    path = _settings_file(server)
    path.parent.chmod(0o777)
    done = server.command("serve")
    assert done.returncode == 2
    assert (
        f"settings file {path}: its directory {path.parent} is writable by other users"
        in done.stderr
    )
    assert f"run: chmod go-w {path.parent}" in done.stderr


@pytest.mark.e2e
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_a_settings_file_owned_by_someone_else_is_refused(tmp_path: Path) -> None:
    server = InstalledServer(tmp_path)
    path = _settings_file(server)
    os.chown(path, 4242, 4242)
    done = server.command("serve")
    assert done.returncode == 2
    assert f"settings file {path} belongs to uid 4242, not to you" in done.stderr


def test_a_file_of_ours_in_a_sticky_directory_is_trusted(tmp_path: Path) -> None:
    from pwc_local.config import load_settings

    sticky = _open_dir(tmp_path / "tmp", 0o1777)
    path = sticky / "mcp-local.toml"
    path.write_text("timeout = 7\n")
    path.chmod(0o644)
    assert load_settings(environ={}, config_file=path).timeout == 7


def test_a_tools_list_snapshot_planted_in_a_shared_directory_is_not_served(
    tmp_path: Path,
) -> None:
    from pwc_local.server.listing import load_snapshot, save_snapshot, snapshot_path

    path = snapshot_path(tmp_path / "cache")
    save_snapshot(path, [{"name": "search_papers"}])
    assert _mode(path) == 0o600 and load_snapshot(path) == [{"name": "search_papers"}]
    path.parent.chmod(0o777)  # anyone could now have replaced it
    assert load_snapshot(path) is None


def test_a_linked_settings_file_is_judged_where_it_really_lives(tmp_path: Path) -> None:
    from pwc_local.config import ConfigError, load_settings

    dotfiles = _open_dir(tmp_path / "dotfiles", 0o755)
    real = dotfiles / "mcp-local.toml"
    real.write_text("timeout = 7\n")
    real.chmod(0o644)
    link = _open_dir(tmp_path / "config", 0o755) / "mcp-local.toml"
    link.symlink_to(real)
    assert load_settings(environ={}, config_file=link).timeout == 7  # a dotfile manager's
    dotfiles.chmod(0o777)  # now anyone could replace the file the link leads to
    with pytest.raises(ConfigError, match=f"its directory {dotfiles} is writable"):
        load_settings(environ={}, config_file=link)


@pytest.mark.parametrize(
    ("members", "trusted"), [([], True), (["me"], True), (["me", "mallory"], False)]
)
def test_group_write_is_trusted_only_in_the_users_private_group(
    monkeypatch: pytest.MonkeyPatch, members: list[str], trusted: bool
) -> None:
    """Many systems give each user a group of their own and umask 002 (files 0664)."""
    import grp
    import pwd
    from types import SimpleNamespace

    from pwc_local.private_files import WRITABLE, trust_exposure

    monkeypatch.setattr(grp, "getgrgid", lambda gid: SimpleNamespace(gr_name="me", gr_mem=members))
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: SimpleNamespace(pw_name="me"))
    st = os.stat_result((stat.S_IFREG | 0o664, 0, 0, 1, os.geteuid(), 1000, 0, 0, 0, 0))
    found = trust_exposure(st, directory=False)
    assert (found is None) is trusted
    if not trusted:
        assert found is not None and found.kind == WRITABLE
