"""A look at every watch: who reports it, its report, its pages, and when baselines move.

`whats_new` (the tool) and `take_look` + `deliver_look` (the command), over the
per-watch machinery of `pwc_local.queries.watch` (`look`, `compare`, `baseline_of`):

    await whats_new(catalog, watchlist, timeout, mark_seen=True, cursor=None)  # page 1
    look = await take_look(catalog, watchlist, timeout, mark_seen=True)  # the command:
    ...write the whole report, flush...; await deliver_look(watchlist, look)

Deliver, then move: with `mark_seen` a look first claims its watches in the library
database (`WatchStore.claim`: one look at a time per watch, across processes; a
watch another look is reporting is waited for briefly, else `not_checked` with
`library_busy`), and a watch's baseline moves only once its report is delivered:
the command after writing and flushing all of it, the tool when the page holding
the watch's last change is answered (`whats_new` says why). A report that could not
be written moves nothing, so the next look shows the same changes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio

from pwc_local.common.watches import (
    Baseline,
    LookCursorInvalid,
    LookCursorUnknown,
    Move,
    Watch,
    WatchClaimed,
    WatchStore,
)
from pwc_local.failures import CodedError, coded_text
from pwc_local.queries.watch import (
    NO_WATCHES,
    SCHEMA_VERSION,
    Change,
    Snapshot,
    baseline_of,
    compare,
    in_thread,
    iso_time,
    look,
    utc_now,
    window_exceeded,
)
from pwc_local.upstream.errors import UpstreamTimeout
from pwc_local.upstream.source import CatalogSource

logger = logging.getLogger(__name__)

# A page of whats_new's answer: at most this much JSON (its text is shorter), so the
# answer stays far inside the 2 MiB bound and a model reads it in one go.
PAGE_BYTES = 64 * 1024
CLAIM_SECONDS = 300.0  # how long a look holds its watches, renewed by each page
CLAIM_WAIT = 10.0  # how long a look waits for another process's look to finish
CLAIM_POLL = 0.1
# Watches looked at once: 50 watches at 200 ms a request take 1.2-1.5 s with 16, 2.0 s
# with 8 (benchmarks/whats_new.py); a paper's look sends 3 requests at once, so the
# catalog sees at most 48.
CONCURRENCY = 16
UNREADABLE = "the stored baseline could not be read; this look is the new baseline"
BUSY = coded_text(WatchClaimed())


async def whats_new(
    catalog: CatalogSource,
    watchlist: WatchStore,
    timeout: float | None = None,
    *,
    mark_seen: bool,
    cursor: str | None,
    now: Callable[[], float] | None = None,
) -> dict[str, Any]:
    """One page of what the catalog has now compared with each watch's baseline.

    `timeout` bounds each watch's look (seconds; the tool passes the `timeout` setting).
    Without `cursor` a new look is taken (`take_look`) and its first page answered;
    with one, the page it names of a look this process holds (`mark_seen` is then
    the look's own).

    `{"schema_version", "next_cursor", "checked_at", "watches": [{"kind", "target",
    "name", "previous_look", "status", "reason", "changes", "more"}]}`, watches
    oldest first, `more` counting the watch's changes on the next pages; with
    nothing watched, a `note` says so in words.

    Why baselines move as pages are answered, not on a later acknowledgement: a
    page is at most `PAGE_BYTES` of JSON, so the transport never refuses it for
    size; and a client that asks once and stops (most do) would otherwise see the
    same changes on every call. A page's watches move when it is answered; the
    rest stay claimed (`CLAIM_SECONDS`, renewed by each page) and unmoved, so a
    client that stops paging, or a server that exits, loses nothing: the next look
    reports them (a new look without cursor frees the pages nobody asked for, whose
    changes then come again; those of a watch cut across pages, from its start).
    The cursor is a random look ID and a page number, not signed: it names pages
    this process holds in memory and carries nothing to trust.
    """
    if cursor is None:
        await _let_go(watchlist)
        taken = await take_look(catalog, watchlist, timeout, mark_seen=mark_seen, now=now)
        held = _Held(taken, page_layout(taken.reports))
        number = 0
        if len(held.pages) > 1:
            _hold(held)
    else:
        look_id, number = _parsed_cursor(cursor)
        found = _HELD.get(look_id)
        if found is None or found.expires <= time.monotonic() or number >= len(found.pages):
            raise LookCursorUnknown()
        held = found
    try:
        return await _serve(watchlist, held, number)
    except BaseException:
        _HELD.pop(held.look.id, None)
        if held.look.mark_seen:
            with anyio.CancelScope(shield=True):
                await in_thread(_release_quietly, watchlist, held.look.id)
        raise


@dataclass(frozen=True)
class Look:
    """One look at every watch: a report per watch (every change) and the baselines to move.

    `moves[i]` is the baseline report `i`'s watch moves to once its report is
    delivered (`None`: not checked, nothing moves). With `mark_seen` the look
    holds claims on its watches (`id`) until it delivers or releases them.
    """

    id: str
    checked_at: float
    mark_seen: bool
    reports: list[dict[str, Any]]
    moves: list[Move | None]


async def take_look(
    catalog: CatalogSource,
    watchlist: WatchStore,
    timeout: float | None,
    *,
    mark_seen: bool,
    now: Callable[[], float] | None = None,
) -> Look:
    """Look at every watch (see the module docstring); nothing moves yet.

    With `mark_seen` the watches are claimed first: a watch another look holds is
    waited for while that look is still looking (at most `CLAIM_WAIT` s), and is
    `not_checked` (`library_busy`) if still held, so each change is reported once.
    The caller then moves baselines with `deliver_look` or gives up with `release_look`.
    """
    clock = now or utc_now
    look_id = secrets.token_urlsafe(12)
    if mark_seen:
        looks = await _claimed(watchlist, look_id)
    else:
        looks = [(item, baseline) for item, baseline in await in_thread(watchlist.looks)]
    limiter = anyio.CapacityLimiter(CONCURRENCY)
    reports: list[dict[str, Any]] = [{} for _ in looks]
    moves: list[Move | None] = [None for _ in looks]

    async def check(index: int, item: Watch, baseline: Baseline) -> None:
        async with limiter:
            try:
                with anyio.fail_after(timeout):
                    snapshot = await look(catalog, item.kind, item.key)
            except TimeoutError:
                reports[index] = _report(item, "not_checked", reason=_reason(UpstreamTimeout()))
                return
            except CodedError as exc:
                reports[index] = _report(item, "not_checked", reason=_reason(exc))
                return
            except Exception as exc:  # a bug (or a catalog shape nobody foresaw): this watch only
                _log_bug(exc)
                reports[index] = _report(item, "not_checked", reason=_reason(CodedError()))
                return
        changes = None if baseline.snapshot is None else _compared(item.kind, baseline, snapshot)
        if changes is None:
            reports[index] = _report(item, "reset", reason=UNREADABLE)
        else:
            status = "changed" if changes else "unchanged"
            reason = window_exceeded(snapshot)
            reports[index] = _report(item, status, reason=reason, changes=changes)
        stored = baseline_of(item.kind, snapshot)
        moves[index] = Move(item.kind, item.key, baseline.taken_at, stored)

    try:
        async with anyio.create_task_group() as group:
            for index, (item, baseline) in enumerate(looks):
                if baseline is None:
                    reports[index] = _report(item, "not_checked", reason=BUSY)
                else:
                    group.start_soon(check, index, item, baseline)
    except BaseException:
        if mark_seen:
            with anyio.CancelScope(shield=True):
                await in_thread(_release_quietly, watchlist, look_id)
        raise
    return Look(look_id, clock(), mark_seen, reports, moves)


async def deliver_look(watchlist: WatchStore, look: Look) -> None:
    """Move every baseline of `look`, once its whole report was written out (the CLI)."""
    if look.mark_seen:
        instant = time.time()
        moves = [move for move in look.moves if move is not None]
        await in_thread(watchlist.deliver, look.id, moves, [], instant, instant)
        await in_thread(watchlist.release, look.id)


async def release_look(watchlist: WatchStore, look: Look) -> None:
    """Move nothing of `look` (its report was not written out) and free its watches."""
    if look.mark_seen:
        await in_thread(_release_quietly, watchlist, look.id)


def look_payload(look: Look) -> dict[str, Any]:
    """The whole report of `look` (every change) as the tool's payload, no cursor."""
    return {
        "schema_version": SCHEMA_VERSION,
        "next_cursor": None,
        "checked_at": iso_time(look.checked_at),
        "watches": look.reports,
        **_nothing_watched(look),
    }


def _nothing_watched(look: Look) -> dict[str, str]:
    """`note` in words when nothing is watched (a bare empty list reads as nothing to a model)."""
    return {} if look.reports else {"note": NO_WATCHES}


async def _claimed(watchlist: WatchStore, look_id: str) -> list[tuple[Watch, Baseline | None]]:
    """Claim every watch for `look_id`, waiting while another look is still looking."""
    give_up = time.monotonic() + CLAIM_WAIT
    while True:
        instant = time.time()
        claim = await in_thread(watchlist.claim, look_id, instant + CLAIM_SECONDS, instant)
        if not claim.looking or time.monotonic() >= give_up:
            return claim.watches
        await anyio.sleep(CLAIM_POLL)  # another process's look: its claims end with it


def _compared(kind: str, baseline: Baseline, snapshot: Snapshot) -> list[Change] | None:
    """`compare`, or `None` for a baseline it cannot read (another version's, damaged)."""
    assert baseline.snapshot is not None
    try:
        return compare(kind, baseline.snapshot, snapshot)
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def _release_quietly(watchlist: WatchStore, look_id: str) -> None:
    with contextlib.suppress(CodedError):  # if not, the claims lapse after CLAIM_SECONDS
        watchlist.release(look_id)


# -- pages of a look (the tool) --------------------------------------------------------


@dataclass
class _Held:
    """A look whose pages are being read: the layout and when it is forgotten."""

    look: Look
    pages: list[list[tuple[int, int, int]]]
    expires: float = 0.0


# By look ID: this process's look with pages to come (a new look replaces it).
_HELD: dict[str, _Held] = {}


def page_layout(reports: list[dict[str, Any]]) -> list[list[tuple[int, int, int]]]:
    """Pages of at most `PAGE_BYTES` of JSON: each a list of `(report, first, end)` slices.

    Reports keep their order; a report's changes continue on the next page when
    they do not fit. A page always holds something, so one large change still goes.
    """
    pages: list[list[tuple[int, int, int]]] = []
    page: list[tuple[int, int, int]] = []
    size = 0
    for index, report in enumerate(reports):
        changes = report["changes"]
        head = _json_size({**report, "changes": []})
        costs = [_json_size(change) + 1 for change in changes]
        first = 0
        while True:
            room = PAGE_BYTES - size - head
            end = first
            while end < len(changes) and (costs[end] <= room or (end == first and not page)):
                room -= costs[end]
                end += 1
            if page and (room < 0 or (end == first and first < len(changes))):
                pages.append(page)  # this watch starts on a fresh page
                page, size = [], 0
                continue
            page.append((index, first, end))
            size = PAGE_BYTES - room
            if end == len(changes):
                break
            pages.append(page)
            page, size, first = [], 0, end
    if page or not pages:
        pages.append(page)
    return pages


async def _serve(watchlist: WatchStore, held: _Held, number: int) -> dict[str, Any]:
    """Page `number` of `held`: its watches' baselines move, the later pages' stay claimed."""
    taken = held.look
    slices = held.pages[number]
    last = number == len(held.pages) - 1
    shown_here = {index for index, _, _ in slices}
    moving: list[Move] = []
    keeping: list[Move] = []
    for index, _, end in slices:
        move = taken.moves[index]
        if move is not None:
            done = end == len(taken.reports[index]["changes"])
            (moving if done else keeping).append(move)
    for later in held.pages[number + 1 :]:
        keeping.extend(
            move
            for index, _, _ in later
            if index not in shown_here and (move := taken.moves[index]) is not None
        )
    taking: set[tuple[str, str]] | None = None
    if taken.mark_seen:
        instant = time.time()
        taking = await in_thread(
            watchlist.deliver, taken.id, moving, keeping, instant + CLAIM_SECONDS, instant
        )
        if last:
            await in_thread(_release_quietly, watchlist, taken.id)
    reports = []
    for index, first, end in slices:
        report, move = taken.reports[index], taken.moves[index]
        if taking is not None and move is not None and (move.kind, move.key) not in taking:
            continue  # another look took this watch over after this one's claim lapsed
        changes = report["changes"]
        reports.append({**report, "changes": changes[first:end], "more": len(changes) - end})
    if last:
        _HELD.pop(taken.id, None)
    else:
        held.expires = time.monotonic() + CLAIM_SECONDS
    return {
        "schema_version": SCHEMA_VERSION,
        "next_cursor": None if last else f"{taken.id}.{number + 1}",
        "checked_at": iso_time(taken.checked_at),
        "watches": reports,
        **_nothing_watched(taken),
    }


def _hold(held: _Held) -> None:
    """Keep `held` for its next pages."""
    held.expires = time.monotonic() + CLAIM_SECONDS
    _HELD[held.look.id] = held


async def _let_go(watchlist: WatchStore) -> None:
    """Forget every held look; free the watches of the pages nobody asked for.

    A new look in this process means its client stopped paging (one client per
    server): those watches are looked at again, so their changes come again.
    """
    dropped = list(_HELD.values())
    _HELD.clear()
    for held in dropped:
        if held.look.mark_seen and held.expires > time.monotonic():
            await in_thread(_release_quietly, watchlist, held.look.id)


def _parsed_cursor(cursor: str) -> tuple[str, int]:
    look_id, dot, number = cursor.strip().rpartition(".")
    if not dot or not look_id or not number.isdigit() or len(number) > 6 or number == "0":
        raise LookCursorInvalid()
    return look_id, int(number)


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


# -- a watch's report ------------------------------------------------------------------


def _report(
    item: Watch,
    status: str,
    *,
    reason: str | None = None,
    changes: list[Change] | None = None,
    more: int = 0,
) -> dict[str, Any]:
    return {
        "kind": item.kind,
        "target": item.target,
        "name": item.name,
        "previous_look": iso_time(item.looked_at),
        "status": status,
        "reason": reason,
        "changes": changes or [],
        "more": more,
    }


def _log_bug(exc: BaseException) -> None:
    # Frames only: the exception's text may quote a target, which is never logged.
    frames = "".join(traceback.format_tb(exc.__traceback__))
    logger.error("unexpected %s while looking at a watch\n%s", type(exc).__name__, frames)


def _reason(exc: CodedError) -> str:
    """Why a watch was not checked: the failure's `code: sentence`, as tools show it."""
    return coded_text(exc)
