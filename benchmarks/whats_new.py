"""How fast `whats_new` checks 50 watches against a catalog that takes 200 ms per request.

    python benchmarks/whats_new.py [--watches 50] [--delay 0.2]

Starts the loopback fake catalog, adds `--watches` watches of every kind (ten
benchmarks, four tasks, six papers, four authors, the rest searches) to a scratch
watch list, then times one `whats_new(mark_seen=False)`, the whole query-layer call
the tool makes, over real HTTP, with every catalog request held `--delay` seconds
before it is sent (what a distant catalog costs).

Prints the requests made, the time, the sum of the request delays (what one request
after another would take) and their ratio. The target (issue 20) is at most 2 s for
50 watches at 200 ms. Nothing passes or fails. Measured 2026-12-02 on the shared
2-core machine: 90 requests, 1.15-1.5 s with 16 watches at once (`CONCURRENCY`),
1.9-2.0 s with 8 before; 18 s one request after another.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pwc_local.queries.looks import whats_new  # noqa: E402
from pwc_local.queries.watch import watch  # noqa: E402
from pwc_local.store.watchlist import Watchlist  # noqa: E402
from pwc_local.upstream.http import HttpCatalog  # noqa: E402
from pwc_local.upstream.source import MarkdownChunk  # noqa: E402
from tests.fake_catalog import FakeCatalog  # noqa: E402

TARGETS = [
    *(
        ("benchmark", name)
        for name in ("ImageNet-1k", "COCO", "CIFAR-10", "MMLU", "MATH-500", "SWE-Bench Pro")
    ),
    *(("benchmark", name) for name in ("WikiText-103", "IAM", "IIIT5K", "AudioSet")),
    *(("task", name) for name in ("Image Classification", "Object Detection")),
    *(("task", name) for name in ("Machine Translation", "Language Modelling")),
    *(("paper", ref) for ref in ("1706.03762", "1512.03385", "2006.16236", "2307.09288")),
    *(("paper", ref) for ref in ("2302.13971", "2010.13154")),
    *(("author", name) for name in ("Kaiming He", "Yilun Du", "Ross Girshick", "Ashish Vaswani")),
]


class Delayed:
    """A catalog source that waits `delay` seconds before each request, and counts them."""

    def __init__(self, inner: HttpCatalog, delay: float) -> None:
        self.inner, self.delay, self.requests = inner, delay, 0

    async def get_json(self, path: str, params: Any = None, *, accept: Any) -> Any:
        self.requests += 1
        await anyio.sleep(self.delay)
        return await self.inner.get_json(path, params, accept=accept)

    async def read_markdown(self, paper: str, **options: Any) -> MarkdownChunk:
        self.requests += 1
        await anyio.sleep(self.delay)
        return await self.inner.read_markdown(paper, **options)


async def measure(count: int, delay: float) -> None:
    targets = list(TARGETS[:count])
    targets += [("query", f"attention transformer {n}") for n in range(count - len(targets))]
    with FakeCatalog() as fake, tempfile.TemporaryDirectory() as scratch:
        http = HttpCatalog(fake.api_url, timeout=30)
        try:
            with Watchlist.open(Path(scratch)) as watchlist:
                for kind, target in targets:
                    await watch(http, watchlist, kind, target, remove=False)
                source = Delayed(http, delay)
                started = time.perf_counter()
                answer = await whats_new(source, watchlist, mark_seen=False, cursor=None)  # type: ignore[arg-type]
                elapsed = time.perf_counter() - started
        finally:
            await http.aclose()
    checked = sum(report["status"] != "not_checked" for report in answer["watches"])
    serial = source.requests * delay
    print(f"watches checked        {checked} of {len(targets)}")
    print(f"catalog requests       {source.requests} at {delay * 1000:.0f} ms each")
    print(f"whats_new              {elapsed:.2f} s (target: at most 2 s for 50 at 200 ms)")
    print(f"one after another      {serial:.2f} s; ratio {elapsed / serial:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watches", type=int, default=50)
    parser.add_argument("--delay", type=float, default=0.2)
    options = parser.parse_args()
    anyio.run(measure, options.watches, options.delay)


if __name__ == "__main__":
    main()
