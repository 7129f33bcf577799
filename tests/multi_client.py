"""Several clients at once on a flapping network: the scenario of issue 18 item 5.

Three installed servers (as Claude Desktop, Claude Code and an IDE would each start
one) share one cache and one library, each answering a steady stream of tool
calls; meanwhile `library add` saves 30 papers, `cache prune` runs once, and the
loopback catalog refuses connections for 2 s out of every 6. The watch list joins
in (issue 27): three query watches, a new matching paper every second, `whats_new`
in every server's stream and `whats-new` on the command line every few seconds, so
each new paper must be reported exactly once across all of them (`Look`).
`run_clients` returns what happened; the e2e test (tests/test_multi_client_e2e.py)
asserts on a short run and `benchmarks/clients.py` prints figures of a longer one.

The flapping schedule is the scenario's own clock (timed waits on a stop event);
nothing waits on a sleep to learn that something else happened.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import diskcache

from pwc_local.store.cache import decode_entry
from tests.fake_catalog import NewPaper
from tests.fake_catalog.data_papers import Paper
from tests.fake_catalog.server import FakeCatalog
from tests.installed import EXECUTABLE, InstalledServer, looks

TIMEOUT = 5.0  # the servers' normal request timeout
BUDGET = 1.0  # the default outage budget
UP, DOWN = 4.0, 2.0  # seconds of each 6 s cycle the catalog answers, then refuses
PAPERS = [
    "1706.03762",
    "2006.16236",
    "2307.09288",
    "2302.13971",
    "2505.18132",
    "2010.13154",
    "1512.03385",
    "1810.04805",
    "2010.11929",
    "1506.01497",
    "1506.02640",
    "2005.14165",
    "1406.2661",
    "2006.11239",
    "2103.00020",
    "2006.11477",
    "1703.06870",
    "1911.05722",
    "2111.06377",
    "2309.06180",
    "1903.08689",
    "1911.02116",
    "2310.06770",
    "2501.12948",
    "2408.00714",
    "2607.01234",
    "2609.05678",
    "2608.04410",
    "2610.07720",
    "2603.11111",
]
CALLS_PER_SECOND = 4  # per server: a busy conversation, not a load test
WATCHED = ("soakwatch0", "soakwatch1", "soakwatch2")  # search words no fixture paper has
PUBLISH_EVERY = 1.0  # seconds between new papers for the watches
CLI_LOOK_EVERY = 3.0  # seconds between two `whats-new` runs


@dataclass(frozen=True)
class Call:
    server: int
    tool: str
    started: float
    took: float
    error: str | None


@dataclass(frozen=True)
class Look:
    """One whats_new (a server's, every page) or whats-new (`server` -1) and what it reported."""

    server: int
    started: float
    took: float
    reported: list[tuple[str, str]]  # (watch target, arXiv ID) per new_paper change
    not_checked: int
    error: str | None


@dataclass
class Outcome:
    calls: list[Call] = field(default_factory=list)
    looks: list[Look] = field(default_factory=list)
    published: list[tuple[str, str]] = field(default_factory=list)  # (watch target, arXiv ID)
    outages: int = 0
    down: list[tuple[float, float]] = field(default_factory=list)  # refusal windows
    add_runs: list[int] = field(default_factory=list)  # exit status of each `library add`
    prune_status: int | None = None
    missing_papers: list[str] = field(default_factory=list)  # not saved byte for byte
    cache_entries: int = 0
    damaged_entries: int = 0
    seconds: float = 0.0


def run_clients(root: Path, fake: FakeCatalog, seconds: float) -> Outcome:
    """The scenario for `seconds` of flapping, then the library completed and checked."""
    home = InstalledServer(root, fake.api_url, PWC_MCP_LOCAL_TIMEOUT=f"{TIMEOUT:g}")
    outcome = Outcome()
    _add_watches(home)
    began = time.monotonic()
    with flapping(fake, outcome) as stop:
        anyio.run(_clients, home, fake, outcome, seconds, stop)
    _complete_library(home, outcome)
    anyio.run(_cli_look, home, outcome)  # once steady: what no look reported yet
    outcome.missing_papers = _unsaved(root / "data" / "pwc-mcp-local", fake)
    outcome.cache_entries, outcome.damaged_entries = _verify_cache(root / "cache")
    outcome.seconds = time.monotonic() - began
    return outcome


@contextmanager
def flapping(fake: FakeCatalog, outcome: Outcome) -> Iterator[threading.Event]:
    """Refuse connections `DOWN` s of every `UP + DOWN` s until the event is set."""
    stop = threading.Event()

    def flap() -> None:
        while not stop.wait(UP):
            fake.faults.refuse_connections()
            outcome.outages += 1
            began = time.monotonic()
            stop.wait(DOWN)
            fake.faults.reset()
            outcome.down.append((began, time.monotonic()))

    flapper = threading.Thread(target=flap, daemon=True)
    flapper.start()
    try:
        yield stop
    finally:
        stop.set()
        flapper.join(timeout=DOWN + 5)
        fake.faults.reset()


async def _clients(
    home: InstalledServer,
    fake: FakeCatalog,
    outcome: Outcome,
    seconds: float,
    stop: threading.Event,
) -> None:
    deadline = time.monotonic() + seconds
    async with anyio.create_task_group() as group:
        for server in range(3):
            group.start_soon(_one_client, home, server, deadline, outcome)
        group.start_soon(_library_add, home, deadline, outcome)
        group.start_soon(_prune_midway, home, deadline - seconds / 2, outcome)
        group.start_soon(_publish, fake, deadline, outcome)
        group.start_soon(_cli_looks, home, deadline, outcome)
    stop.set()


def _calls(server: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each server's stream: uncached papers at first, cached answers more and more."""
    turn = 0
    while True:
        paper = PAPERS[(turn * 3 + server) % len(PAPERS)]
        yield "get_paper_info", {"paper": paper}
        yield "read_paper", {"paper": paper}
        yield "get_task", {"task": "object-detection"}
        yield "list_tasks", {"limit": 5}
        yield "get_benchmark", {"benchmark": "imagenet-1k", "limit": 5}
        yield "search_library", {"query": "attention"}
        yield "list_library", {}
        yield "whats_new", {}
        turn += 1


async def _one_client(
    home: InstalledServer, server: int, deadline: float, outcome: Outcome
) -> None:
    async with home.session() as session:
        # Not timed: the handshake was answered early, and the first call waits for the
        # server to finish loading (server/launch.py), which is not what is measured.
        await session.call_tool("list_library", {})
        pace = 1 / CALLS_PER_SECOND
        for tool, arguments in _calls(server):
            started = time.monotonic()
            if started >= deadline:
                return
            if tool == "whats_new":
                await _tool_look(session, server, outcome)
                continue
            result = await session.call_tool(tool, arguments)
            took = time.monotonic() - started
            text = "\n".join(b.text for b in result.content if b.type == "text")
            outcome.calls.append(
                Call(server, tool, started, took, text if result.is_error else None)
            )
            await anyio.sleep(max(0.0, pace - took))  # pacing the load, not synchronising


async def _tool_look(session: Any, server: int, outcome: Outcome) -> None:
    """whats_new, every page of it."""
    started = time.monotonic()
    arguments: dict[str, Any] = {}
    reported: list[tuple[str, str]] = []
    not_checked = 0
    while True:
        result = await session.call_tool("whats_new", arguments)
        if result.is_error:
            text = "\n".join(b.text for b in result.content if b.type == "text")
            outcome.looks.append(Look(server, started, time.monotonic() - started, [], 0, text))
            return
        answer = result.structured_content or {}
        reported += _reported(answer)
        not_checked += sum(r["status"] == "not_checked" for r in looks(answer))
        if not answer.get("next_cursor"):
            break
        arguments = {"cursor": answer["next_cursor"]}
    took = time.monotonic() - started
    outcome.looks.append(Look(server, started, took, reported, not_checked, None))


def _reported(answer: dict[str, Any]) -> list[tuple[str, str]]:
    """(watch target, the paper's reference: its arXiv ID) of each new paper reported."""
    return [
        (report["target"], change["paper"])
        for report in looks(answer)
        for change in report["changes"]
        if change["type"] == "new_paper"
    ]


def _add_watches(home: InstalledServer) -> None:
    """The query watches, with the empty baseline a first look would take."""
    from pwc_local.store.watchlist import Watchlist

    with Watchlist.open(home.library_dir) as watchlist:
        for words in WATCHED:
            empty = {"papers": {}, "full": False}
            watchlist.add("query", words, target=words, name=words, snapshot=empty)


async def _publish(fake: FakeCatalog, deadline: float, outcome: Outcome) -> None:
    """A new paper for one of the watches every `PUBLISH_EVERY` s (the scenario's clock)."""
    number = 97000
    while time.monotonic() < deadline - PUBLISH_EVERY:
        number += 1
        words = WATCHED[number % len(WATCHED)]
        arxiv_id = f"2612.{number - 90000:05d}"
        paper = Paper(
            id=str(number),
            arxiv_id=arxiv_id,
            title=f"A {words} paper number {number}",
            authors=("Soak Publisher",),
            published="2026-12-01",
            abstract="Published while three servers and the command look.",
            points=("Added by the scenario.",),
        )
        fake.apply(NewPaper(paper))
        outcome.published.append((words, arxiv_id))
        await anyio.sleep(PUBLISH_EVERY)  # pacing the scenario, not synchronising


async def _cli_looks(home: InstalledServer, deadline: float, outcome: Outcome) -> None:
    while time.monotonic() < deadline:
        await _cli_look(home, outcome)
        await anyio.sleep(CLI_LOOK_EVERY)  # pacing


async def _cli_look(home: InstalledServer, outcome: Outcome) -> None:
    """`whats-new --json` (exit 1 when some watch was not checked: the JSON is whole)."""
    started = time.monotonic()
    done = await anyio.run_process(_command("whats-new", "--json"), env=home.env, check=False)
    took = time.monotonic() - started
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        error = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
        outcome.looks.append(Look(-1, started, took, [], 0, error))
        return
    not_checked = sum(r["status"] == "not_checked" for r in looks(answer))
    outcome.looks.append(Look(-1, started, took, _reported(answer), not_checked, None))


def _command(*args: str) -> list[str]:
    return [str(EXECUTABLE), *args]


async def _library_add(home: InstalledServer, deadline: float, outcome: Outcome) -> None:
    """`library add` of the 30 papers, again for what failed, while the network flaps."""
    while time.monotonic() < deadline:
        done = await anyio.run_process(
            _command("library", "add", *PAPERS), env=home.env, check=False
        )
        outcome.add_runs.append(done.returncode)
        if done.returncode == 0:
            return


async def _prune_midway(home: InstalledServer, at: float, outcome: Outcome) -> None:
    await anyio.sleep(max(0.0, at - time.monotonic()))  # the scenario's schedule
    done = await anyio.run_process(_command("cache", "prune"), env=home.env, check=False)
    outcome.prune_status = done.returncode


def _complete_library(home: InstalledServer, outcome: Outcome) -> None:
    """Once the network is steady: one more `library add`, which saves what is missing."""
    if outcome.add_runs and outcome.add_runs[-1] == 0:
        return

    async def add() -> None:
        done = await anyio.run_process(
            _command("library", "add", *PAPERS), env=home.env, check=False
        )
        outcome.add_runs.append(done.returncode)

    anyio.run(add)


def _unsaved(library_dir: Path, fake: FakeCatalog) -> list[str]:
    """The papers the library does not hold byte for byte as the fake serves them."""
    from pwc_local.store.library import Library

    library = Library.open(library_dir)
    try:
        missing = []
        for paper in PAPERS:
            saved = library.get(paper)
            if saved is None or saved.markdown.encode() != (fake.markdown(paper) or "").encode():
                missing.append(paper)
        return missing
    finally:
        library.close()


def _verify_cache(directory: Path) -> tuple[int, int]:
    """(entries, entries that fail to decode and verify) of the shared cache."""
    if not (directory / "cache.db").exists():
        return 0, 0
    entries = damaged = 0
    with diskcache.Cache(str(directory)) as cache:
        for key in cache.iterkeys():
            entries += 1
            if decode_entry(cache.get(key)) is None:
                damaged += 1
    return entries, damaged


def while_up(outcome: Outcome, margin: float = 0.2) -> list[Call]:
    """The calls made wholly while the catalog answered (`margin` s clear of any refusal)."""
    return [
        c
        for c in outcome.calls
        if all(c.started + c.took < a - margin or c.started > b + margin for a, b in outcome.down)
    ]


def worst_calls(outcome: Outcome, bound: float) -> list[Call]:
    """The calls that took longer than `bound`, slowest first."""
    return sorted((c for c in outcome.calls if c.took > bound), key=lambda c: -c.took)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")
