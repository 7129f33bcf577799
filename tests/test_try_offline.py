"""Trying the server without the network, as the README's "Try it" passage says.

`python -m tests.fake_catalog` (run in the checkout, standard library only) starts the
test suite's loopback catalog, prints its URL and stays up until Ctrl-C or SIGTERM.
Every `pwc-mcp-local call ...` line in the README is then run, through the installed
command, against that very process, so an example that stops working against the
test catalog (a benchmark name it does not have) fails here.
"""

from __future__ import annotations

import json
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.installed import InstalledServer

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
LISTENING = re.compile(r"fake catalog listening on (http://127\.0\.0\.1:\d+/api/v1)")


def readme_calls() -> list[list[str]]:
    """Every `pwc-mcp-local call` line of the README's shell blocks, as an argv."""
    calls, in_shell = [], False
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_shell = not in_shell and line.strip() == "```sh"
        elif in_shell and line.startswith("pwc-mcp-local call "):
            calls.append(shlex.split(line, comments=True))
    return calls


class Catalog:
    """The README's command (any free port instead of 8765) as a running process, its
    stderr read line by line by a thread so that each wait for a line is bounded."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.fake_catalog", "--port", "0"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        match = LISTENING.search(self.line())
        assert match, "no URL printed"
        self.url = match.group(1)
        self.hint = self.line()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)
        self.lines.put("")  # end of output

    def line(self) -> str:
        return self.lines.get(timeout=30)

    def rest(self) -> str:
        """Everything printed after the two opening lines, once the process ended."""
        self._reader.join(timeout=30)
        return "".join(iter(self.lines.get_nowait, ""))

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)


@contextmanager
def started_catalog() -> Iterator[Catalog]:
    catalog = Catalog()
    try:
        yield catalog
    finally:
        catalog.close()


@pytest.mark.e2e
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_catalog_command_prints_a_url_that_answers_and_stops_on_a_signal(
    stop: signal.Signals,
):
    with started_catalog() as catalog:
        tasks = f"{catalog.url}/tasks/?page=1&page_size=1"
        with urllib.request.urlopen(tasks, timeout=10) as answer:
            assert answer.status == 200
            assert json.load(answer)["results"]
        assert f"PWC_API_URL={catalog.url} pwc-mcp-local call" in catalog.hint
        catalog.process.send_signal(stop)
        assert catalog.process.wait(timeout=30) == 0
        assert "Traceback" not in catalog.rest()


def test_the_readme_says_how_to_start_it_and_point_the_server_at_it():
    text = README.read_text(encoding="utf-8")
    assert "python -m tests.fake_catalog --port 8765" in text
    assert "PWC_API_URL=http://127.0.0.1:8765/api/v1" in text


@pytest.mark.e2e
def test_every_readme_call_example_works_against_the_test_catalog(tmp_path: Path):
    calls = readme_calls()
    benchmark = [argv for argv in calls if "get_benchmark" in argv]
    assert len(calls) >= 3 and benchmark  # the examples are found, the leaderboard one too
    with started_catalog() as catalog:
        # The README's own catalog command, not `fake_catalog`: the home is InstalledServer's.
        home = InstalledServer(tmp_path, api_url=catalog.url)
        for argv in calls:
            result = home.command(*argv[1:], timeout=60)
            assert result.returncode == 0, (shlex.join(argv), result.stderr)
            assert result.stdout.strip(), shlex.join(argv)
