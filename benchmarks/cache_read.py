"""What the disk cache buys a `read_paper` call, measured through a real stdio session.

    python benchmarks/cache_read.py [--runs 30]

Starts the loopback catalog fake in this process and the installed `pwc-mcp-local`
as a subprocess (the SDK's stdio client, as an MCP client would), with a scratch
cache and key directory. Then, over `--runs` interleaved rounds, it times:

* a continuation chunk (64 KiB, with a cursor) fetched through the fake: the
  Markdown entries are cleared first, so the server has to ask the catalog;
* the same call again, now served from the disk cache;
* a first chunk (no cursor) with every cache entry cleared (so the paper lookup
  and the read both go to the fake), and the same call again, warm.

Finally it reads the whole paper once more from the start, following cursors,
and counts the requests the fake received meanwhile: a repeat read should make
none. Figures go to stdout; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for the fake in tests/

from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from pwc_local.store.cache import DiskCache  # noqa: E402
from tests.fake_catalog.server import FakeCatalog  # noqa: E402

PWC_MCP_LOCAL = str(Path(sys.executable).parent / "pwc-mcp-local")
PAPER = "1911.02116"  # the fake's 300 KB multi-byte document: five 64 KiB chunks


async def read_chunk(session: ClientSession, cursor: str | None = None) -> dict[str, Any]:
    arguments: dict[str, Any] = {"paper": PAPER}
    if cursor is not None:
        arguments["cursor"] = cursor
    result = await session.call_tool("read_paper", arguments)
    if result.is_error or result.structured_content is None:
        raise SystemExit(f"read_paper failed: {result.content}")
    return dict(result.structured_content)


async def timed(action: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await action()
    return time.perf_counter() - started


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def report(label: str, values: Sequence[float]) -> float:
    median, p90 = statistics.median(values), percentile(values, 0.9)
    print(f"  {label:44} median {median * 1000:7.2f} ms   p90 {p90 * 1000:7.2f} ms")
    return median


async def measure(runs: int, fake: FakeCatalog, root: Path) -> None:
    cache_dir = root / "cache"
    env = {
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_CACHE_HOME": str(root / "xdg-cache"),
        "PWC_MCP_LOCAL_CACHE_DIR": str(cache_dir),
        "PWC_API_URL": fake.api_url,
    }
    # The same cache the server uses; clearing it here is what `cache clear` does.
    cache = DiskCache(cache_dir)
    params = StdioServerParameters(command=PWC_MCP_LOCAL, env=env)
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            first = await read_chunk(session)  # warm-up; gives the cursor of chunk 2
            cursor = first["next_cursor"]
            await read_chunk(session, cursor)

            cold_next: list[float] = []
            warm_next: list[float] = []
            cold_first: list[float] = []
            warm_first: list[float] = []
            for _ in range(runs):
                cache.clear(["markdown"])
                cold_next.append(await timed(lambda: read_chunk(session, cursor)))
                warm_next.append(await timed(lambda: read_chunk(session, cursor)))
                cache.clear()
                cold_first.append(await timed(lambda: read_chunk(session)))
                warm_first.append(await timed(lambda: read_chunk(session)))

            print(f"\nread_paper through stdio, {runs} runs each (chunk of 64 KiB)")
            fetched = report("continuation chunk, fetched through the fake", cold_next)
            cached = report("continuation chunk, from the disk cache", warm_next)
            print(f"  {'':44} cache is {fetched / cached:.1f}x faster")
            fetched = report("first chunk, cold (lookup + read via fake)", cold_first)
            cached = report("first chunk, from the disk cache", warm_first)
            print(f"  {'':44} cache is {fetched / cached:.1f}x faster")

            cache.clear()
            before = len(fake.requests)
            chunks = [await read_chunk(session)]
            while chunks[-1]["next_cursor"]:
                chunks.append(await read_chunk(session, chunks[-1]["next_cursor"]))
            cold_requests = len(fake.requests) - before
            before = len(fake.requests)
            again = [await read_chunk(session)]
            while again[-1]["next_cursor"]:
                again.append(await read_chunk(session, again[-1]["next_cursor"]))
            repeat_requests = len(fake.requests) - before
            same = [c["markdown"] for c in again] == [c["markdown"] for c in chunks]
            print(f"\nwhole paper ({len(chunks)} chunks) read from the start, following cursors")
            print(f"  upstream requests, first read with an empty cache: {cold_requests}")
            print(f"  upstream requests, repeat read:                    {repeat_requests}")
            print(f"  repeat read identical: {same}")
    cache.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="timed rounds")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="pwc-cache-bench-") as scratch, FakeCatalog() as fake:
        anyio.run(measure, args.runs, fake, Path(scratch))


if __name__ == "__main__":
    main()
