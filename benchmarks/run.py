"""Every start-up, call-path and cache figure of pwc-mcp-local, against a bare server.

    python benchmarks/run.py [--runs 7] [--calls 200] [--entries 100000]

One command, one run, every ratio the targets are stated in (issue 7), each
measured alongside the floor: a bare `MCPServer` from the SDK (`bare.py`) run by
the same interpreter, spawned and driven the same way over raw stdio pipes
(`peer.py`). The installed `pwc-mcp-local` serves the loopback fake catalog
(tests/fake_catalog) with a scratch cache, config and key.

| figure                      | ours                                 | floor             |
| --------------------------- | ------------------------------------ | ----------------- |
| first answers (discover,    | `first_answer.py`: ratios to a bare  | `floor.py`, and   |
| initialize, tools/list),    | Python process and to the bare SDK   | `bare.py`         |
| SIGINT on an idle server    | server; SIGINT to exit               |                   |
| spawn -> initialize         | median of `--runs` spawns            | same              |
| spawn -> tools/list         | median of `--runs` spawns            | same              |
| listing bytes               | `tools/list` answer line; also of    | same              |
|                             | the 21 hosted tools and per group    |                   |
| first / second call         | cached `get_paper_info`, 0.5 s after | `echo`            |
|                             | the listing of a fresh server; the   |                   |
|                             | median over the session's server and |                   |
|                             | the odd-numbered start-up spawns     |                   |
| CPU per call                | `--calls` cached `get_paper_info`    | `echo`            |
| chunk CPU                   | `--calls` cached 64 KiB continuation | same text `chunk` |
| throughput, 50 in flight    | 50 pipelined cached calls            | 50 `echo`         |
| full read after restart     | all chunks of a cached paper, on the | as many `chunk`s  |
|                             | even-numbered start-up spawns, 0.5 s |                   |
|                             | after their listing                  |                   |
|                             | (these two: once the full server has |                   |
|                             | taken over from the early answers)   |                   |
| prune / stats               | `--entries` entries, all expired;    | (absolute)        |
|                             | and a third of the pruneable ones    |                   |
|                             | expired (a sixth of all); memory     |                   |
|                             | growth while prune runs              |                   |

Ratios are ours / floor (throughput: ours / floor, higher is better). The two
"floor with pwc stdio" rows repeat the CPU figures against the bare server run
through our own stdio transport (`pwc_local.server.stdio`), which shows how much
of a gap is the transport's and how much the tools'; the "pwc stdio / SDK stdio"
rows set that bare server on our transport against the same server on the SDK's
(the measured reason for keeping our own transport). The floor's chunk is the
very Markdown our chunk figure reads (`bare.py` says why that matters), and the CPU
and throughput figures take turns between the servers (`measure`). `--startup-only`
runs the start-up spawns alone (spawn figures, full read, first / second call from
the odd-numbered spawns), for weighing a change to start-up. It is a script that
prints figures, not a test: nothing here passes or fails, and timing targets are
stated only here and in the README, never in tests.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the fake catalog lives in tests/

from benchmarks.first_answer import first_answer_rows  # noqa: E402
from benchmarks.peer import Peer  # noqa: E402
from benchmarks.prune import prune_figures  # noqa: E402

PWC_MCP_LOCAL = str(Path(sys.executable).parent / "pwc-mcp-local")
BARE = [sys.executable, str(Path(__file__).resolve().parent / "bare.py")]
PAPER = "1706.03762"  # get_paper_info
BIG_PAPER = "1911.02116"  # the fake's 300 KB document: five 64 KiB chunks
IN_FLIGHT = 50
BLOCKS = 5  # turns each server takes in the CPU and throughput figures
PAUSE = 0.5  # a client's think time between the listing and its first call

# name -> (target, "max" or "min"): the targets, for the verdict column.
TARGETS = {
    "spawn -> initialize": (1.10, "max"),
    "first / second call": (3.0, "max"),
    "CPU per cached call": (1.6, "max"),
    "CPU per 64 KiB chunk": (2.0, "max"),
    "throughput, 50 in flight": (0.7, "min"),
    "full read after restart": (4.0, "max"),
    # Issue 33: the first answers against a bare Python process, the first call against
    # the release before the early answers (`--before`).
    "spawn -> server/discover (x Python floor)": (3.0, "max"),
    "spawn -> initialize (x Python floor)": (3.0, "max"),
    "spawn -> tools/list (x Python floor)": (4.0, "max"),
    "spawn -> first tools/call (x before)": (1.0, "max"),
}


# A figure: its label, our value, the floor's, and their ratio (None: not a ratio).
Rows = list[tuple[str, str, str, float | None]]
# First-call / second-call ratios of fresh servers, under "ours" and "bare".
FirstCalls = dict[str, list[float]]

# listing row -> its byte budget (issues 7, 8, 9 and 20)
LISTING_BUDGETS = {
    "tools/list bytes, all tools": 28_000,  # the default profile, 33 tools and the view (issue 37)
    "tools/list bytes, 21 hosted tools": 24_000,
    "tools/list bytes added by library tools": 6_000,
    "tools/list bytes added by reading tools": 4_000,
    "tools/list bytes added by watch tools": 2_000,
    # Four since issue 37 (1,400 for two), results_table with get_benchmark's model
    # filters and the view's metadata (2,800 before them).
    "tools/list bytes added by history tools": 3_100,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="spawns per server, timed")
    parser.add_argument("--calls", type=int, default=200, help="calls per CPU figure")
    parser.add_argument("--entries", type=int, default=100_000, help="cache entries to prune")
    parser.add_argument(
        "--startup-only",
        action="store_true",
        help="only the start-up spawns: spawn figures, full read, first / second call",
    )
    parser.add_argument(
        "--before",
        metavar="COMMAND",
        help="an older pwc-mcp-local to set the first answers against (e.g. another venv's)",
    )
    args = parser.parse_args()

    from tests.fake_catalog.server import FakeCatalog

    print(f"python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs")
    compile_package()
    rows: Rows = []
    fake = FakeCatalog().start()
    try:
        with tempfile.TemporaryDirectory(prefix="pwc-bench-") as scratch:
            env = scratch_env(Path(scratch), fake.api_url)
            chunk_file = Path(scratch) / "chunk.md"
            cursor = warm_cache(env, chunk_file)
            bare_argv = [*BARE, "--chunk-file", str(chunk_file)]  # the floor moves the same text
            before = args.before.split() if args.before else None
            rows += first_answer_rows([PWC_MCP_LOCAL], env, args.runs, PAPER, before)
            started, first_calls = startup(env, args.runs, bare_argv)
            rows += started
            if args.startup_only:
                rows.append(first_call_row(first_calls))
            else:
                rows += session(env, args.calls, cursor, bare_argv, first_calls)
    finally:
        fake.stop()
    if args.startup_only:
        report(rows)
        return
    with tempfile.TemporaryDirectory(prefix="pwc-prune-") as scratch:
        for figure in prune_figures(Path(scratch), args.entries):
            what = f"{args.entries} entries, {figure.shape}"
            timed = f"{figure.prune_seconds:.2f} s"
            rows.append((f"cache prune, {what}", timed, "", None))
            cpu = f"{figure.prune_cpu_seconds:.2f} s"
            rows.append((f"prune CPU, {what}", cpu, "", None))
            rows.append((f"cache stats, {what}", f"{figure.stats_seconds:.2f} s", "", None))
            if figure.growth_bytes is not None:
                grown = f"{figure.growth_bytes / 2**20:.1f} MiB"
                rows.append((f"prune memory growth, {figure.shape}", grown, "", None))
    report(rows)


def compile_package() -> None:
    """Byte-compile pwc_local, as pip does when it installs a wheel.

    An editable install is not compiled, and with PYTHONDONTWRITEBYTECODE set (CI,
    this machine) nothing is written on import either: every spawn would compile the
    package from source, a cost no installed copy pays (the SDK the floor imports is
    compiled at install).
    """
    import compileall

    compileall.compile_dir(str(ROOT / "pwc_local"), quiet=1)


def scratch_env(root: Path, api_url: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PWC_")}
    env.update(
        HOME=str(root / "home"),
        XDG_CONFIG_HOME=str(root / "config"),
        XDG_CACHE_HOME=str(root / "xdg-cache"),
        XDG_DATA_HOME=str(root / "data"),  # the library: never the user's own
        PWC_MCP_LOCAL_CACHE_DIR=str(root / "cache"),
        PWC_API_URL=api_url,
        # The chunk figures move 64 KiB, comparable across runs (the default is 8 KiB).
        PWC_MCP_LOCAL_READ_CHUNK="65536",
    )
    return env


def warm_cache(env: Mapping[str, str], chunk_file: Path) -> str:
    """One session that caches everything the timed sessions read; the cursor of
    BIG_PAPER's second chunk, which the chunk figures read again and again, and
    whose Markdown goes to `chunk_file` for the bare server to hand out."""
    peer = Peer([PWC_MCP_LOCAL], env)
    peer.handshake()
    peer.call("get_paper_info", paper=PAPER)
    cursor = str(peer.call("read_paper", paper=BIG_PAPER)["structuredContent"]["next_cursor"])
    chunk = peer.call("read_paper", paper=BIG_PAPER, cursor=cursor)["structuredContent"]
    chunk_file.write_text(chunk["markdown"], encoding="utf-8")
    read_whole(peer)
    peer.close()
    return cursor


def read_whole(peer: Peer) -> int:
    """Read BIG_PAPER from the start, following cursors; the number of chunks."""
    arguments: dict[str, Any] = {"paper": BIG_PAPER}
    chunks = 0
    while True:
        chunk = peer.call("read_paper", **arguments)["structuredContent"]
        chunks += 1
        if not chunk.get("next_cursor"):
            return chunks
        arguments["cursor"] = chunk["next_cursor"]


def startup(env: Mapping[str, str], runs: int, bare_argv: list[str]) -> tuple[Rows, FirstCalls]:
    """Start-up figures; then, on the same fresh servers, what a client does first.

    No untimed warm-up round: `warm_cache` has just run our server, which reads
    every file the bare server reads (the interpreter, the SDK) and more. Each
    spawn is timed to `initialize` and `tools/list`; after a client's pause, the
    even-numbered spawns read all of BIG_PAPER through its cursors (the bare server:
    as many chunks), the odd-numbered ones time a first and a second call, samples
    that `session` adds to its own.
    """
    ours: list[tuple[float, float, int]] = []
    bare: list[tuple[float, float, int]] = []
    reads: dict[str, list[float]] = {"ours": [], "bare": []}
    first_calls: FirstCalls = {"ours": [], "bare": []}
    listing: dict[str, Any] = {}
    chunks = 5
    for run in range(runs):
        peer = Peer([PWC_MCP_LOCAL], env)
        ours.append(peer.handshake())
        listing = peer.last_answer
        # The early path answered the handshake; a prompt waits for the full server (and
        # builds nothing a call needs), so what follows measures the calls, not the load,
        # which "spawn -> first tools/call" counts.
        peer.request("prompts/get", {"name": "find_papers", "arguments": {"topic": "x"}})
        time.sleep(PAUSE)
        if run % 2 == 0:
            started = time.perf_counter()
            chunks = read_whole(peer)
            reads["ours"].append(time.perf_counter() - started)
        else:
            first_calls["ours"].append(first_call_ratio(peer, OURS_CALL))
        peer.close()
        peer = Peer(bare_argv, env)
        bare.append(peer.handshake())
        time.sleep(PAUSE)
        if run % 2 == 0:
            started = time.perf_counter()
            for _ in range(chunks):
                peer.call("chunk")
            reads["bare"].append(time.perf_counter() - started)
        else:
            first_calls["bare"].append(first_call_ratio(peer, BARE_CALL))
        peer.close()
    rows: Rows = []
    for index, label in ((0, "spawn -> initialize"), (1, "spawn -> tools/list")):
        mine = statistics.median(r[index] for r in ours)
        floor = statistics.median(r[index] for r in bare)
        rows.append((label, ms(mine), ms(floor), mine / floor))
    rows.append(("tools/list bytes, all tools", str(ours[0][2]), str(bare[0][2]), None))
    rows += listing_budgets(listing, ours[0][2])
    mine, floor = statistics.median(reads["ours"]), statistics.median(reads["bare"])
    rows.append((f"full read after restart ({chunks} chunks)", ms(mine), ms(floor), mine / floor))
    return rows, first_calls


@dataclass(frozen=True)
class ToolCall:
    """The `tools/call` a per-call figure repeats; `arguments(i)` for its i-th time."""

    tool: str
    arguments: Callable[[int], dict[str, Any]]

    def __call__(self, peer: Peer, i: int) -> Any:
        """Call and wait for the answer."""
        return peer.call(self.tool, **self.arguments(i))

    def pipelined(self, peer: Peer, i: int) -> int:
        """Send without waiting; the request id."""
        return peer.send("tools/call", {"name": self.tool, "arguments": self.arguments(i)})


OURS_CALL = ToolCall("get_paper_info", lambda i: {"paper": PAPER})  # cached
BARE_CALL = ToolCall("echo", lambda i: {"text": str(i)})


def first_call_ratio(peer: Peer, call: ToolCall) -> float:
    """How many times longer a fresh server's first call takes than its second."""
    return ratio(timed(call, peer, 0), timed(call, peer, 1))


def listing_budgets(listing: dict[str, Any], wire_bytes: int) -> Rows:
    """`tools/list` bytes of the 21 hosted tools, and what each local group adds to it.

    Worked out from the all-tools answer instead of spawning a server per `tools`
    setting: a tool's entry is the same whichever others are listed, and the answer
    is compact JSON, so a listing of fewer tools is the same answer with fewer
    entries. Checked here: re-encoding the whole answer must give the wire size.
    """
    from pwc_local.server.bindings import all_tools

    TOOLS = all_tools()

    entries = {tool["name"]: tool for tool in listing["result"]["tools"]}

    def listing_bytes(names: list[str]) -> int:
        tools = [entries[name] for name in names]
        answer = {**listing, "result": {**listing["result"], "tools": tools}}
        return len(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode())

    every = [spec.name for spec in TOOLS]
    if listing_bytes(every) != wire_bytes:
        raise SystemExit("the listing is not compact JSON any more: spawn per tools setting")
    hosted = [spec.name for spec in TOOLS if spec.group == "hosted"]
    base = listing_bytes(hosted)
    rows: Rows = [("tools/list bytes, 21 hosted tools", str(base), "", None)]
    for group in ("library", "reading", "watch", "history"):
        extra = [spec.name for spec in TOOLS if spec.group == group]
        added = listing_bytes(hosted + extra) - base
        rows.append((f"tools/list bytes added by {group} tools", str(added), "", None))
    return rows


@dataclass
class Subject:
    """One server of the session figures, and what a call and a chunk are for it."""

    argv: list[str]
    call: ToolCall
    chunk: Callable[[Peer], Any]
    peer: Peer | None = None
    figures: dict[str, float] = field(default_factory=dict)


def session(
    env: Mapping[str, str], calls: int, cursor: str, bare_argv: list[str], first_calls: FirstCalls
) -> Rows:
    """Per-call figures of one session each; the first/second call row is the median
    over this session and the start-up spawns that timed one (`first_calls`)."""
    ours = Subject(
        [PWC_MCP_LOCAL],
        call=OURS_CALL,
        chunk=lambda peer: peer.call("read_paper", paper=BIG_PAPER, cursor=cursor),
    )
    bare, transport = (
        Subject(
            argv,
            call=BARE_CALL,
            chunk=lambda peer: peer.call("chunk"),
        )
        # the floor, then the floor on our transport
        for argv in (bare_argv, [*bare_argv, "--our-stdio"])
    )
    measure([ours, bare, transport], env, calls)
    o, b, t = ours.figures, bare.figures, transport.figures
    first_calls["ours"].append(o["first_ratio"])
    first_calls["bare"].append(b["first_ratio"])
    return [
        first_call_row(first_calls),
        ("CPU per cached call", us(o["cpu"]), us(b["cpu"]), ratio(o["cpu"], b["cpu"])),
        (
            "CPU per 64 KiB chunk",
            us(o["chunk_cpu"]),
            us(b["chunk_cpu"]),
            ratio(o["chunk_cpu"], b["chunk_cpu"]),
        ),
        (
            "  floor with pwc stdio: CPU per call",
            us(o["cpu"]),
            us(t["cpu"]),
            ratio(o["cpu"], t["cpu"]),
        ),
        (
            "  floor with pwc stdio: CPU per chunk",
            us(o["chunk_cpu"]),
            us(t["chunk_cpu"]),
            ratio(o["chunk_cpu"], t["chunk_cpu"]),
        ),
        (
            "throughput, 50 in flight",
            f"{o['throughput']:.0f}/s",
            f"{b['throughput']:.0f}/s",
            ratio(o["throughput"], b["throughput"]),
        ),
        *transport_rows(t, b),
    ]


def transport_rows(ours: Mapping[str, float], sdk: Mapping[str, float]) -> Rows:
    """The bare server on our stdio transport against the same server on the SDK's."""
    return [
        (
            f"  pwc stdio / SDK stdio: {label}",
            show(ours[key]),
            show(sdk[key]),
            ratio(ours[key], sdk[key]),
        )
        for label, key, show in (
            ("CPU per call", "cpu", us),
            ("CPU per chunk", "chunk_cpu", us),
            ("throughput", "throughput", lambda rate: f"{rate:.0f}/s"),
        )
    ]


def first_call_row(first_calls: FirstCalls) -> tuple[str, str, str, float | None]:
    """The first / second call row: medians over every fresh server that timed one."""
    first = statistics.median(first_calls["ours"])
    floor_first = statistics.median(first_calls["bare"])
    return ("first / second call", f"{first:.1f}x", f"{floor_first:.1f}x", first)


def measure(subjects: list[Subject], env: Mapping[str, str], calls: int) -> None:
    """First and second call after a pause, CPU per call and per chunk, throughput.

    Each server is spawned and its first two calls timed on its own; the CPU and
    throughput figures then take turns between the servers, a block of calls each,
    so that a machine that gets busier or quieter meanwhile (other jobs, frequency
    scaling) moves every server's figure alike instead of one server's only.
    """
    for subject in subjects:
        peer = subject.peer = Peer(subject.argv, env)
        peer.handshake()
        time.sleep(PAUSE)
        subject.figures["first_ratio"] = first_call_ratio(peer, subject.call)
    for subject in subjects:  # settle: caches, allocator
        for i in range(20):
            subject.call(subject.peer, i)
        subject.chunk(subject.peer)
    per_block = max(1, calls // BLOCKS)
    spent: dict[tuple[int, str], float] = {}
    rates: dict[int, list[float]] = {index: [] for index in range(len(subjects))}
    for _ in range(BLOCKS):
        for index, subject in enumerate(subjects):
            peer = subject.peer
            assert peer is not None
            before = peer.cpu_seconds()
            for i in range(per_block):
                subject.call(peer, i)
            middle = peer.cpu_seconds()
            for _ in range(per_block):
                subject.chunk(peer)
            spent[index, "cpu"] = spent.get((index, "cpu"), 0.0) + middle - before
            spent[index, "chunk_cpu"] = spent.get((index, "chunk_cpu"), 0.0) + (
                peer.cpu_seconds() - middle
            )
            started = time.perf_counter()
            for i in range(IN_FLIGHT):
                subject.call.pipelined(peer, i)
            for _ in range(IN_FLIGHT):
                peer.receive()
            rates[index].append(IN_FLIGHT / (time.perf_counter() - started))
    for index, subject in enumerate(subjects):
        for name in ("cpu", "chunk_cpu"):
            subject.figures[name] = spent[index, name] / (per_block * BLOCKS)
        subject.figures["throughput"] = statistics.median(rates[index])
        assert subject.peer is not None
        subject.peer.close()


def report(rows: Rows) -> None:
    print(f"\n{'figure':40} {'pwc-mcp-local':>14} {'bare':>10} {'ratio':>7}  target")
    for label, mine, floor, ratio in rows:
        # "full read after restart (5 chunks)": by its name; "... (x floor)": as labelled.
        target = TARGETS.get(label, None if "(x " in label else TARGETS.get(label.split(" (")[0]))
        verdict = ""
        if ratio is not None and math.isnan(ratio):
            verdict = "n/a (too few calls to measure CPU)"
        elif target is not None and ratio is not None:
            bound, kind = target
            met = ratio <= bound if kind == "max" else ratio >= bound
            verdict = f"{'<=' if kind == 'max' else '>='} {bound:g}  {'met' if met else 'MISSED'}"
        elif label.startswith("SIGINT"):
            verdict = "< 500 ms  " + ("met" if float(mine.split()[0]) < 500 else "MISSED")
        elif label.startswith("cache "):
            verdict = "< 3 s  " + ("met" if float(mine.split()[0]) < 3 else "MISSED")
        elif label in LISTING_BUDGETS:
            budget = LISTING_BUDGETS[label]
            verdict = f"<= {budget}  " + ("met" if int(mine) <= budget else "MISSED")
        shown = f"{ratio:7.2f}" if ratio is not None else " " * 7
        print(f"{label:40} {mine:>14} {floor:>10} {shown}  {verdict}")


def ratio(mine: float, floor: float) -> float:
    """mine / floor, or NaN when the floor measured zero (too few CPU clock ticks)."""
    return mine / floor if floor else math.nan


def timed(action: Callable[..., Any], *args: Any) -> float:
    """Seconds that `action(*args)` took."""
    started = time.perf_counter()
    action(*args)
    return time.perf_counter() - started


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs"


if __name__ == "__main__":
    main()
