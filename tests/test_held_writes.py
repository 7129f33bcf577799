"""Cache writes inside a tool call wait until the call shows its responses were usable."""

from __future__ import annotations

import anyio

from pwc_local.catalog.errors import InvalidResponse, NotFound
from pwc_local.store.held_writes import hold, hold_cache_writes


def run_block(outcome: BaseException | None) -> list[str]:
    """Hold one write inside a block ending with `outcome`; the writes that were made."""
    made: list[str] = []

    async def write() -> None:
        made.append("stored")

    async def main() -> None:
        async with hold_cache_writes():
            assert hold(write)
            assert made == []  # held, not made yet
            if outcome is not None:
                raise outcome

    try:
        anyio.run(main)
    except (InvalidResponse, NotFound) as exc:
        assert exc is outcome  # the block's own failure still reaches the caller
    return made


def test_writes_are_made_when_the_call_succeeds() -> None:
    assert run_block(None) == ["stored"]


def test_writes_are_made_when_the_call_fails_for_another_reason() -> None:
    assert run_block(NotFound("Task not found: x")) == ["stored"]


def test_writes_are_dropped_when_a_response_was_unusable() -> None:
    assert run_block(InvalidResponse("tasks response did not contain a result list")) == []


def test_cancelled_calls_write_nothing() -> None:
    made: list[str] = []

    async def write() -> None:
        made.append("stored")

    async def main() -> None:
        with anyio.CancelScope() as scope:
            async with hold_cache_writes():
                hold(write)
                scope.cancel()
                await anyio.sleep(1)  # a checkpoint: the cancellation lands here
        assert scope.cancelled_caught

    anyio.run(main)
    assert made == []


def test_outside_a_call_nothing_is_held() -> None:
    async def write() -> None:
        raise AssertionError("the caller makes the write itself")

    assert hold(write) is False


def test_concurrent_calls_keep_their_writes_apart() -> None:
    made: list[str] = []

    async def call(name: str, fail: bool) -> None:
        async def write() -> None:
            made.append(name)

        try:
            async with hold_cache_writes():
                hold(write)
                await anyio.sleep(0)
                if fail:
                    raise InvalidResponse("bad shape")
        except InvalidResponse:
            pass

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(call, "good", False)
            group.start_soon(call, "bad", True)

    anyio.run(main)
    assert made == ["good"]
