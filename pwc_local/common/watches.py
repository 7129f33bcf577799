"""The watch list as the queries see it: its records, its bound and its protocol.

`pwc_local.store.watchlist.Watchlist` implements `WatchStore`; `pwc_local.queries.watch`
is written against the protocol. A `Watch` names what is watched, its `Baseline` is the
last look, and a `Move` asks the store to replace a baseline it still holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pwc_local.upstream.errors import UsageError

MAX_WATCHES = 100


class WatchLimitReached(UsageError):
    """The list holds `MAX_WATCHES` watches already; the message says how to make room."""


def limit_reached() -> WatchLimitReached:
    return WatchLimitReached(
        f"the watch list holds {MAX_WATCHES} watches, its limit; remove one first "
        "(watch with remove=true, or pwc-mcp-local watch remove KIND TARGET)"
    )


@dataclass(frozen=True)
class Watch:
    """One watch. `key` is the canonical form of `target` (see `queries.watch`)."""

    kind: str
    key: str
    target: str
    name: str
    created_at: float
    looked_at: float


@dataclass(frozen=True)
class Baseline:
    """The last look at one watch: `snapshot` (JSON-able) taken at `taken_at`.

    `snapshot` is `None` when the stored one is missing or fails its digest;
    `taken_at` is then still the row's (`None` without a row), for `Move.replaces`.
    """

    taken_at: float | None
    snapshot: dict[str, Any] | None


@dataclass(frozen=True)
class Move:
    """Move a watch's baseline to `snapshot`, if it is still the one taken at `replaces`."""

    kind: str
    key: str
    replaces: float | None
    snapshot: dict[str, Any]


class WatchStore(Protocol):
    """What `pwc_local.queries.watch` needs of `pwc_local.store.watchlist.Watchlist`."""

    def watches(self) -> list[Watch]: ...

    def looks(self) -> list[tuple[Watch, Baseline]]: ...

    def add(
        self, kind: str, key: str, *, target: str, name: str, snapshot: dict[str, Any]
    ) -> tuple[Watch, bool]:
        """Add a watch with `snapshot` as its baseline; `(watch, added)`."""
        ...

    def remove(self, kind: str, key: str) -> bool: ...

    def move(self, moves: Sequence[Move], now: float | None = None) -> int: ...
