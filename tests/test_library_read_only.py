"""End to end: a library on a read-only mount or a full disk is still read (issue 22 item 4).

Papers are saved online first; then every command runs inside a private mount
namespace (`unshare -rm`, no root needed where unprivileged user namespaces are
allowed) in which the data directory is either bind-mounted read-only or copied
onto a small tmpfs that is then filled to the last byte. Listing, searching and
reading saved papers (CLI and tools) must work; writes must fail saying what is
wrong, and never advise moving the library aside (which makes it look empty).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.fake_catalog import big_document
from tests.installed import EXECUTABLE, InstalledServer
from tests.test_library_cli_e2e import BIG, SMALL

pytestmark = pytest.mark.e2e


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30)
    return probe.returncode == 0


needs_namespaces = pytest.mark.skipif(
    not _namespaces_work(), reason="needs unprivileged mount namespaces (unshare -rm)"
)


def in_namespace(setup: str, *argv: str) -> list[str]:
    """`argv`, run after the shell commands `setup` in a private mount namespace."""
    return ["unshare", "-rm", "sh", "-c", f'{setup} && exec "$@"', "sh", *argv]


def read_only_mount(directory: Path) -> str:
    quoted = shlex.quote(str(directory))
    return f"mount --bind {quoted} {quoted} && mount -o remount,bind,ro {quoted}"


def full_disk(source: Path, disk: Path) -> str:
    """A 4 MiB tmpfs at `disk` holding a copy of `source`, then filled up."""
    s, d = shlex.quote(str(source)), shlex.quote(str(disk))
    return (
        f"mount -t tmpfs -o size=4m tmpfs {d} && cp -a {s}/. {d}/ && "
        f"{{ dd if=/dev/zero of={d}/filler bs=4k 2>/dev/null; true; }}"
    )


@pytest.fixture
def saved(tmp_path: Path, installed_server: InstalledServer) -> dict[str, str]:
    """An environment whose library holds SMALL and BIG, saved online."""
    done = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5").command("library", "add", SMALL, BIG)
    assert done.returncode == 0, done.stderr
    (tmp_path / "disk").mkdir()
    return dict(installed_server.env)


def namespaced(env: dict[str, str], setup: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        in_namespace(setup, str(EXECUTABLE), *args),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@needs_namespaces
@pytest.mark.parametrize("disk", ["read-only mount", "full disk"])
def test_library_commands_read_an_unwritable_library(
    tmp_path: Path, saved: dict[str, str], disk: str
) -> None:
    env = dict(saved)
    if disk == "read-only mount":
        setup = read_only_mount(tmp_path / "data")
        reason = "it is on a read-only file system"
        code = "library_read_only"
    else:
        setup = full_disk(tmp_path / "data", tmp_path / "disk")
        env["XDG_DATA_HOME"] = str(tmp_path / "disk")
        reason = "the disk is full"
        code = "disk_full"
    listing = namespaced(env, setup, "library", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    assert sorted(row["paper"] for row in json.loads(listing.stdout)["papers"]) == [SMALL, BIG]
    found = namespaced(env, setup, "library", "search", "softmax subspaces", "--json")
    assert found.returncode == 0, found.stderr
    assert [hit["paper"] for hit in json.loads(found.stdout)["hits"]][:1] == [SMALL]
    for args in (("library", "remove", SMALL), ("library", "add", "1512.03385")):
        refused = namespaced(env, setup, *args)
        assert refused.returncode == 1, (args, refused.stdout, refused.stderr)
        said = refused.stdout + refused.stderr
        assert f"cannot be written ({reason})" in said, said
        assert "move it aside" not in said and "Traceback" not in said
        if args[1] == "add":  # the per-paper line gives the code a script can act on
            assert f"{code}: the library" in said, said
    again = namespaced(env, setup, "library", "list", "--json")
    assert len(json.loads(again.stdout)["papers"]) == 2  # nothing was removed


@needs_namespaces
def test_tools_read_saved_papers_from_a_read_only_mount(
    tmp_path: Path, saved: dict[str, str]
) -> None:
    # Not `installed_server.session()`: the server must start inside the mount namespace.
    argv = in_namespace(read_only_mount(tmp_path / "data"), str(EXECUTABLE))
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=saved)

    async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await session.call_tool(tool, arguments)
        assert not result.is_error, result.content
        return result.structured_content or {}

    async def scenario() -> None:
        with (tmp_path / "server.log").open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                listed = await call(session, "list_library")
                assert {row["paper"] for row in listed["results"]} == {SMALL, BIG}
                hits = await call(session, "search_library", query="softmax subspaces")
                assert hits["results"][0]["paper"] == SMALL
                chunks = [await call(session, "read_paper", paper=BIG)]
                while chunks[-1].get("next_cursor"):
                    cursor = chunks[-1]["next_cursor"]
                    chunks.append(await call(session, "read_paper", paper=BIG, cursor=cursor))
                assert "".join(c["markdown"] for c in chunks) == big_document()
                outline = await call(session, "get_paper_outline", paper=BIG)
                assert outline["size"] == len(big_document().encode())
                result = await session.call_tool("save_papers", {"papers": ["1512.03385"]})
                [row] = (result.structured_content or {})["results"]
                assert row["error"].startswith("library_read_only: the library "), row
                assert "cannot be written (it is on a read-only file system)" in row["error"]

    anyio.run(scenario)
