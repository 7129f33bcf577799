"""The watch list as the queries see it: its records, its bound and its protocol.

`pwc_local.store.watchlist.Watchlist` implements `WatchStore`; `pwc_local.queries.watch`
is written against the protocol. A `Watch` names what is watched, its `Baseline` is the
last look, and a `Move` asks the store to replace a baseline it still holds.

A look that will move baselines first *claims* its watches (`WatchStore.claim`): a
claim is a row in the library database naming the look and until when it holds,
so two processes looking at once never report the same change twice. The look
then delivers its report and moves each baseline with `deliver` (which also drops
the claim), or gives up with `release`; a claim of a process that died lapses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pwc_local.failures import CodedError
from pwc_local.upstream.errors import ExpiredCursor, InvalidCursor, UsageError

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


@dataclass(frozen=True)
class Claim:
    """What `WatchStore.claim` found: every watch in list order, and who holds it.

    A watch this look holds now comes with the baseline read in the claiming
    transaction; one another live look holds comes with `None`. `looking` counts
    those of the latter whose look is still looking (done in seconds, worth a
    short wait); the others' reports wait for their reader (whats_new pages).
    """

    watches: list[tuple[Watch, Baseline | None]]
    looking: int


class WatchClaimed(CodedError):
    """Another look holds this watch: it reports its changes, this one does not."""

    code = "library_busy"
    sentence = (
        "another look (whats_new in another client, or pwc-mcp-local whats-new) is "
        "reporting this watch; look again once it is done (at most 5 minutes)."
    )


class LookCursorUnknown(ExpiredCursor):
    """A whats_new cursor this server holds no look for (expired, or another server's)."""

    sentence = (
        "unknown or expired whats_new cursor (a server keeps a look's pages for 5 minutes); "
        "call whats_new without cursor: watches not shown yet kept their baselines, so "
        "their changes come again."
    )


class LookCursorInvalid(InvalidCursor):
    """A whats_new cursor that is not one whats_new gave."""

    sentence = (
        "invalid whats_new cursor; pass the exact next_cursor of the previous whats_new "
        "result, or omit cursor to look again."
    )


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

    def claim(self, look: str, until: float, now: float) -> Claim:
        """Hold every watch no other live look holds (and keep those `look` holds) until `until`."""
        ...

    def deliver(
        self, look: str, moves: Sequence[Move], keep: Sequence[Move], until: float, now: float
    ) -> set[tuple[str, str]]:
        """Move `moves` and drop their claims; hold `keep` until `until` (paging).

        Only watches `look` still holds take part; returns their `(kind, key)`.
        """
        ...

    def release(self, look: str) -> None:
        """Drop every claim of `look`, moving nothing."""
        ...
