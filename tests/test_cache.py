"""The disk cache and the caching catalog source in front of the live catalog."""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from pwc_local.store.cache import (
    KIND_MARKDOWN,
    KIND_RESPONSE,
    LISTING_TTL,
    PUBLIC_TTL,
    REST_TTL,
    TAXONOMY_TTL,
    CacheError,
    DiskCache,
    cache_key,
    decode_entry,
    encode_entry,
    response_ttl,
)
from pwc_local.store.cached_catalog import CachingCatalog
from pwc_local.store.freshness import Freshness
from pwc_local.upstream.envelopes import require_object, rows_of
from pwc_local.upstream.errors import (
    HTTPStatusError,
    InvalidResponse,
    PaperChanged,
    UpstreamTimeout,
    UpstreamUnreachable,
)
from pwc_local.upstream.source import Accept, MarkdownChunk, as_is
from tests.scripted_catalog import ScriptedCatalog, error, markdown_pieces

T0 = 1_750_000_000.0
# What the network does in an outage, and an answer that is not JSON.
REFUSED = httpx.ConnectError("refused")
SLOW = httpx.ReadTimeout("slow")
NOT_JSON = httpx.Response(200, content=b"{not json")
VERSION_A = "a" * 64
VERSION_B = "b" * 64


class Clock:
    """A hand-driven clock shared by the cache and the caching source."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


NAMESPACE = "http://catalog.test"


def make_source(
    tmp_path: Path, clock: Clock, *, size_limit: int = 64 * 1024 * 1024
) -> tuple[CachingCatalog, ScriptedCatalog]:
    """A caching source in front of a scripted catalog (the real `HttpCatalog` over it)."""
    upstream = ScriptedCatalog()
    cache = DiskCache(tmp_path / "cache", size_limit=size_limit, clock=clock)
    source = CachingCatalog(upstream.client(), cache, namespace=NAMESPACE, clock=clock)
    return source, upstream


def run(coro_fn, *args: Any, **kwargs: Any) -> Any:
    return anyio.run(lambda: coro_fn(*args, **kwargs))


def fetch(
    source: Any, path: str, params: Mapping[str, Any] | None = None, accept: Accept[Any] = as_is
) -> Any:
    """One `get_json` through `source`, with a shape check that accepts anything by default."""
    return anyio.run(lambda: source.get_json(path, params, accept=accept))


def json_calls(upstream: ScriptedCatalog) -> int:
    return sum(1 for path in upstream.paths() if not path.endswith("/read"))


# -- what a look saw live (issue 34 item 6) -------------------------------------------------


def test_a_look_whose_mark_could_not_be_stored_still_overtakes_older_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look at the live catalog sees a leaderboard change while another process holds the
    cache's lock: its "seen live" mark is kept in memory, counted by this process at once,
    and stored when the source closes. On main it was dropped, and the old board stayed
    fresh for minutes in every process."""
    clock = Clock()
    path = "datasets/72/evaluations/"
    source, upstream = make_source(tmp_path, clock)
    upstream.on(path, {"count": 1, "results": ["old"]})
    assert fetch(source, path, {"page_size": 20}) == {"count": 1, "results": ["old"]}

    real_put = source.cache.put
    locked = True

    def put(kind: str, parts: Any, value: Any, *, ttl: float | None) -> bool:
        return False if locked else real_put(kind, parts, value, ttl=ttl)

    monkeypatch.setattr(source.cache, "put", put)
    upstream.on(path, {"count": 2, "results": ["new", "old"]})
    clock.now = T0 + 1
    looked = fetch(source.live(), path, {"page_size": 100})
    assert looked == {"count": 2, "results": ["new", "old"]}

    clock.now = T0 + 2
    new = {"count": 2, "results": ["new", "old"]}
    assert fetch(source, path, {"page_size": 20}) == new  # this process: at once
    other_cache = DiskCache(tmp_path / "cache", clock=clock)
    other = CachingCatalog(upstream.client(), other_cache, namespace=NAMESPACE, clock=clock)
    calls = json_calls(upstream)
    fetch(other, path, {"page_size": 20})  # the lock held: only the old entry to go on
    assert json_calls(upstream) == calls

    locked = False  # the lock is free again by the time the look's process closes
    run(source.aclose)
    assert fetch(other, path, {"page_size": 20}) == new  # another process: once stored
    assert json_calls(upstream) == calls + 1
    run(other.aclose)


# -- lifetimes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "ttl"),
    [
        ("papers/", LISTING_TTL),
        ("papers/search", LISTING_TTL),
        ("papers/recent", LISTING_TTL),
        ("papers/trending", LISTING_TTL),
        ("tasks/", TAXONOMY_TTL),
        ("tasks/17/page", TAXONOMY_TTL),
        ("tasks/OCR/trending-benchmarks", TAXONOMY_TTL),
        ("methods/2", TAXONOMY_TTL),
        ("areas/with-tasks/", TAXONOMY_TTL),
        ("conferences/cvpr-2025", TAXONOMY_TTL),
        ("organizations/", TAXONOMY_TTL),
        ("frameworks/", TAXONOMY_TTL),
        ("papers/755", REST_TTL),
        ("papers/1706.03762/related", REST_TTL),
        ("research/papers/1706.03762/lineage", REST_TTL),
        ("datasets/", REST_TTL),
        ("datasets/72/evaluations/", REST_TTL),
        ("evaluations/", REST_TTL),
        ("public-metadata", PUBLIC_TTL),
        ("public-metadata/search", PUBLIC_TTL),
    ],
)
def test_lifetime_classes_follow_the_hosted_server(path: str, ttl: int) -> None:
    assert response_ttl(path) == ttl


@pytest.mark.parametrize(
    ("path", "ttl"), [("papers/search", 60), ("tasks/", 600), ("papers/755", 300)]
)
def test_a_response_is_reused_until_its_lifetime_ends(tmp_path: Path, path: str, ttl: int) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    upstream.on(path, {"n": 1})

    assert fetch(source, path, {"q": "x"}) == {"n": 1}
    upstream.on(path, {"n": 2})
    clock.now = T0 + ttl - 1
    assert fetch(source, path, {"q": "x"}) == {"n": 1}
    assert json_calls(upstream) == 1

    clock.now = T0 + ttl + 1
    assert fetch(source, path, {"q": "x"}) == {"n": 2}
    assert json_calls(upstream) == 2


def test_public_records_live_seven_days(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    upstream.on("public-metadata", {"title": "A"})
    fetch(source, "public-metadata", {"reference": "2401.00001"})
    clock.now = T0 + 6 * 24 * 3600
    fetch(source, "public-metadata", {"reference": "2401.00001"})
    assert json_calls(upstream) == 1
    stats = source.cache.stats()
    assert stats.kinds["public"].entries == 1 and stats.kinds["response"].entries == 0


def test_the_key_is_the_path_and_the_full_parameter_mapping(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    upstream.on("papers/search", {"ok": True})

    fetch(source, "papers/search", {"q": "gan", "page": 1})
    fetch(source, "papers/search", {"page": 1, "q": "gan"})  # same mapping
    fetch(source, "papers/search", {"q": "gan", "page": 2})
    fetch(source, "papers/search", {"q": "gan", "page": 2, "mode": None})
    fetch(source, "papers/search", {"q": ["a", "b"]})
    fetch(source, "papers/search", {"q": ("a", "b")})  # a tuple is the same list
    assert json_calls(upstream) == 4


def test_another_catalog_url_does_not_share_answers(tmp_path: Path) -> None:
    clock = Clock()
    cache = DiskCache(tmp_path / "cache", clock=clock)
    first = ScriptedCatalog().on("tasks/", {"from": "first"})
    second = ScriptedCatalog().on("tasks/", {"from": "second"})
    a = CachingCatalog(first.client(), cache, namespace="http://one.test", clock=clock)
    b = CachingCatalog(second.client(), cache, namespace="http://two.test", clock=clock)
    assert fetch(a, "tasks/") == {"from": "first"}
    assert fetch(b, "tasks/") == {"from": "second"}


def test_errors_are_never_stored(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    for _ in range(2):
        with pytest.raises(HTTPStatusError):
            fetch(source, "papers/2308.10195")
    upstream.fail_with(NOT_JSON)
    with pytest.raises(InvalidResponse):
        fetch(source, "tasks/")
    assert json_calls(upstream) == 3
    assert source.cache.stats().entries == 0


# -- shape checks at the fetch point -------------------------------------------------------


def test_an_answer_its_check_refuses_is_not_stored_and_is_asked_again(tmp_path: Path) -> None:
    source, upstream = make_source(tmp_path, Clock())
    upstream.on("tasks/", {"no": "rows"})
    tasks = rows_of("task list")
    with pytest.raises(InvalidResponse, match="task list"):
        fetch(source, "tasks/", accept=tasks)
    assert source.cache.stats().entries == 0
    upstream.on("tasks/", {"results": [{"name": "OCR"}]})
    assert fetch(source, "tasks/", accept=tasks) == [{"name": "OCR"}]
    assert fetch(source, "tasks/", accept=tasks) == [{"name": "OCR"}]
    assert json_calls(upstream) == 2  # the refused answer was asked for again, once


def test_the_caller_gets_the_checks_value_and_the_cache_keeps_the_document(
    tmp_path: Path,
) -> None:
    source, upstream = make_source(tmp_path, Clock())
    upstream.on("tasks/", {"count": 1, "results": [{"name": "OCR"}, "junk"]})
    assert fetch(source, "tasks/", accept=rows_of("task list")) == [{"name": "OCR"}]
    # A hit goes through the check too, and another caller may check differently.
    assert fetch(source, "tasks/", accept=require_object)["count"] == 1
    assert json_calls(upstream) == 1


def test_a_cached_document_its_check_refuses_counts_as_not_cached(tmp_path: Path) -> None:
    source, upstream = make_source(tmp_path, Clock())
    upstream.on("papers/755", ["stored by a caller that accepted anything"])
    fetch(source, "papers/755")
    upstream.on("papers/755", {"id": "755"})
    assert fetch(source, "papers/755", accept=require_object) == {"id": "755"}
    assert fetch(source, "papers/755", accept=require_object) == {"id": "755"}
    assert json_calls(upstream) == 2


def test_an_outage_never_serves_a_stale_entry_its_check_refuses(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    upstream.on("papers/755", ["not a record"])
    fetch(source, "papers/755")
    clock.now = T0 + 3600
    upstream.fail_with(REFUSED)
    freshness = Freshness()
    with pytest.raises(UpstreamUnreachable):
        fetch(source.for_call(freshness), "papers/755", accept=require_object)
    assert freshness.stale is False


# -- offline ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "failure",
    [REFUSED, SLOW, error(500, "boom"), error(503, "down"), error(504, "Gateway Timeout")],
    ids=["unreachable", "timeout", "500", "503", "504"],
)
def test_an_outage_serves_the_expired_entry_and_labels_it(tmp_path: Path, failure: Any) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    upstream.on("papers/755", {"id": "755"})
    fetch(source, "papers/755")

    clock.now = T0 + 3600
    upstream.fail_with(failure)

    freshness = Freshness()
    answer = fetch(source.for_call(freshness), "papers/755")
    assert answer == {"id": "755"}
    assert freshness.stale is True
    assert freshness.cached_at is not None
    assert (
        abs(freshness.cached_at - datetime.fromtimestamp(T0, tz=timezone.utc)).total_seconds() < 1
    )


@pytest.mark.parametrize(
    ("failure", "raised"),
    [
        (error(404, "gone"), HTTPStatusError),
        (error(429, "slow down"), HTTPStatusError),
        (NOT_JSON, InvalidResponse),
    ],
    ids=["404", "429", "invalid"],
)
def test_answers_that_are_not_outages_stand(
    tmp_path: Path, failure: Any, raised: type[Exception]
) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    upstream.on("papers/755", {"id": "755"})
    fetch(source, "papers/755")
    clock.now = T0 + 3600
    upstream.fail_with(failure)
    with pytest.raises(raised):
        fetch(source, "papers/755")


def test_an_outage_with_nothing_cached_keeps_the_upstream_error(tmp_path: Path) -> None:
    source, upstream = make_source(tmp_path, Clock())
    upstream.fail_with(REFUSED)
    with pytest.raises(UpstreamUnreachable):
        fetch(source, "tasks/")


def test_each_call_view_keeps_its_own_label(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    upstream.on("papers/755", {"id": "755"})  # a 5-minute lifetime
    upstream.on("tasks/", {"results": []})  # a 10-minute lifetime
    fetch(source, "papers/755")
    fetch(source, "tasks/")
    clock.now = T0 + 400  # the paper has expired, the task list has not
    upstream.fail_with(REFUSED)
    offline, fresh = Freshness(), Freshness()

    async def concurrently() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(fetch_async, source.for_call(offline), "papers/755")
            group.start_soon(fetch_async, source.for_call(fresh), "tasks/")

    anyio.run(concurrently)
    assert offline.stale and offline.cached_at is not None
    assert fresh == Freshness()
    # The process-wide source serves the same stale entry and labels nobody's answer.
    assert fetch(source, "papers/755") == {"id": "755"}
    assert source.freshness is None


async def fetch_async(source: Any, path: str) -> Any:
    return await source.get_json(path, accept=as_is)


def test_a_fresh_answer_is_not_labelled_stale(tmp_path: Path) -> None:
    source, upstream = make_source(tmp_path, Clock())
    upstream.on("tasks/", {"results": []})

    freshness = Freshness()
    view = source.for_call(freshness)
    fetch(view, "tasks/")
    fetch(view, "tasks/")
    assert freshness.stale is False


# -- Markdown -----------------------------------------------------------------------------


def add_document(upstream: ScriptedCatalog, paper: str, version: str, pieces: list[str]) -> None:
    """Serve `pieces` as the chunks of `paper`'s Markdown at `version`."""
    upstream.on(f"research/papers/{paper}/read", markdown_pieces(pieces, version))


def read_all(source: CachingCatalog, paper: str, limit: int = 8) -> list[MarkdownChunk]:
    async def go() -> list[MarkdownChunk]:
        chunks = [await source.read_markdown(paper, offset=0, limit=limit, content_version=None)]
        while chunks[-1].next_offset is not None:
            chunks.append(
                await source.read_markdown(
                    paper,
                    offset=chunks[-1].next_offset,
                    limit=limit,
                    content_version=chunks[-1].content_version,
                )
            )
        return chunks

    return anyio.run(go)


def read_calls(upstream: ScriptedCatalog) -> int:
    return sum(1 for path in upstream.paths() if path.endswith("/read"))


def test_a_repeat_read_asks_only_for_the_first_chunk(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    add_document(upstream, "1706.03762", VERSION_A, ["α first", " second", " third"])

    first = read_all(source, "1706.03762")
    assert read_calls(upstream) == 3
    clock.now = T0 + 10
    again = read_all(source, "1706.03762")
    assert again == first
    # Chunk 0 pins the version, so it is asked for; the continuations are cached.
    assert read_calls(upstream) == 4


def test_continuations_come_from_the_cache_at_any_age(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    add_document(upstream, "1706.03762", VERSION_A, ["one ", "two ", "three"])
    first = read_all(source, "1706.03762")

    clock.now = T0 + 365 * 24 * 3600
    upstream.fail_with(REFUSED)
    second = anyio.run(
        lambda: source.read_markdown(
            "1706.03762", offset=first[0].next_offset, limit=8, content_version=VERSION_A
        )
    )
    assert second == first[1]
    assert read_calls(upstream) == 3


def test_a_first_read_notices_a_change_at_once(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    add_document(upstream, "1706.03762", VERSION_A, ["old text"])
    read_all(source, "1706.03762")

    add_document(upstream, "1706.03762", VERSION_B, ["new text"])
    clock.now = T0 + 1  # well inside the version's lifetime
    assert read_all(source, "1706.03762")[0].text == "new text"
    assert read_calls(upstream) == 2


def test_offline_a_cached_paper_reads_from_the_start_with_a_stale_label(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    add_document(upstream, "4242", VERSION_A, ["ε one ", "two ", "three"])
    online = read_all(source, "4242")

    clock.now = T0 + 2 * 3600
    upstream.fail_with(REFUSED)

    freshness = Freshness()
    view = source.for_call(freshness)
    chunk = anyio.run(lambda: view.read_markdown("4242", offset=0, limit=8, content_version=None))
    assert chunk == online[0]
    assert freshness.stale and freshness.cached_at == datetime.fromtimestamp(T0, timezone.utc)
    assert read_all(source, "4242") == online


def test_offline_an_unseen_paper_keeps_the_error(tmp_path: Path) -> None:
    source, upstream = make_source(tmp_path, Clock())
    upstream.fail_with(SLOW)
    with pytest.raises(UpstreamTimeout):
        read_all(source, "1706.03762")


def test_a_changed_paper_is_reported_not_cached(tmp_path: Path) -> None:
    source, upstream = make_source(tmp_path, Clock())
    add_document(upstream, "1706.03762", VERSION_B, ["x", "y"])
    with pytest.raises(PaperChanged):
        anyio.run(
            lambda: source.read_markdown("1706.03762", offset=1, limit=8, content_version=VERSION_A)
        )
    assert source.cache.stats().kinds["markdown"].entries == 0


# -- integrity ----------------------------------------------------------------------------


def db_path(cache: DiskCache) -> Path:
    return cache.directory / "cache.db"


def test_entries_round_trip_and_detect_any_flipped_byte() -> None:
    blob = encode_entry({"a": ["ü", 1.5, None]}, cached_at=T0, expires_at=float("inf"))
    entry = decode_entry(blob)
    assert entry is not None and entry.value == {"a": ["ü", 1.5, None]}
    assert entry.cached_at == T0 and entry.is_fresh(T0 + 10**9)
    for position in range(len(blob)):
        damaged = bytearray(blob)
        damaged[position] ^= 0x01
        assert decode_entry(bytes(damaged)) is None, position
    assert decode_entry(blob[:-1]) is None
    assert decode_entry(b"") is None
    assert decode_entry("text") is None


def test_a_corrupt_row_is_dropped_and_refetched(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    upstream.on("tasks/", {"results": ["ocr"]})
    fetch(source, "tasks/")

    key = cache_key(KIND_RESPONSE, ["http://catalog.test", "tasks", []])
    with sqlite3.connect(db_path(source.cache)) as db:
        (value,) = db.execute("SELECT value FROM Cache WHERE key = ?", (key,)).fetchone()
        damaged = bytearray(value)
        damaged[-3] ^= 0x20  # still valid JSON text, different content
        db.execute("UPDATE Cache SET value = ? WHERE key = ?", (bytes(damaged), key))

    upstream.on("tasks/", {"results": ["ocr", "fresh"]})
    assert fetch(source, "tasks/") == {"results": ["ocr", "fresh"]}
    assert json_calls(upstream) == 2
    assert fetch(source, "tasks/") == {"results": ["ocr", "fresh"]}
    assert json_calls(upstream) == 2  # the refetched answer was stored again


def test_a_corrupt_chunk_file_is_dropped_and_refetched(tmp_path: Path) -> None:
    clock = Clock()
    source, upstream = make_source(tmp_path, clock)
    big = "Ω" * 40_000  # 80 KB: diskcache keeps it in a file of its own
    add_document(upstream, "1706.03762", VERSION_A, ["start ", big])
    first = read_all(source, "1706.03762", limit=200_000)

    with sqlite3.connect(db_path(source.cache)) as db:
        files = [
            row[0] for row in db.execute("SELECT filename FROM Cache WHERE filename IS NOT NULL")
        ]
    assert len(files) == 1
    stored = source.cache.directory / files[0]
    data = bytearray(stored.read_bytes())
    data[len(data) // 2] ^= 0xFF
    stored.write_bytes(bytes(data))

    again = read_all(source, "1706.03762", limit=200_000)
    assert again == first
    # Chunk 0 is always asked for (it pins the version); of the rest, only the damaged one.
    assert read_calls(upstream) == 4


def test_a_missing_chunk_file_is_a_miss(tmp_path: Path) -> None:
    source, upstream = make_source(tmp_path, Clock())
    add_document(upstream, "1706.03762", VERSION_A, ["s", "Ω" * 40_000])
    first = read_all(source, "1706.03762", limit=200_000)
    for path in source.cache.directory.rglob("*.val"):
        path.unlink()
    assert read_all(source, "1706.03762", limit=200_000) == first
    assert read_calls(upstream) == 4  # chunk 0 (always asked for) and the missing one


class _Bomb:
    """Unpickling this would create the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_a_row_tampered_to_hold_a_pickle_is_never_unpickled(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path / "cache", clock=Clock())
    cache.put(KIND_RESPONSE, ["x"], {"ok": 1}, ttl=60)
    marker = tmp_path / "unpickled"
    key = cache_key(KIND_RESPONSE, ["x"])
    with sqlite3.connect(db_path(cache)) as db:
        db.execute(
            "UPDATE Cache SET mode = 4, value = ? WHERE key = ?",
            (pickle.dumps(_Bomb(marker)), key),
        )
    assert cache.get(KIND_RESPONSE, ["x"]) is None
    assert not marker.exists()
    assert cache.stats().entries == 0


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from pwc_local.store.cache import DiskCache

    cache = DiskCache(Path(sys.argv[1]))
    text = "Ω" * 30_000
    i = 0
    while True:
        cache.put("markdown", ["paper", i], {"text": text, "i": i}, ttl=None)
        cache.put("response", ["path", i], {"i": i}, ttl=300)
        i += 1
        if i == 20:
            print("ready", flush=True)
    """
)


@pytest.mark.e2e
@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_a_writer_killed_mid_write_leaves_a_usable_cache(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    for _ in range(3):
        writer = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(directory)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready"
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=30)
        writer.stdout.close()
        assert writer.returncode == -signal.SIGKILL

    cache = DiskCache(directory)
    stats = cache.stats()
    assert stats.kinds["markdown"].entries >= 20
    readable = 0
    for i in range(stats.kinds["markdown"].entries + 10):
        entry = cache.get("markdown", ["paper", i])
        if entry is not None:
            assert entry.value == {"text": "Ω" * 30_000, "i": i}
            readable += 1
    assert readable >= 20
    cache.put("response", ["after"], {"still": "works"}, ttl=60)
    assert cache.get("response", ["after"]).value == {"still": "works"}  # type: ignore[union-attr]
    cache.prune()
    cache.close()


def test_the_size_bound_evicts_the_least_recently_used(tmp_path: Path) -> None:
    limit = 2 * 1024 * 1024
    cache = DiskCache(tmp_path / "cache", size_limit=limit)
    text = "x" * 60_000
    cache.put(KIND_MARKDOWN, ["kept"], {"text": text}, ttl=None)
    for i in range(100):  # ~6 MB in all, three times the bound
        cache.put(KIND_MARKDOWN, ["filler", i], {"text": text}, ttl=None)
        assert cache.get(KIND_MARKDOWN, ["kept"]) is not None  # in use: must survive

    survivors = [i for i in range(100) if cache.get(KIND_MARKDOWN, ["filler", i]) is not None]
    assert cache.get(KIND_MARKDOWN, ["filler", 0]) is None  # oldest unused: evicted
    assert 99 in survivors
    assert len(survivors) < 60
    stats = cache.stats()
    assert stats.volume <= limit + 20 * 64 * 1024  # diskcache culls in batches per write


def _hammer(directory: str, worker: int, barrier: Any, errors: Any) -> None:
    import logging

    class Fail(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            errors.put(f"worker {worker} logged: {record.getMessage()}")

    logging.getLogger("pwc_local").addHandler(Fail())
    cache = DiskCache(Path(directory))
    barrier.wait()
    try:
        for i in range(150):
            key = ["shared", i % 15]
            cache.put(KIND_RESPONSE, key, {"i": i % 15, "by": worker, "pad": "p" * 500}, ttl=300)
            entry = cache.get(KIND_RESPONSE, key)
            if entry is None or entry.value["i"] != i % 15:
                errors.put(f"worker {worker} read {entry!r} for {key}")
            cache.put(KIND_MARKDOWN, ["own", worker, i], {"text": "t" * 40_000}, ttl=None)
    except Exception as exc:  # pragma: no cover - reported to the parent
        errors.put(f"worker {worker}: {type(exc).__name__}: {exc}")
    cache.close()


@pytest.mark.e2e
def test_processes_share_the_cache_without_errors(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    directory = str(tmp_path / "cache")
    barrier = context.Barrier(3)
    errors = context.Queue()
    workers = [
        context.Process(target=_hammer, args=(directory, n, barrier, errors)) for n in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    problems = []
    while not errors.empty():
        problems.append(errors.get())
    assert problems == []
    stats = DiskCache(Path(directory)).stats()
    assert stats.kinds["markdown"].entries == 450
    assert stats.kinds["response"].entries == 15


def test_an_unusable_cache_directory_costs_no_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the directory should be")
    clock = Clock()
    upstream = ScriptedCatalog().on("tasks/", {"ok": True})
    source = CachingCatalog(
        upstream.client(), DiskCache(blocker, clock=clock), namespace=NAMESPACE, clock=clock
    )
    assert fetch(source, "tasks/") == {"ok": True}
    assert fetch(source, "tasks/") == {"ok": True}
    assert json_calls(upstream) == 2
    warnings = [r.getMessage() for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(warnings) == 1 and "not a directory" in warnings[0]
    with pytest.raises(CacheError, match="not a directory"):
        DiskCache(blocker).stats()


def test_a_damaged_database_disables_the_cache_and_says_how_to_fix_it(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    directory.mkdir(mode=0o700)
    (directory / "cache.db").write_bytes(bytes(range(256)) * 40)
    cache = DiskCache(directory)
    assert cache.get(KIND_RESPONSE, ["x"]) is None
    cache.put(KIND_RESPONSE, ["x"], 1, ttl=60)  # no exception: answers go on
    with pytest.raises(CacheError, match=r"damaged .*delete that directory"):
        DiskCache(directory).stats()


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_the_cache_directory_is_private(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path / "deep" / "cache")
    cache.put(KIND_RESPONSE, ["x"], 1, ttl=1)
    assert (tmp_path / "deep" / "cache").stat().st_mode & 0o777 == 0o700


# -- maintenance --------------------------------------------------------------------------


def test_stats_clear_and_prune(tmp_path: Path) -> None:
    clock = Clock(now=T0)
    cache = DiskCache(tmp_path / "cache", clock=clock)
    cache.put("response", ["a"], {"x": 1}, ttl=60)
    cache.put("response", ["b"], {"x": 2}, ttl=600)
    cache.put("public", ["p"], {"title": "t"}, ttl=PUBLIC_TTL)
    cache.put("markdown", ["m"], {"text": "Ω" * 40_000}, ttl=None)
    cache.put("version", ["v"], VERSION_A, ttl=300)

    stats = cache.stats()
    counts = {kind: k.entries for kind, k in stats.kinds.items()}
    assert counts == {"response": 2, "public": 1, "markdown": 1, "version": 1}
    assert stats.kinds["markdown"].bytes > 80_000
    assert 0 < stats.kinds["response"].bytes < 200
    assert stats.kinds["response"].oldest <= stats.kinds["response"].newest  # type: ignore[operator]
    assert stats.size_limit == cache.size_limit and stats.volume > 0

    clock.now = T0 + 400  # past 60 and 300, not 600
    assert cache.prune().expired == 1
    assert cache.get("response", ["a"]) is None
    assert cache.get("response", ["b"]) is not None and cache.get("markdown", ["m"]) is not None
    # The last version seen is how kept Markdown is found offline: prune leaves it.
    assert cache.get("version", ["v"]) is not None

    assert cache.clear(["markdown"]) == 1
    assert cache.stats().kinds["markdown"].entries == 0
    assert cache.clear() == 3
    assert cache.stats().entries == 0
    with pytest.raises(CacheError, match="unknown cache kind"):
        cache.clear(["bogus"])


def test_prune_also_removes_corrupt_entries(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path / "cache", clock=Clock())
    cache.put("response", ["a"], {"x": 1}, ttl=60)
    key = cache_key("response", ["a"])
    with sqlite3.connect(db_path(cache)) as db:
        db.execute("UPDATE Cache SET value = ? WHERE key = ?", (b"junk", key))
    result = cache.prune()
    assert (result.expired, result.corrupt) == (0, 1)
    assert cache.stats().entries == 0


def test_stats_of_a_fresh_cache_is_empty_json_friendly(tmp_path: Path) -> None:
    stats = DiskCache(tmp_path / "cache").stats()
    assert stats.entries == 0 and stats.kinds["public"].oldest is None
    json.dumps({kind: vars(k) for kind, k in stats.kinds.items()})


# -- the `cache` commands -----------------------------------------------------------------


def invoke(tmp_path: Path, *args: str) -> Any:
    from click.testing import CliRunner

    from pwc_local.cli import main

    env = {
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "PWC_MCP_LOCAL_CACHE_DIR": str(tmp_path / "cache"),
        "PWC_MCP_LOCAL_CACHE_SIZE": "64MiB",
        "PWC_MCP_LOCAL_CONFIG": "",
    }
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def populate(tmp_path: Path) -> None:
    old = DiskCache(tmp_path / "cache", clock=Clock(T0))  # long expired by now
    old.put("response", ["old"], {"x": 0}, ttl=60)
    old.close()
    cache = DiskCache(tmp_path / "cache")
    cache.put("response", ["new"], {"x": 1}, ttl=600)
    cache.put("public", ["p"], {"title": "t"}, ttl=PUBLIC_TTL)
    cache.put("markdown", ["m", 0], {"text": "Ω" * 40_000}, ttl=None)
    cache.put("markdown", ["m", 1], {"text": "short"}, ttl=None)
    cache.put("version", ["v"], VERSION_A, ttl=300)
    cache.close()


def test_cache_stats_json(tmp_path: Path) -> None:
    populate(tmp_path)
    result = invoke(tmp_path, "cache", "stats", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["location"] == str(tmp_path / "cache")
    assert document["size_limit"] == 64 * 1024 * 1024
    assert document["entries"] == 6
    assert {k: v["entries"] for k, v in document["kinds"].items()} == {
        "response": 2,
        "public": 1,
        "markdown": 2,
        "version": 1,
    }
    markdown = document["kinds"]["markdown"]
    assert markdown["bytes"] > 80_000
    assert datetime.fromisoformat(markdown["oldest"]) <= datetime.fromisoformat(markdown["newest"])
    assert document["kinds"]["public"]["oldest"].endswith("+00:00")


def test_cache_stats_for_people(tmp_path: Path) -> None:
    populate(tmp_path)
    result = invoke(tmp_path, "cache", "stats")
    assert result.exit_code == 0
    assert f"Cache directory: {tmp_path / 'cache'}" in result.output
    assert "64.0 MiB" in result.output
    assert any(line.split()[:2] == ["markdown", "2"] for line in result.output.splitlines())


def test_cache_clear_by_kind_and_all(tmp_path: Path) -> None:
    populate(tmp_path)
    result = invoke(tmp_path, "cache", "clear", "--kind", "markdown", "--kind", "version", "--json")
    assert result.exit_code == 0
    assert json.loads(result.output)["removed"] == 3
    after = json.loads(invoke(tmp_path, "cache", "stats", "--json").output)
    assert after["kinds"]["markdown"]["entries"] == 0
    assert after["kinds"]["response"]["entries"] == 2

    result = invoke(tmp_path, "cache", "clear")
    assert result.exit_code == 0 and "Removed 3 entries (all kinds)" in result.output
    assert json.loads(invoke(tmp_path, "cache", "stats", "--json").output)["entries"] == 0


def test_cache_prune_json(tmp_path: Path) -> None:
    populate(tmp_path)
    result = invoke(tmp_path, "cache", "prune", "--json")
    assert result.exit_code == 0
    assert json.loads(result.output) == {
        "location": str(tmp_path / "cache"),
        "expired": 1,
        "corrupt": 0,
    }
    assert json.loads(invoke(tmp_path, "cache", "stats", "--json").output)["entries"] == 5


def test_cache_command_reports_an_unusable_directory(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("not a directory")
    result = invoke(tmp_path, "cache", "stats")
    assert result.exit_code == 1
    assert "not a directory" in result.output


def test_prune_skips_rows_written_by_something_else(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path / "cache", clock=Clock(T0))
    cache.put("response", ["a"], {"x": 1}, ttl=60)
    with sqlite3.connect(db_path(cache)) as db:  # a row with a pickled key, not ours
        db.execute(
            "INSERT INTO Cache (key, raw, store_time, expire_time, access_time, access_count,"
            " tag, size, mode, filename, value) VALUES (?, 0, 0, NULL, 0, 0, NULL, 0, 1, NULL, ?)",
            (pickle.dumps(("foreign", "key")), b"x"),
        )
    cache.clock = Clock(T0 + 120)
    assert cache.prune().expired == 1


def test_cache_commands_accept_a_relative_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    DiskCache(Path("relative")).put("response", ["a"], {"x": 1}, ttl=60)
    result = invoke(tmp_path, "cache", "--cache-dir", "relative", "stats", "--json")
    document = json.loads(result.output)
    assert document["entries"] == 1
    assert document["location"] == str(tmp_path / "relative")
