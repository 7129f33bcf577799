"""End to end: what the installed server remembers across restarts, rotations and outages.

Each test spawns the installed `pwc-mcp-local` several times over stdio (the SDK's
own client), all sharing one key directory and one cache directory under
`tmp_path`, against the loopback catalog fake, which is stopped part-way through
so that connections are refused.
"""

from __future__ import annotations

import base64
import json
import math
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import diskcache
import pytest

from pwc_local.store.cache import decode_entry, encode_entry
from tests.installed import InstalledServer, call, error_of, facts, read_through, rows, stale

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BIG_PAPER = "1911.02116"  # over 200 KiB of multi-byte Markdown: five 64 KiB chunks
TASK = "object-detection"
UNCACHED_METHOD = "transformer"


@pytest.fixture
def home(installed_server: InstalledServer) -> InstalledServer:
    """The installed server against this test's catalog fake, with a 5 s timeout."""
    return installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")


def markdown_of(chunks: list[dict[str, Any]]) -> list[str]:
    return [chunk["markdown"] for chunk in chunks]


def kid_of(cursor: str) -> str:
    """The key id a cursor names (its payload is unencrypted base64url JSON)."""
    body = cursor.split(".", 1)[0]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["kid"]


def age_cache(directory: Path, seconds: float) -> int:
    """Rewrite every entry as if it had been stored `seconds` earlier.

    Stands in for the passing of time, which a test cannot wait for: the entries
    keep their values and keys, and only their two timestamps move back.
    """
    aged = 0
    with diskcache.Cache(str(directory)) as cache:
        for key in list(cache.iterkeys()):
            blob, tag = cache.get(key, tag=True)
            entry = decode_entry(blob)
            assert entry is not None
            expires_at = entry.expires_at - seconds if math.isfinite(entry.expires_at) else math.inf
            cache.set(
                key,
                encode_entry(
                    entry.value, cached_at=entry.cached_at - seconds, expires_at=expires_at
                ),
                tag=tag,
            )
            aged += 1
    return aged


def test_a_read_paper_survives_restarts_rotation_and_a_dead_catalog(
    tmp_path: Path, fake_catalog: Any, home: InstalledServer
) -> None:
    from tests.fake_catalog.markdown import big_document

    async def scenario() -> None:
        # 1. Online: read the whole paper and look at a task.
        async with home.session() as first:
            online = await read_through(first, BIG_PAPER)
            assert len(online) >= 4
            assert "".join(markdown_of(online)).encode() == big_document().encode()
            assert all(stale(chunk) is None for chunk in online)
            task = await call(first, "get_task", task=TASK)
        requests_online = len(fake_catalog.requests)
        # One upstream read per chunk: the cache sits behind the query layer's single read.
        assert fake_catalog.requests.count_path(f"research/papers/{BIG_PAPER}/read") == len(online)

        # 2. A new process, catalog still up: the repeat read asks the catalog only for
        #    its first chunk (which pins the current version), and a cursor issued by
        #    the first process is honoured.
        async with home.session() as second:
            again = await read_through(second, BIG_PAPER)
            resumed = await call(
                second, "read_paper", paper=BIG_PAPER, cursor=online[1]["next_cursor"]
            )
            stats = home.command("cache", "stats", "--json")  # while a server runs
            rotation = home.command("key", "rotate", "--json")
        assert markdown_of(again) == markdown_of(online)
        assert resumed["markdown"] == online[2]["markdown"]
        assert len(fake_catalog.requests) == requests_online + 1
        assert (
            fake_catalog.requests.count_path(f"research/papers/{BIG_PAPER}/read") == len(online) + 1
        )
        requests_online = len(fake_catalog.requests)
        assert stats.returncode == 0, stats.stderr
        assert json.loads(stats.stdout)["kinds"]["markdown"]["entries"] >= len(online)
        assert rotation.returncode == 0, rotation.stderr

        # 3. Catalog gone (connection refused), key rotated, yet another process.
        fake_catalog.stop()
        async with home.session() as third:
            old_cursor = await call(
                third, "read_paper", paper=BIG_PAPER, cursor=online[0]["next_cursor"]
            )
            offline = await read_through(third, BIG_PAPER)
            cached_task = await call(third, "get_task", task=TASK)
            missing = await error_of(third, "get_method", method=UNCACHED_METHOD)
        assert old_cursor["markdown"] == online[1]["markdown"]
        rotated = json.loads(rotation.stdout)
        assert kid_of(online[0]["next_cursor"]) == rotated["previous_kid"]
        assert kid_of(offline[0]["next_cursor"]) == rotated["kid"]  # new cursors: new key
        assert markdown_of(offline) == markdown_of(online)
        # The first chunk would have asked the catalog, so it says it is from the cache;
        # continuations are immutable and need no label. The task is fresh enough.
        assert stale(offline[0]) is not None
        assert all(stale(chunk) is None for chunk in offline[1:])
        assert facts(cached_task) == facts(task) and stale(cached_task) is None
        assert "upstream_error:" in missing and "could not be reached" in missing
        assert len(fake_catalog.requests) == requests_online

    anyio.run(scenario)
    # The secret never reaches stdout, stderr or the logs.
    key = (tmp_path / "config" / "pwc-mcp-local" / "cursor-key").read_text().strip()
    assert key not in home.log.read_text()


def test_offline_answers_past_their_lifetime_are_labelled_stale(
    tmp_path: Path, fake_catalog: Any, home: InstalledServer
) -> None:

    async def scenario() -> None:
        async with home.session() as first:
            online = await read_through(first, BIG_PAPER)
            task = await call(first, "get_task", task=TASK)
        stored_at = datetime.now().astimezone()

        two_hours = 2 * 3600
        assert age_cache(tmp_path / "cache", two_hours) >= len(online)
        fake_catalog.stop()
        requests_before = len(fake_catalog.requests)

        async with home.session() as second:
            offline = await read_through(second, BIG_PAPER)
            stale_task = await call(second, "get_task", task=TASK)
            missing = await error_of(second, "get_method", method=UNCACHED_METHOD)

        assert markdown_of(offline) == markdown_of(online)
        # The first chunk needed the catalog (its version and the paper lookup had
        # aged out); the continuations never do.
        label = stale(offline[0])
        assert label is not None
        cached_at = datetime.fromisoformat(label)
        assert abs(cached_at - (stored_at - timedelta(seconds=two_hours))) < timedelta(minutes=5)
        assert "local cache" in offline[0]["_text"]
        assert all(stale(chunk) is None for chunk in offline[1:])

        assert facts(stale_task) == facts(task)
        assert stale(stale_task) is not None
        assert "local cache" in stale_task["_text"]
        assert "upstream_error:" in missing
        assert len(fake_catalog.requests) == requests_before

    anyio.run(scenario)


def test_two_servers_share_the_cache_at_the_same_time(
    tmp_path: Path, fake_catalog: Any, home: InstalledServer
) -> None:
    results: dict[str, list[str]] = {}

    async def reader(name: str) -> None:
        async with home.session() as session:
            texts: list[str] = []
            for _ in range(3):
                texts = markdown_of(await read_through(session, BIG_PAPER))
                await call(session, "get_task", task=TASK)
            results[name] = texts

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(reader, "a")
            group.start_soon(reader, "b")

    anyio.run(scenario)
    assert results["a"] == results["b"] and len(results["a"]) >= 4
    assert "Traceback" not in home.log.read_text()
    assert "dropping" not in home.log.read_text()


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_an_unsafe_key_file_is_reported_not_replaced(
    tmp_path: Path, fake_catalog: Any, home: InstalledServer
) -> None:
    key_dir = tmp_path / "config" / "pwc-mcp-local"
    key_dir.mkdir(parents=True, mode=0o700)
    key_file = key_dir / "cursor-key"
    key_file.write_text("ab" * 32 + "\n")
    os.chmod(key_file, 0o644)

    async def scenario() -> tuple[str, dict[str, Any]]:
        async with home.session() as session:
            message = await error_of(session, "read_paper", paper=BIG_PAPER)
            # Only read_paper needs the key: the other tools keep working.
            info = await call(session, "get_paper_info", paper=BIG_PAPER)
            return message, info

    message, info = anyio.run(scenario)
    assert info["paper"] == BIG_PAPER
    assert "config_error: cursor key" in message
    assert f"chmod 600 {key_file}" in message
    assert "ab" * 32 not in message
    assert key_file.read_text() == "ab" * 32 + "\n"


def test_offline_a_smaller_first_page_comes_from_a_larger_cached_one(
    fake_catalog: Any, home: InstalledServer
) -> None:
    async def scenario() -> None:
        async with home.session() as online:
            twenty = await call(online, "get_benchmark", benchmark="imagenet-1k", limit=20)
        fake_catalog.stop()
        async with home.session() as offline:
            three = await call(offline, "get_benchmark", benchmark="imagenet-1k", limit=3)
            second_page = await error_of(
                offline, "get_benchmark", benchmark="imagenet-1k", limit=3, page=2
            )
            larger = await error_of(offline, "get_benchmark", benchmark="imagenet-1k", limit=25)
        columns = three["evaluations"]["columns"]
        first = [{c: row[c] for c in columns} for row in rows(twenty["evaluations"])[:3]]
        assert rows(three["evaluations"]) == first
        assert stale(three) is not None
        assert three["next_page"] == 2
        # Only a first page of fewer rows can be cut from a cached one.
        assert "nothing is cached" in second_page or "could not be reached" in second_page
        assert "could not be reached" in larger

    anyio.run(scenario)
