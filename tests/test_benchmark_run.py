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


def test_the_history_benchmark_prints_its_figures() -> None:
    # Issue 29's figures, on a small board and a catalog without latency (a smoke run).
    done = subprocess.run(
        [
            sys.executable,
            "benchmarks/history.py",
            "--rows",
            "300",
            "--latency",
            "0",
            "--calls",
            "2",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for figure in ("sota_history, cold (4 requests)", "sota_history, warm", "who_beat_paper"):
        assert figure in done.stdout, (figure, done.stdout)
