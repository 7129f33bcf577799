"""The watch list's queries in-process, over real HTTP to the loopback fake catalog."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from pwc_local.failures import coded_text
from pwc_local.queries import looks
from pwc_local.queries import watch as watch_queries
from pwc_local.queries.looks import whats_new
from pwc_local.queries.watch import watch
from pwc_local.store.watchlist import Watchlist
from pwc_local.upstream.errors import ExpiredCursor, InvalidCursor, NotFound, UsageError
from pwc_local.upstream.http import HttpCatalog
from tests.fake_catalog import FakeCatalog, NewResult


@asynccontextmanager
async def _opened(
    fake: FakeCatalog, directory: Path
) -> AsyncIterator[tuple[HttpCatalog, Watchlist]]:
    catalog = HttpCatalog(fake.api_url, timeout=5)
    try:
        with Watchlist.open(directory) as watchlist:
            yield catalog, watchlist
    finally:
        await catalog.aclose()


def _statuses(answer: dict) -> list[tuple[str, str]]:
    return [(report["kind"], report["status"]) for report in answer["watches"]]


def test_peeking_twice_answers_the_same_and_marking_seen_moves(
    fake_catalog: FakeCatalog, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            await watch(catalog, watchlist, "benchmark", "COCO", remove=False)
            fake_catalog.apply(NewResult("6", paper="612", model="Watcher", metrics={"mAP": 61}))
            first = await whats_new(catalog, watchlist, mark_seen=False, cursor=None)
            second = await whats_new(catalog, watchlist, mark_seen=False, cursor=None)
            assert first["watches"] == second["watches"]
            assert _statuses(first) == [("benchmark", "changed")]
            seen = await whats_new(catalog, watchlist, mark_seen=True, cursor=None)
            assert seen["watches"][0]["changes"] == first["watches"][0]["changes"]
            after = await whats_new(catalog, watchlist, mark_seen=True, cursor=None)
            assert _statuses(after) == [("benchmark", "unchanged")]
            assert after["watches"][0]["previous_look"] == seen["checked_at"]

    anyio.run(scenario)


def test_every_change_is_reported_however_many(fake_catalog: FakeCatalog, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            await watch(catalog, watchlist, "benchmark", "CIFAR-10", remove=False)
            for index in range(25):
                model = f"Flood-{index:02d}"
                fake_catalog.apply(
                    NewResult("18", paper="310", model=model, metrics={"Percentage correct": 50})
                )
            report = (await whats_new(catalog, watchlist, mark_seen=True, cursor=None))["watches"][
                0
            ]
            # 25 new results and one new leader, all on the one page they fit
            assert len(report["changes"]) == 26 and report["more"] == 0
            assert report["changes"][0]["type"] == "new_leader"

    anyio.run(scenario)


def test_a_slow_watch_does_not_hold_up_the_others(
    fake_catalog: FakeCatalog, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            await watch(catalog, watchlist, "paper", "1706.03762", remove=False)
            await watch(catalog, watchlist, "benchmark", "COCO", remove=False)
            fake_catalog.faults.slow(prefix="research/papers/")
            with anyio.fail_after(30):  # answers, does not hang
                answer = await whats_new(
                    catalog, watchlist, timeout=1.0, mark_seen=True, cursor=None
                )
            assert _statuses(answer) == [("paper", "not_checked"), ("benchmark", "unchanged")]
            assert answer["watches"][0]["reason"].startswith("upstream_timeout: ")
            fake_catalog.faults.release()
            fake_catalog.faults.reset()
            again = await whats_new(catalog, watchlist, mark_seen=True, cursor=None)
            assert _statuses(again) == [("paper", "unchanged"), ("benchmark", "unchanged")]

    anyio.run(scenario)


def test_bad_targets_store_nothing(fake_catalog: FakeCatalog, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            with pytest.raises(UsageError, match="kind must be one of benchmark, task, paper"):
                await watch(catalog, watchlist, "dataset", "COCO", remove=False)
            with pytest.raises(UsageError, match="target must not be empty"):
                await watch(catalog, watchlist, "query", "   ", remove=False)
            with pytest.raises(UsageError, match="target must be at most 500 characters"):
                await watch(catalog, watchlist, "query", "word " * 101, remove=False)
            closest = "Benchmark not found: ImageNet; closest results: ImageNet-1k"
            with pytest.raises(NotFound, match=closest):
                await watch(catalog, watchlist, "benchmark", "ImageNet", remove=False)
            with pytest.raises(NotFound, match=r"Paper not found: 2308\.10195"):
                await watch(catalog, watchlist, "paper", "2308.10195", remove=False)
            with pytest.raises(NotFound, match="Watch not found: task OCR"):
                await watch(catalog, watchlist, "task", "OCR", remove=True)
            assert watchlist.watches() == []

    anyio.run(scenario)


def test_the_same_watch_under_another_spelling_is_kept(
    fake_catalog: FakeCatalog, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            added = await watch(catalog, watchlist, "benchmark", "imagenet-1k", remove=False)
            again = await watch(catalog, watchlist, "benchmark", "72", remove=False)
            assert (added["status"], again["status"]) == ("added", "kept")
            assert [item["name"] for item in again["watches"]] == ["ImageNet-1k"]
            removed = await watch(catalog, watchlist, "benchmark", "ImageNet-1k", remove=True)
            assert (removed["status"], removed["watches"]) == ("removed", [])

    anyio.run(scenario)


def test_a_bug_in_one_look_costs_that_watch_only(
    fake_catalog: FakeCatalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    async def broken(catalog: Any, key: str) -> dict:
        raise KeyError(key)

    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            await watch(catalog, watchlist, "paper", "1706.03762", remove=False)
            await watch(catalog, watchlist, "benchmark", "COCO", remove=False)
            monkeypatch.setattr(watch_queries, "_paper_look", broken)
            answer = await whats_new(catalog, watchlist, mark_seen=True, cursor=None)
            assert _statuses(answer) == [("paper", "not_checked"), ("benchmark", "unchanged")]
            assert answer["watches"][0]["reason"].startswith("internal_error: ")
            moved = watchlist.looks()
            assert moved[0][0].looked_at < moved[1][0].looked_at  # only the checked one moved

    anyio.run(scenario)
    assert "unexpected KeyError while looking at a watch" in caplog.text
    assert "1706.03762" not in caplog.text  # frames only, never the exception text


def test_a_leaderboard_longer_than_the_scan_limit_is_watched_as_its_best_rows(
    fake_catalog: FakeCatalog, tmp_path: Path
) -> None:
    for index in range(800):  # ImageNet-1k: 241 rows, then 1 041 (unranked ones last)
        model = f"Tail-{index:03d}"
        fake_catalog.apply(
            NewResult("72", paper="310", model=model, metrics={"Top-1 Accuracy": 1}, rank=None)
        )

    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            await watch(catalog, watchlist, "benchmark", "ImageNet-1k", remove=False)
            fake_catalog.apply(
                NewResult("72", paper="2432", model="ViT-G/14", metrics={"Top-1 Accuracy": 90.1})
            )
            report = (await whats_new(catalog, watchlist, mark_seen=True, cursor=None))["watches"][
                0
            ]
            assert report["status"] == "changed"
            # Before the cut, the 1 000-row safety limit refused the watch (upstream_error).
            assert [(c["type"], c["model"]) for c in report["changes"]] == [
                ("new_leader", "ViT-G/14"),
                ("new_result", "ViT-G/14"),
            ]

    anyio.run(scenario)


def _grow_imagenet(fake: FakeCatalog, count: int, *, model: str, first_rank: int) -> None:
    """`count` results on ImageNet-1k (240 rows), ranked from `first_rank` down."""
    for index in range(count):
        fake.apply(
            NewResult(
                "72",
                paper="310",
                model=f"{model}-{index:04d}",
                metrics={"Top-1 Accuracy": 50 - index / 1000},
                rank=first_rank + index,
            )
        )


def test_a_watch_on_a_board_past_a_thousand_rows_reports_every_new_result(
    fake_catalog: FakeCatalog, tmp_path: Path
) -> None:
    """W1: on a board past 1,000 rows, new results ranked below 1,000 were never reported
    (the look read the best 1,000 rows) and the baseline moved past them."""
    _grow_imagenet(fake_catalog, 770, model="Tail", first_rank=242)  # 1,010 rows

    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            await watch(catalog, watchlist, "benchmark", "ImageNet-1k", remove=False)
            _grow_imagenet(fake_catalog, 30, model="New", first_rank=990)
            answer = await whats_new(catalog, watchlist, mark_seen=True, cursor=None)
            reported = []
            while True:
                for report in answer["watches"]:
                    reported += [c["model"] for c in report["changes"]]
                    assert report["reason"] is None  # the whole board was read
                if answer["next_cursor"] is None:
                    break
                answer = await whats_new(
                    catalog, watchlist, mark_seen=True, cursor=answer["next_cursor"]
                )
            assert sorted(reported) == [f"New-{index:04d}" for index in range(30)]
            again = await whats_new(catalog, watchlist, mark_seen=True, cursor=None)
            assert _statuses(again) == [("benchmark", "unchanged")]

    anyio.run(scenario)


def test_a_board_longer_than_a_look_reads_says_so(
    fake_catalog: FakeCatalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pwc_local.queries import benchmarks

    monkeypatch.setattr(benchmarks, "BOARD_ROW_LIMIT", 200)  # ImageNet-1k has 240 rows

    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            await watch(catalog, watchlist, "benchmark", "ImageNet-1k", remove=False)
            (report,) = (await whats_new(catalog, watchlist, mark_seen=True, cursor=None))[
                "watches"
            ]
            assert report["status"] == "unchanged"
            assert report["reason"] == (
                "the leaderboard has 240 rows and a look reads the best 200: new results "
                "ranked below them are not reported"
            )

    anyio.run(scenario)


def test_a_long_report_comes_in_pages_and_a_page_nobody_asked_for_comes_again(
    fake_catalog: FakeCatalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(looks, "PAGE_BYTES", 2048)

    async def scenario() -> None:
        async with _opened(fake_catalog, tmp_path) as (catalog, watchlist):
            for name in ("CIFAR-10", "COCO"):
                await watch(catalog, watchlist, "benchmark", name, remove=False)
            for index in range(12):
                fake_catalog.apply(
                    NewResult(
                        "18", paper="310", model=f"P{index}", metrics={"Percentage correct": 1}
                    )
                )
                fake_catalog.apply(
                    NewResult("6", paper="612", model=f"C{index}", metrics={"mAP": 1})
                )
            first = await whats_new(catalog, watchlist, mark_seen=True, cursor=None)
            assert first["next_cursor"] and first["watches"][0]["more"] > 0
            shown = [c["model"] for r in first["watches"] for c in r["changes"]]
            # The client stops paging and looks again: what it was not shown comes again.
            again = await whats_new(catalog, watchlist, mark_seen=True, cursor=None)
            cursor = again["next_cursor"]
            pages = [again]
            while cursor:
                pages.append(await whats_new(catalog, watchlist, mark_seen=True, cursor=cursor))
                cursor = pages[-1]["next_cursor"]
            rest = [
                (c["type"], c["model"])
                for page in pages
                for r in page["watches"]
                for c in r["changes"]
            ]
            everything = {f"P{i}" for i in range(12)} | {f"C{i}" for i in range(12)}
            assert set(shown) | {model for _, model in rest} == everything
            assert len(rest) == len(set(rest)) == 26  # 24 results, 2 new leaders
            last = await whats_new(catalog, watchlist, mark_seen=True, cursor=None)
            assert _statuses(last) == [("benchmark", "unchanged"), ("benchmark", "unchanged")]
            with pytest.raises(ExpiredCursor) as expired:
                await whats_new(catalog, watchlist, mark_seen=True, cursor=first["next_cursor"])
            assert "call whats_new without cursor" in coded_text(expired.value)
            with pytest.raises(InvalidCursor) as invalid:
                await whats_new(catalog, watchlist, mark_seen=True, cursor="garbage")
            assert coded_text(invalid.value).startswith("invalid_cursor: invalid whats_new cursor")

    anyio.run(scenario)
