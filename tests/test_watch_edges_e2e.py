"""The watch list at its edges, end to end (issue 34 items 5 and 6).

* a server that exits (end of input, SIGTERM) in the middle of a paged `whats_new`
  frees its watches at once: the next look reports them, not `library_busy` (F4);
* `whats-new | head -c 10` marks nothing seen: the reader went away before taking the
  whole report (W2), while a reader that takes it all marks it seen;
* `whats_new` with nothing watched says so in words, in both halves;
* after a look reported a new leader, `sota_history` and `who_beat_paper` show it,
  in the same process and in another, even when the cache was locked by another
  process while the look wrote through (item 6).
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.fake_catalog import FakeCatalog, NewResult
from tests.installed import EXECUTABLE, InstalledServer, call, looks
from tests.test_watch_delivery_e2e import _flood, _query_watches

pytestmark = pytest.mark.e2e

NEW_LEADER = NewResult("72", paper="2432", model="ViT-G/14", metrics={"Top-1 Accuracy": 90.1})


def _paged_watches(home: InstalledServer, fake: FakeCatalog, count: int = 10) -> None:
    """`count` query watches, each with 20 new papers of long titles: several pages."""
    _flood(fake, _query_watches(home, count), {})


def _look(home: InstalledServer, *args: str) -> list[dict[str, Any]]:
    """`whats-new --json ARGS`, one dict per watch (`tests.installed.looks`)."""
    done = home.command("whats-new", "--json", *args)
    assert done.returncode in (0, 1), done.stderr
    return looks(json.loads(done.stdout))


def _statuses(reports: list[dict[str, Any]]) -> set[str]:
    return {report["status"] for report in reports}


def _first_page(peer: Any) -> dict[str, Any]:
    peer.initialize()
    reply = peer.request("tools/call", {"name": "whats_new", "arguments": {}}, timeout=120)
    assert "result" in reply, reply
    structured = reply["result"]["structuredContent"]
    assert structured.get("next_cursor"), "the look should need several pages"
    return structured


@pytest.mark.parametrize("moment", ["between pages", "while looking"])
@pytest.mark.parametrize("ending", ["end of input", "SIGTERM"])
def test_a_server_that_exits_mid_look_frees_its_watches_at_once(
    fake_catalog: FakeCatalog, installed_server: InstalledServer, ending: str, moment: str
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="20")
    _paged_watches(home, fake_catalog)
    with home.peer() as peer:
        if moment == "between pages":
            _first_page(peer)
        else:
            fake_catalog.faults.slow(prefix="papers/search", times=1)
            peer.initialize()
            peer.send_request("tools/call", {"name": "whats_new", "arguments": {}})
            # The look asks once the server has loaded: seconds when idle, more than
            # the default 10 s at load 8-9. A look that never asks fails here alike.
            assert fake_catalog.faults.wait_until_blocked(timeout=120)
        if ending == "SIGTERM":
            peer.proc.send_signal(signal.SIGTERM)
        else:
            peer.close_stdin()
        assert peer.wait(timeout=60) == 0, peer.stderr()
    fake_catalog.faults.reset()
    # On main the watches stayed claimed for up to 5 minutes: `library_busy`.
    after = _look(home)
    assert _statuses(after) <= {"changed", "unchanged"}, [
        (report["target"], report["status"], report["reason"]) for report in after
    ]
    assert "changed" in _statuses(after)  # the changes nobody read come again


def test_a_reader_that_stops_early_marks_nothing_seen(
    fake_catalog: FakeCatalog, installed_server: InstalledServer
) -> None:
    # A look timed out on a loaded machine would exit 1 too: room, as the others have.
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="20")
    assert home.command("watch", "add", "benchmark", "imagenet-1k").returncode == 0
    fake_catalog.apply(NEW_LEADER)
    head = subprocess.Popen(
        ["head", "-c", "10"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=home.env
    )
    assert head.stdin is not None
    look = subprocess.run(
        [str(EXECUTABLE), "whats-new"],
        env=home.env,
        stdin=subprocess.DEVNULL,
        stdout=head.stdin,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )
    head.stdin.close()
    assert head.stdout is not None
    shown = head.stdout.read()
    head.wait(timeout=30)
    assert len(shown) == 10
    # On main: exit 0, and every change marked seen although the reader saw 10 bytes.
    assert look.returncode == 1, look.stderr
    assert "reader went away" in look.stderr and "nothing was marked seen" in look.stderr
    (report,) = _look(home, "--peek")
    assert [change["type"] for change in report["changes"]] == ["new_leader", "new_result"]

    whole = home.command("whats-new")  # a reader that takes it all (capture_output)
    assert whole.returncode == 0 and "ViT-G/14" in whole.stdout, whole.stderr
    (after,) = _look(home)
    assert after["status"] == "unchanged"


@pytest.mark.parametrize("profile", ["compact", "hosted"])
def test_whats_new_with_nothing_watched_says_so_in_words(
    installed_server: InstalledServer, profile: str
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_STRUCTURED=profile)

    async def scenario() -> tuple[Any, list[str]]:
        async with home.session() as session:
            result = await session.call_tool("whats_new", {})
            return result.structured_content, [b.text for b in result.content if b.type == "text"]

    structured, texts = anyio.run(scenario)
    # On main the compact profile answered `{}` in both halves.
    assert texts == ["No watches yet; add one with watch (pwc-mcp-local watch add KIND TARGET)."]
    assert structured is not None and "No watches yet" in structured["note"]


def _board_shows_leader(answer: dict[str, Any]) -> bool:
    return "ViT-G/14" in answer["_text"]


@pytest.mark.parametrize("where", ["same process", "another process"])
def test_history_agrees_with_the_look(
    fake_catalog: FakeCatalog, installed_server: InstalledServer, where: str
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="20")

    async def scenario() -> None:
        async with home.session() as session:
            before = await call(session, "sota_history", benchmark="imagenet-1k")
            assert not _board_shows_leader(before)
            await call(session, "watch", kind="benchmark", target="imagenet-1k")
            fake_catalog.apply(NEW_LEADER)
            if where == "same process":
                news = await call(session, "whats_new")
            else:
                async with home.session() as other:
                    news = await call(other, "whats_new")
            assert "ViT-G/14" in news["_text"]
            assert _board_shows_leader(await call(session, "sota_history", benchmark="imagenet-1k"))
            assert _board_shows_leader(await call(session, "who_beat_paper", paper="1512.03385"))

    anyio.run(scenario)


def test_history_agrees_with_a_look_made_while_the_cache_was_locked(
    fake_catalog: FakeCatalog, installed_server: InstalledServer
) -> None:
    """Another process holds the cache's write lock while the command looks, and lets it
    go only once the whole report was written (the look itself could store nothing)."""
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="20")
    assert "ViT-G/14" not in home.command("sota", "imagenet-1k").stdout  # cached now
    assert home.command("watch", "add", "benchmark", "imagenet-1k").returncode == 0
    fake_catalog.apply(NEW_LEADER)
    holder = sqlite3.connect(Path(home.cache_dir) / "cache.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    look = subprocess.Popen(
        [str(EXECUTABLE), "whats-new"],
        env=home.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    report = []
    try:
        assert look.stdout is not None
        for line in look.stdout:  # the whole report, up to its count line
            report.append(line)
            if " changed, " in line:
                break
    finally:
        holder.execute("COMMIT")
        holder.close()
    rest, err = look.communicate(timeout=120)
    assert look.returncode == 0, err
    assert "ViT-G/14" in "".join(report) and rest == "", (report, rest)
    assert "cache unavailable for storing" in err  # the look met the lock
    # On main the look's marks were dropped: the old board stayed fresh in the cache.
    later = home.command("sota", "imagenet-1k")
    assert "ViT-G/14" in later.stdout, later.stdout
    assert "ViT-G/14" in home.command("beaten", "1512.03385").stdout
