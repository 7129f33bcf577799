"""End to end: the cache and the library on a read-only mount or a (nearly) full disk (issue 28).

As in tests/test_library_read_only.py, the cache and library are filled online first;
then each command runs in a private mount namespace (`unshare -rm`) where the
directory is bind-mounted read-only, or copied onto a small tmpfs that is then
filled to the last byte, or to a given number of KiB. A server started inside the
namespace is looked at from outside through `/proc/PID/root`, its view of the mounts.

What must hold: every failure is one `code: sentence` line naming the directory and
the fix; `cache stats` still reads, `cache clear` still frees a full disk; a save
that fails on a full disk leaves no large `-wal` behind, says so once, in words,
with the space it needs; and a save needs far less than ten times the paper's size.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.installed import EXECUTABLE, InstalledServer
from tests.stdio_peer import StdioPeer
from tests.test_library_cli_e2e import BIG, SMALL
from tests.test_library_read_only import (
    full_disk,
    in_namespace,
    namespaced,
    needs_namespaces,
    read_only_mount,
)

pytestmark = [pytest.mark.e2e, needs_namespaces]


def nearly_full(source: Path, disk: Path, free_kib: int) -> str:
    """A 8 MiB tmpfs at `disk` holding a copy of `source`, filled to `free_kib` KiB free."""
    s, d = shlex.quote(str(source)), shlex.quote(str(disk))
    return (
        f"mount -t tmpfs -o size=8m tmpfs {d} && cp -a {s}/. {d}/ && "
        f"fill=$(( $(df -k --output=avail {d} | tail -1) - {free_kib} )) && "
        f"dd if=/dev/zero of={d}/filler bs=1k count=$fill 2>/dev/null"
    )


@pytest.fixture
def home(tmp_path: Path, installed_server: InstalledServer) -> InstalledServer:
    """SMALL saved and BIG read whole (its five Markdown chunks in the cache)."""
    installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    for paper in (SMALL, BIG):
        done = installed_server.command("library", "add", paper)
        assert done.returncode == 0, done.stderr
    assert installed_server.command("library", "remove", BIG).returncode == 0
    (tmp_path / "disk").mkdir()
    return installed_server


def test_cache_clear_with_a_read_only_library_says_why_in_one_coded_line(
    tmp_path: Path, home: InstalledServer
) -> None:
    library = home.library_dir
    done = namespaced(home.env, read_only_mount(library), "cache", "clear")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Removed" in done.stdout  # the cache itself was cleared
    [line] = done.stderr.splitlines()
    assert line.startswith("pwc-mcp-local: library_read_only: the cache was cleared"), line
    assert f"the library in {library} cannot be written (it is on a read-only file system)" in line
    assert "unable to open database file" not in line and "cache clear --kind markdown" in line


def test_cache_commands_on_a_read_only_cache_name_the_directory_and_the_fix(
    home: InstalledServer,
) -> None:
    cache = home.cache_dir
    stats = namespaced(home.env, read_only_mount(cache), "cache", "stats", "--json")
    assert stats.returncode == 0, stats.stderr  # reading needs no write
    assert json.loads(stats.stdout)["kinds"]["markdown"]["entries"] >= 5
    for command in ("clear", "prune"):
        done = namespaced(home.env, read_only_mount(cache), "cache", command)
        assert done.returncode == 1, done.stdout + done.stderr
        [line] = done.stderr.splitlines()
        assert line == (
            f"pwc-mcp-local: config_error: cannot {command} the cache in {cache}: it is on a "
            "read-only file system; make the directory writable, or set "
            "PWC_MCP_LOCAL_CACHE_DIR to one that is"
        ), line


def test_cache_commands_on_a_full_disk_still_read_and_clear(
    tmp_path: Path, home: InstalledServer
) -> None:
    disk = tmp_path / "disk"
    env = dict(home.env, PWC_MCP_LOCAL_CACHE_DIR=str(disk))
    setup = full_disk(home.cache_dir, disk)
    script = (
        f"{shlex.quote(str(EXECUTABLE))} cache stats --json; echo stats=$?; "
        f"{shlex.quote(str(EXECUTABLE))} cache prune; echo prune=$?; "
        f"{shlex.quote(str(EXECUTABLE))} cache clear; echo clear=$?; "
        f"{shlex.quote(str(EXECUTABLE))} cache stats --json; echo stats=$?"
    )
    done = subprocess.run(
        in_namespace(setup, "sh", "-c", script),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    statuses = [line for line in done.stdout.splitlines() if "=" in line and "{" not in line]
    assert statuses == ["stats=0", "prune=1", "clear=0", "stats=0"], done.stdout + done.stderr
    [prune] = done.stderr.splitlines()
    assert prune.startswith(
        f"pwc-mcp-local: disk_full: cannot prune the cache in {disk}: the disk is full; "
        "free some space"
    ), prune
    assert "database or disk is full" not in done.stderr
    removed = re.search(r"Removed (\d+) entries \(all kinds\)", done.stdout)
    assert removed is not None, done.stdout
    before, after = (json.loads(part) for part in _json_documents(done.stdout))
    assert before["kinds"]["markdown"]["entries"] >= 5  # BIG's chunks: files to free
    assert (before["entries"], after["entries"]) == (int(removed.group(1)), 0)


def test_a_save_failing_on_a_full_disk_says_so_once_and_leaves_no_large_wal(
    tmp_path: Path, home: InstalledServer
) -> None:
    disk = tmp_path / "disk"
    env = dict(home.env, XDG_DATA_HOME=str(disk), PWC_MCP_LOCAL_LOG_LEVEL="info")
    # 800 KiB free: the library opens for writing, and the save of BIG (293 KiB of
    # Markdown) runs out of space part-way through its transaction.
    setup = nearly_full(tmp_path / "data", disk, 800)
    argv = in_namespace(setup, str(EXECUTABLE))
    # Not `installed_server.peer()`: the server must start inside the mount namespace.
    with StdioPeer(argv, env=env) as peer:
        peer.initialize()
        reply = peer.request(
            "tools/call", {"name": "save_papers", "arguments": {"papers": [BIG]}}, timeout=60
        )
        [row] = reply["result"]["structuredContent"]["results"]
        error = row["error"]
        assert error.startswith(f"disk_full: the disk holding the library {disk}/"), error
        assert "needs about " in error and " is free now" in error, error
        wal = Path(f"/proc/{peer.proc.pid}/root") / str(disk).lstrip("/")
        wal = wal / "pwc-mcp-local" / "library.sqlite3-wal"
        left = wal.stat().st_size if wal.exists() else 0
        assert left < 64 * 1024, f"{left} bytes of WAL left behind"
        # Reading BIG indexes its chunks on the side, until the disk is full again.
        arguments: dict[str, str] = {"paper": BIG}
        for _chunk in range(10):
            read = peer.request("tools/call", {"name": "read_paper", "arguments": arguments})
            assert not read["result"].get("isError"), read
            cursor = read["result"]["structuredContent"].get("next_cursor")
            if not cursor:
                break
            arguments = {"paper": BIG, "cursor": cursor}
        assert peer.finish() == 0
    assert "LibraryFull" not in peer.stderr, peer.stderr
    said = [line for line in peer.stderr.splitlines() if "the disk is full" in line]
    assert len(said) <= 1, said


def test_saving_a_paper_needs_a_few_times_its_size_not_ten(
    tmp_path: Path, home: InstalledServer
) -> None:
    disk = tmp_path / "disk"
    env = dict(home.env, XDG_DATA_HOME=str(disk))
    # BIG is 293 KiB of Markdown; 1.4 MiB free is under five times that.
    setup = nearly_full(tmp_path / "data", disk, 1400)
    done = namespaced(env, setup, "library", "add", BIG)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"saved     {BIG}" in done.stdout
    assert done.stderr == "", done.stderr


def _json_documents(text: str) -> list[str]:
    """The `--json` objects in `text`, each from a line `{` to a line `}`."""
    found, current = [], []
    for line in text.splitlines():
        if line == "{" or current:
            current.append(line)
        if line == "}":
            found.append("\n".join(current))
            current = []
    return found
