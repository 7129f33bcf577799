"""Several clients at once on a flapping network, for longer than the suite can afford.

    python benchmarks/clients.py [--seconds 120]

The scenario of issue 18 item 5 (`tests/multi_client.py`): three installed servers
on one cache and one library, a `library add` of 30 papers, one `cache prune`, and
the loopback catalog refusing connections 2 s of every 6. The e2e test runs it for
40 s and asserts; this prints what happened over `--seconds`: call latencies (all,
and those made wholly while the catalog answered), failures, the library and the
cache at the end. It is a script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the fake catalog and the scenario live in tests/

from tests.fake_catalog.server import FakeCatalog  # noqa: E402
from tests.multi_client import (  # noqa: E402
    BUDGET,
    TIMEOUT,
    percentile,
    run_clients,
    while_up,
    worst_calls,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the network flaps")
    args = parser.parse_args()
    fake = FakeCatalog().start()
    try:
        with tempfile.TemporaryDirectory(prefix="pwc-clients-") as scratch:
            outcome = run_clients(Path(scratch), fake, args.seconds)
    finally:
        fake.stop()
    took = [c.took for c in outcome.calls]
    up = while_up(outcome)
    failed = [c for c in outcome.calls if c.error]
    rows = [
        ("wall time, all included", f"{outcome.seconds:.1f} s"),
        ("refusal windows (2 s each)", str(outcome.outages)),
        ("calls, 3 servers", str(len(outcome.calls))),
        ("call p50 / p95 / max", " / ".join(f"{percentile(took, q):.2f}" for q in (0.5, 0.95, 1))),
        (
            f"calls over the budget + 1 s ({BUDGET + 1:g} s)",
            str(len(worst_calls(outcome, BUDGET + 1))),
        ),
        (f"calls over the timeout ({TIMEOUT:g} s)", str(len(worst_calls(outcome, TIMEOUT)))),
        ("failed calls (outage sentence)", str(len(failed))),
        ("failed calls while the catalog answered", str(sum(1 for c in up if c.error))),
        ("internal_error", str(sum(1 for c in failed if "internal_error" in (c.error or "")))),
        ("library add runs (exit statuses)", " ".join(map(str, outcome.add_runs))),
        ("papers not saved byte for byte", str(len(outcome.missing_papers))),
        ("cache prune exit status", str(outcome.prune_status)),
        ("cache entries / damaged", f"{outcome.cache_entries} / {outcome.damaged_entries}"),
    ]
    for label, value in rows:
        print(f"{label:45} {value}")


if __name__ == "__main__":
    main()
