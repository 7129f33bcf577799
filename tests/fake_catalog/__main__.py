"""Run the fake catalog by hand: `python -m tests.fake_catalog --port 8765`.

For trying every tool without the network (README, "Try it"), benchmarks and manual
checks against a real process (catalog-api.md §1.1: point the client at it with
`PWC_API_URL`). Standard library only, so it runs from a plain checkout. The URL
goes to stderr; Ctrl-C or SIGTERM stops it.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from .data_history import HistoryBoards
from .server import FakeCatalog


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fake_catalog", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 = any free)")
    parser.add_argument(
        "--filler-papers",
        type=int,
        default=0,
        metavar="N",
        help="add N filler papers so keyword searches page deeply",
    )
    parser.add_argument(
        "--history",
        action="store_true",
        help="add the dated leaderboards (Vision History, Speech History, History Big)",
    )
    parser.add_argument(
        "--latency", type=float, default=0.0, metavar="S", help="wait S seconds before each answer"
    )
    args = parser.parse_args(argv)
    fake = FakeCatalog(port=args.port)
    fake.latency = args.latency
    if args.filler_papers:
        fake.add_filler_papers(args.filler_papers)
    if args.history:
        fake.apply(HistoryBoards())
    fake.start()
    print(f"fake catalog listening on {fake.api_url}", file=sys.stderr, flush=True)
    print(
        f"point the server at it: PWC_API_URL={fake.api_url} pwc-mcp-local call get_paper_info "
        "paper=1706.03762 (Ctrl-C stops the catalog)",
        file=sys.stderr,
        flush=True,
    )
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
