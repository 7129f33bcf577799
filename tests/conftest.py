"""Shared pytest fixtures.

Catalogs for tests, from the most faithful to the most controllable:

* `fake_catalog` starts a fresh loopback fake of the catalog API for one test (new
  port, fresh data, no faults, empty request log) and stops it afterwards;
  `fake_catalog_session` is one fake shared by a whole session for read-only use
  (do not install faults or change its data). Both yield a
  `tests.fake_catalog.FakeCatalog`: `.api_url`, `.requests`, `.faults`, `.stop()`,
  `.start()` and friends.
* `scripted` is an empty `tests.scripted_catalog.ScriptedCatalog`: routes and
  failures a unit test scripts itself, behind a real `HttpCatalog`, no sockets.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fake_catalog import FakeCatalog
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
def scripted() -> ScriptedCatalog:
    return ScriptedCatalog()
