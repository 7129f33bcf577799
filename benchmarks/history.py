"""The state of the art through time on a 2,000-row leaderboard, cold and warm (issue 29).

    python benchmarks/history.py [--rows 2000] [--latency 0.05] [--calls 21]

The fake catalog (tests/fake_catalog) with its dated leaderboards (`HistoryBoards`,
History Big of `--rows` rows), every answer held `--latency` seconds; the installed
`pwc-mcp-local` in a scratch home, driven over raw stdio (`peer.py`), beside the bare
one-tool SDK server (`bare.py`) in the same run:

| figure                         | ours                                       | floor        |
| ------------------------------ | ------------------------------------------ | ------------ |
| `sota_history`, cold cache     | the first call, 1 s after the handshake    |              |
| `sota_history`, warm           | median of `--calls` calls from the cache   | `echo`       |
| CPU per warm call              | the server's CPU over those calls          | `echo`'s     |
| `who_beat_paper`, first / warm | a paper of History Big (its board cached)  | `echo`       |

Targets (issue 29): cold at most 3 s against a 50 ms catalog, warm at most 50 ms.
Timings on a shared machine move by half between runs: read them beside the floor.
It prints figures; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the fake catalog lives in tests/

from benchmarks.peer import Peer  # noqa: E402
from benchmarks.run import BARE, PWC_MCP_LOCAL, compile_package, ms, scratch_env  # noqa: E402

PAUSE = 1.0  # after the handshake: the runtime is built in the background meanwhile
BENCHMARK = "History Big"
PAPER = "97200"  # a generated paper of History Big (catalog ID)


def timed_call(peer: Peer, tool: str, **arguments: object) -> float:
    started = time.perf_counter()
    peer.call(tool, **arguments)
    return time.perf_counter() - started


def warm(peer: Peer, calls: int, tool: str, **arguments: object) -> tuple[float, float]:
    """Median seconds per call, and CPU seconds per call, over `calls` calls."""
    cpu = peer.cpu_seconds()
    times = [timed_call(peer, tool, **arguments) for _ in range(calls)]
    return statistics.median(times), (peer.cpu_seconds() - cpu) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2000, help="rows of History Big")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per catalog answer")
    parser.add_argument("--calls", type=int, default=21, help="warm calls per figure")
    args = parser.parse_args()

    from tests.fake_catalog import FakeCatalog, HistoryBoards

    print(f"python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs")
    print(f"load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "")
    compile_package()
    fake = FakeCatalog()
    fake.apply(HistoryBoards(big_rows=args.rows))
    fake.latency = args.latency
    fake.start()
    try:
        with tempfile.TemporaryDirectory(prefix="pwc-history-") as scratch:
            env = scratch_env(Path(scratch), fake.api_url)
            ours = Peer([PWC_MCP_LOCAL], env)
            ours.handshake()
            time.sleep(PAUSE)
            before = len(fake.requests)
            cold = timed_call(ours, "sota_history", benchmark=BENCHMARK)
            requests = len(fake.requests) - before
            warm_median, warm_cpu = warm(ours, args.calls, "sota_history", benchmark=BENCHMARK)
            beaten_cold = timed_call(ours, "who_beat_paper", paper=PAPER)
            beaten_warm, beaten_cpu = warm(ours, args.calls, "who_beat_paper", paper=PAPER)
            ours.close()
            bare = Peer(BARE, env)
            bare.handshake()
            time.sleep(PAUSE)
            echo_median, echo_cpu = warm(bare, args.calls, "echo", text="x")
            bare.close()
    finally:
        fake.stop()

    print(f"\n{args.rows:,} rows, {args.latency * 1000:.0f} ms per catalog answer")
    print(f"{'figure':44} {'pwc-mcp-local':>14} {'bare echo':>10} {'ratio':>7}  target")
    rows = [
        (f"sota_history, cold ({requests} requests)", cold, None, "<= 3 s", cold <= 3),
        ("sota_history, warm (median)", warm_median, echo_median, "<= 50 ms", warm_median <= 0.05),
        ("CPU per warm sota_history", warm_cpu, echo_cpu, "", None),
        ("who_beat_paper, its board cached", beaten_cold, None, "", None),
        ("who_beat_paper, warm (median)", beaten_warm, echo_median, "", None),
        ("CPU per warm who_beat_paper", beaten_cpu, echo_cpu, "", None),
    ]
    for label, mine, floor, target, met in rows:
        shown_floor = ms(floor) if floor is not None else ""
        ratio = f"{mine / floor:7.1f}" if floor else " " * 7
        verdict = f"{target}  {'met' if met else 'MISSED'}" if met is not None else ""
        print(f"{label:44} {ms(mine):>14} {shown_floor:>10} {ratio}  {verdict}")


if __name__ == "__main__":
    main()
