"""Shared pytest fixtures.

`fake_catalog` starts a fresh loopback fake of the catalog API for one test (new
port, fresh data, no faults, empty request log) and stops it afterwards;
`fake_catalog_session` is one fake shared by a whole session for read-only use
(do not install faults or change its data). Both yield a
`tests.fake_catalog.FakeCatalog`: `.api_url`, `.requests`, `.faults`,
`.stop()`, `.start()` and friends.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fake_catalog import FakeCatalog


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
