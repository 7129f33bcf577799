"""End to end: a look loses nothing, repeats nothing, and hides nothing (issue 27 items 1, 2, 5).

Against the loopback fake, through the installed command and server:

* a report that cannot be written (a full disk, a closed pipe) moves no baseline,
  and says so in one line;
* a report too large for one answer comes in pages (`next_cursor`), each far inside
  the 2 MiB bound, and every change arrives exactly once, past any per-watch cap;
* two looks at once (the tool and the command) report each change once;
* an unreadable baseline is reported as reset;
* stored targets come out of `--json` printable (controls and bidi overrides gone), and a read-only
  library is still listed and peeked at (issue 28).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest

from pwc_local.queries.looks import PAGE_BYTES
from pwc_local.safe_text import printable
from pwc_local.store.library import Library
from pwc_local.store.watchlist import Watchlist
from tests.fake_catalog import FakeCatalog, NewPaper, NewResult
from tests.fake_catalog.data_papers import Paper
from tests.installed import EXECUTABLE, InstalledServer, call, looks
from tests.test_library_read_only import in_namespace, needs_namespaces, read_only_mount

pytestmark = pytest.mark.e2e


NEW_LEADER = NewResult("72", paper="2432", model="ViT-G/14", metrics={"Top-1 Accuracy": 90.1})
ANSWER_LIMIT = 2 * 1024 * 1024


def _run(home: InstalledServer, *args: str, stdout: Any = subprocess.PIPE) -> Any:
    return subprocess.run(
        [str(EXECUTABLE), *args],
        env=home.env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )


def _json(home: InstalledServer, *args: str) -> Any:
    done = _run(home, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _looks(home: InstalledServer, *args: str) -> list[dict[str, Any]]:
    """`whats-new ARGS --json`, one dict per watch (`tests.installed.looks`)."""
    return looks(_json(home, "whats-new", *args))


def _one_line_error(done: Any) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def _papers(report: dict[str, Any]) -> list[str]:
    return [change["paper"] for change in report["changes"] if change.get("paper")]


def test_a_report_that_cannot_be_written_moves_nothing(
    fake_catalog: FakeCatalog, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    assert _run(home, "watch", "add", "benchmark", "imagenet-1k").returncode == 0
    fake_catalog.apply(NEW_LEADER)

    with open("/dev/full", "w") as full:
        line = _one_line_error(_run(home, "whats-new", stdout=full))
    assert "could not be written" in line and "nothing was marked seen" in line

    reader, writer = os.pipe()
    os.close(reader)  # a pipe whose reader went away
    try:
        line = _one_line_error(_run(home, "whats-new", "--json", stdout=writer))
    finally:
        os.close(writer)
    assert "its reader went away" in line

    (report,) = _looks(home)  # the same change, now written
    assert [change["type"] for change in report["changes"]] == ["new_leader", "new_result"]
    (after,) = _looks(home)
    assert after["status"] == "unchanged"


def _query_watches(home: InstalledServer, count: int) -> list[str]:
    """`count` query watches with an empty baseline (any hit is new), straight into the list."""
    targets = [f"wq{index:03d}x" for index in range(count)]
    with Watchlist.open(home.library_dir) as watchlist:
        for target in targets:
            empty = {"papers": {}, "full": False}
            watchlist.add("query", target, target=target, name=target, snapshot=empty)
    return targets


def _flood(
    fake: FakeCatalog, targets: list[str], per_watch: dict[str, int], first: int = 95000
) -> set[tuple[str, str]]:
    """New papers matching each target, IDs from `first` on, with long multi-byte titles.

    Returns `(target, arXiv ID)` of each: the reference a change row names.
    """
    made = set()
    number = first
    for target in targets:
        for index in range(per_watch.get(target, 20)):
            number += 1
            title = f"{target} " + "視覚変換器による大規模画像認識の研究 " * 14 + str(index)
            arxiv_id = f"2611.{number - 90000:05d}"
            paper = Paper(
                id=str(number),
                arxiv_id=arxiv_id,
                title=title,
                authors=("Watch Flood",),
                published=f"2026-11-{1 + index % 28:02d}",
                abstract="A paper that floods the watch list.",
                points=("Added by a test.",),
            )
            fake.apply(NewPaper(paper))
            made.add((target, arxiv_id))
    return made


def test_a_report_too_large_for_one_answer_comes_in_pages_and_loses_nothing(
    fake_catalog: FakeCatalog, installed_server: InstalledServer
) -> None:
    """100 watches (the limit), 20 changes each, one with 45: on main one answer of >2 MiB."""
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="20")
    targets = _query_watches(home, 100)
    made = _flood(fake_catalog, targets, {targets[0]: 45})

    async def scenario() -> tuple[list[tuple[str, str]], list[int], dict[str, Any]]:
        seen: list[tuple[str, str]] = []
        sizes: list[int] = []
        async with home.session() as session:
            answer = await call(session, "whats_new")
            while True:
                sizes.append(len(json.dumps(answer, ensure_ascii=False).encode()))
                for report in looks(answer):
                    seen.extend((report["target"], paper) for paper in _papers(report))
                if answer.get("next_cursor") is None:
                    break
                assert f"cursor={answer['next_cursor']}" in answer["_text"]
                answer = await call(session, "whats_new", cursor=answer["next_cursor"])
            again = await call(session, "whats_new", mark_seen=False)
        return seen, sizes, again

    seen, sizes, again = anyio.run(scenario)
    doubled = [item for item, count in Counter(seen).items() if count > 1]
    assert not doubled, doubled[:5]
    assert set(seen) == made
    assert len(sizes) > 1 and max(sizes) < 3 * PAGE_BYTES < ANSWER_LIMIT, sizes
    assert {report["status"] for report in looks(again)} == {"unchanged"}


def test_two_looks_at_once_report_each_change_once(
    fake_catalog: FakeCatalog, installed_server: InstalledServer
) -> None:
    """The tool's look holds the catalog; the command looks meanwhile (5 rounds of 5 papers).

    On main the command reported at once what the held look reported too.
    """
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="20")
    (target,) = _query_watches(home, 1)
    made: set[tuple[str, str]] = set()
    seen: list[tuple[str, str]] = []

    async def scenario() -> None:
        async with home.session() as session:
            for round_number in range(5):
                start = 95000 + 5 * round_number
                made.update(_flood(fake_catalog, [target], {target: 5}, first=start))
                fake_catalog.faults.slow(prefix="papers/search", times=1)
                answers: list[dict[str, Any]] = []

                async def tool_look(answers: list[dict[str, Any]] = answers) -> None:
                    answers.append(await call(session, "whats_new"))

                async with anyio.create_task_group() as group:
                    group.start_soon(tool_look)
                    held = await anyio.to_thread.run_sync(fake_catalog.faults.wait_until_blocked)
                    assert held
                    command = subprocess.Popen(
                        [str(EXECUTABLE), "whats-new", "--json"],
                        env=home.env,
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                    # On main the command finished here, reporting what the tool will;
                    # now it waits for the tool's look (and this wait runs out).
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        await anyio.to_thread.run_sync(functools.partial(command.wait, 3))
                    fake_catalog.faults.release()
                    out, err = await anyio.to_thread.run_sync(command.communicate)
                fake_catalog.faults.reset()
                assert command.returncode == 0, err
                for answer in [*answers, json.loads(out)]:
                    for report in looks(answer):
                        seen.extend((report["target"], paper) for paper in _papers(report))

    anyio.run(scenario)
    doubled = [item for item, count in Counter(seen).items() if count > 1]
    assert not doubled, doubled[:5]
    assert set(seen) == made and len(made) == 25


def test_an_unreadable_baseline_is_reported_as_reset(
    fake_catalog: FakeCatalog, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    assert _run(home, "watch", "add", "benchmark", "imagenet-1k").returncode == 0
    with sqlite3.connect(home.library_dir / "library.sqlite3") as db:
        db.execute("UPDATE watch_baselines SET digest = 'damaged'")
    fake_catalog.apply(NEW_LEADER)

    (report,) = _looks(home, "--peek")
    assert report["status"] == "reset" and "could not be read" in report["reason"]
    text = _run(home, "whats-new").stdout
    assert "ImageNet-1k (benchmark, last look" in text and ": baseline reset (" in text
    assert "1 baselines reset" in text
    (after,) = _looks(home)
    assert after["status"] == "unchanged"


def test_stored_targets_come_out_of_json_printable(installed_server: InstalledServer) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    target = "vision \x1b]0;PWNED\x07 \x9b2J transformer \u202etxt.exe"
    done = _run(home, "watch", "add", "query", target)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout
    for args in (("watch", "list", "--json"), ("whats-new", "--peek", "--json")):
        out = _run(home, *args).stdout
        for raw in ("\x1b", "\x07", "\x9b", "\u202e"):
            assert raw not in out, (args, raw)
        document = json.loads(out)
        (entry,) = document["watches"] if args[0] == "watch" else looks(document)
        # The tool's structured result, printable as every structured half is (issue 34,
        # F5); on main `watch list --json` kept the controls (escaped as JSON).
        assert entry["target"] == printable(target), args


@needs_namespaces
def test_a_read_only_library_still_lists_and_peeks(
    fake_catalog: FakeCatalog, installed_server: InstalledServer
) -> None:
    """Issue 28: `watch list` and `whats-new --peek` failed with config_error."""
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    assert _run(home, "watch", "add", "benchmark", "imagenet-1k").returncode == 0
    fake_catalog.apply(NEW_LEADER)

    def read_only(*args: str) -> Any:
        argv = in_namespace(read_only_mount(home.library_dir), str(EXECUTABLE), *args)
        return subprocess.run(argv, env=home.env, capture_output=True, text=True, timeout=120)

    listed = read_only("watch", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [item["name"] for item in json.loads(listed.stdout)["watches"]] == ["ImageNet-1k"]
    peeked = read_only("whats-new", "--peek", "--json")
    assert peeked.returncode == 0, peeked.stderr
    (report,) = looks(json.loads(peeked.stdout))
    assert report["changes"][0]["type"] == "new_leader"
    marking = _one_line_error(read_only("whats-new"))
    assert marking.startswith("pwc-mcp-local: library_read_only: ") and "--peek" in marking

    (after,) = _looks(home)  # writable again: nothing was lost
    assert after["changes"][0]["type"] == "new_leader"


def test_opening_the_library_again_keeps_this_process_s_locks(tmp_path: Path) -> None:
    """`library add` opens the library twice; on main the second open closed a descriptor
    of the file, which dropped the first connection's POSIX locks, so the next process to
    close its connection deleted the write-ahead log under it (the soak test's corrupt
    library). Needs a second process: locks are per process."""
    directory = tmp_path / "library"
    with Watchlist.open(directory) as first:
        first.add("query", "x", target="x", name="x", snapshot={"papers": {}, "full": False})
        with Watchlist.open(directory), Library.open(directory):
            database = directory / "library.sqlite3"
            other = (
                f"import sqlite3; db = sqlite3.connect({str(database)!r}); "
                "db.execute('SELECT COUNT(*) FROM sqlite_master').fetchall(); db.close()"
            )
            subprocess.run([sys.executable, "-c", other], check=True, timeout=60)
            assert (directory / "library.sqlite3-wal").exists()
            first.add("query", "y", target="y", name="y", snapshot={"papers": {}, "full": False})
    with sqlite3.connect(directory / "library.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("SELECT COUNT(*) FROM watches").fetchone() == (2,)
