"""Shared pytest fixtures.

Catalogs for tests, from the most faithful to the most controllable:

* `fake_catalog` starts a fresh loopback fake of the catalog API for one test (new
  port, fresh data, no faults, empty request log) and stops it afterwards;
  `fake_catalog_session` is one fake shared by a whole session for read-only use
  (do not install faults or change its data). Both yield a
  `tests.fake_catalog.FakeCatalog`: `.api_url`, `.requests`, `.faults`, `.stop()`,
  `.start()` and friends.
* `installed_server` spawns the installed `pwc-mcp-local` over stdio with a private
  home under `tmp_path` (`tests.installed.InstalledServer`); tests using it are
  `e2e`.
* `scripted` is an empty `tests.scripted_catalog.ScriptedCatalog`: routes and
  failures a unit test scripts itself, behind a real `HttpCatalog`, no sockets.

Every test that starts a process (the installed server, the CLI, a helper script)
is marked `e2e`, which keeps `pytest -m "not e2e"` a fast lane of in-process tests.
`_no_processes` holds the line: in a test without the marker, starting a process
(in the test or in a fixture it sets up) fails the test with the reason.

The suite runs in pytest-xdist workers (`-n auto --dist loadfile` in pyproject.toml),
one more than there are cores: much of an e2e test is waiting for a spawned process,
and a worker that waits leaves its core to another. A command line that names test
files or node ids runs in one process: starting workers would take longer than those
tests. `-n N` (or PYTEST_XDIST_AUTO_NUM_WORKERS) chooses the number.
"""

from __future__ import annotations

import multiprocessing.process
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from unittest import mock

import pytest

from tests.fake_catalog import FakeCatalog

# The fixtures import the MCP client and the HTTP catalog when a test asks for them:
# the xdist controller loads this file too and runs no test, and the SDK's import
# alone is about 1.3 s of CPU.
if TYPE_CHECKING:
    from tests.installed import InstalledServer
    from tests.scripted_catalog import ScriptedCatalog

# pytest rewrites the asserts of every test module as it imports them, after this file
# (about 4 s of CPU for this suite), and caches the result as bytecode, unless
# PYTHONDONTWRITEBYTECODE is set, as it is on some machines and CI runners: then every
# run, and every xdist worker, rewrites them all again. The suite's bytecode goes to
# __pycache__ directories (ignored by git) whatever that variable says.
sys.dont_write_bytecode = False


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """How many workers `-n auto` starts: see the module docstring."""
    chosen = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "")
    if chosen.isdigit():
        return int(chosen)
    if any(".py" in arg for arg in config.args):
        return 0
    return (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The order in which test files start (only that; never what a file does).

    xdist hands each worker the next whole file in this order: first the files
    marked `slow` (the longest, so that none is left to start near the end while
    the other workers idle), then every other file with e2e tests, then the
    in-process ones; within each group, collection order. A file becomes `slow`
    with `pytestmark = pytest.mark.slow` when it takes a large share of a worker
    (about 20 s or more of the whole suite on an idle 2-core machine).
    """
    marked = {
        name: {item.path for item in items if item.get_closest_marker(name) is not None}
        for name in ("slow", "e2e")
    }
    first = {path: position for position, path in enumerate(dict.fromkeys(i.path for i in items))}

    def start(item: pytest.Item) -> tuple[bool, bool, int]:
        return (item.path not in marked["slow"], item.path not in marked["e2e"], first[item.path])

    items.sort(key=start)  # stable: tests keep their order within a file


@pytest.fixture
def anyio_backend() -> str:
    """Async tests (`pytest.mark.anyio`) run on asyncio, the server's loop, alone.

    anyio's own fixture would run each once per installed backend.
    """
    return "asyncio"


@pytest.fixture
def fake_catalog() -> Iterator[FakeCatalog]:
    fake = FakeCatalog().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture(scope="session")
def fake_catalog_session() -> Iterator[FakeCatalog]:
    fake = FakeCatalog().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def installed_server(tmp_path: Path) -> InstalledServer:
    from tests.installed import InstalledServer

    return InstalledServer(tmp_path)


@pytest.fixture
def scripted() -> ScriptedCatalog:
    from tests.scripted_catalog import ScriptedCatalog

    return ScriptedCatalog()


@contextmanager
def _no_processes(item: pytest.Item) -> Iterator[None]:
    """Outside `e2e` tests, starting a process (subprocess, multiprocessing) fails."""
    if item.get_closest_marker("e2e") is not None:
        yield
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"{item.name} starts a process: mark it @pytest.mark.e2e")

    with (
        mock.patch.object(subprocess.Popen, "__init__", refuse),
        mock.patch.object(multiprocessing.process.BaseProcess, "start", refuse),
    ):
        yield


# Setup too: a module-scoped fixture that spawns a server starts it there.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _no_processes(item):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _no_processes(item):
        yield
