"""`python benchmarks/run.py` runs end to end and prints every figure (tiny counts).

A smoke run: it checks that the one benchmark command still works against the
installed server and reports each ratio; it asserts no timing (those live in the
command's own target column and docs/benchmarks.md, never in tests).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
FIGURES = (
    "spawn -> initialize",
    "spawn -> tools/list",
    "tools/list bytes",
    "first / second call",
    "CPU per cached call",
    "CPU per 64 KiB chunk",
    "throughput, 50 in flight",
    "full read after restart",
    "cache prune, 300 entries",
    "cache stats, 300 entries",
)


def test_the_benchmark_command_prints_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/run.py", "--runs", "1", "--calls", "3", "--entries", "300"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    for figure in FIGURES:
        assert any(line.startswith(figure) for line in lines), (figure, done.stdout)
    assert "tools/list bytes" in done.stdout and "met" in done.stdout
