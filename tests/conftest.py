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
"""

from __future__ import annotations

import multiprocessing.process
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest

from tests.fake_catalog import FakeCatalog
from tests.installed import InstalledServer
from tests.scripted_catalog import ScriptedCatalog


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
    return InstalledServer(tmp_path)


@pytest.fixture
def scripted() -> ScriptedCatalog:
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
