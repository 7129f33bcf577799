"""Three servers, a `library add`, a `cache prune` and a flapping catalog (issue 18 item 5).

The scenario is `tests.multi_client`; this runs it for 40 s (under a minute of wall
time with the spawns) and checks what the issue asks: every call answered within
its bound (the short budget, or the normal timeout for a call that met an outage
first), no `internal_error`, all 30 papers saved byte for byte as the catalog
serves them, and every cache entry read back verifies; and every paper published for
the watches meanwhile is reported exactly once, by one of the servers' `whats_new`
or the `whats-new` runs (issue 27). The bounds carry slack for a shared 2-core
machine; `benchmarks/clients.py` runs it longer and prints figures.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pwc_local.queries.looks import CLAIM_WAIT
from tests.multi_client import BUDGET, TIMEOUT, run_clients, while_up, worst_calls

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SECONDS = 40.0
SLACK = 3.0  # three servers, a library add and the fake on two shared cores
# A look waits for another process's look at most CLAIM_WAIT s (then says
# `library_busy`), and checks each watch within TIMEOUT; a `whats-new` run also starts
# a Python process first. Idle, every look ends within 2 * TIMEOUT; at load 8-9 on two
# cores a `whats-new` run took 17 s, its start alone several seconds. The bound leaves
# that room: it is there to catch a look that hangs or waits without end. What a look
# is made of is asserted by the counts whatever the clock says: a claim never released,
# a change lost or doubled.
LOOK_BOUND = CLAIM_WAIT + 2 * TIMEOUT + 3 * SLACK  # 29 s


def test_three_servers_a_library_add_and_a_prune_on_a_flapping_network(
    tmp_path: Path, fake_catalog: Any
) -> None:
    outcome = run_clients(tmp_path, fake_catalog, SECONDS)

    assert outcome.outages >= 5
    assert len(outcome.calls) > 100, len(outcome.calls)
    assert not [c for c in outcome.calls if c.error and "internal_error" in c.error]
    # No call hangs; one that waited longer than the budget met an outage first
    # (at most one per outage and server).
    assert not worst_calls(outcome, TIMEOUT + SLACK), worst_calls(outcome, TIMEOUT + SLACK)[:3]
    slow = worst_calls(outcome, BUDGET + SLACK)
    assert len(slow) <= 3 * outcome.outages, slow[:5]
    # Calls failed only as outages do, with the clear sentence, and none made while
    # the catalog answered failed: the outage memory never outlives the outage.
    for call in outcome.calls:
        if call.error is not None:
            assert "could not be reached" in call.error, call
    up = while_up(outcome)
    assert len(up) > len(outcome.calls) / 3
    assert not [c for c in up if c.error], [c for c in up if c.error][:3]
    assert outcome.prune_status == 0
    assert outcome.add_runs and outcome.add_runs[-1] == 0, outcome.add_runs
    assert outcome.missing_papers == []
    assert outcome.cache_entries > 0 and outcome.damaged_entries == 0
    # The watch list: no change lost or doubled, every look answered within its bounds
    # (waiting at most for another look, then its own; LOOK_BOUND).
    assert len(outcome.published) > 20 and len(outcome.looks) > 20
    assert not [look for look in outcome.looks if look.error], outcome.looks[:3]
    reported = Counter(item for look in outcome.looks for item in look.reported)
    assert not [item for item, count in reported.items() if count > 1]
    assert set(reported) == set(outcome.published), set(outcome.published) - set(reported)
    slowest = sorted(outcome.looks, key=lambda look: -look.took)[:3]
    assert slowest[0].took < LOOK_BOUND, slowest
