"""Lines of the stdio stream: splitting bytes into JSON-RPC lines, bounded.

Standard library only: the early start-up path (`pwc_local.server.early`) reads its
first lines with it before the SDK is imported, and the full transport
(`pwc_local.server.stdio`) goes on with the same rules.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up: test_early)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import BinaryIO

MAX_LINE_BYTES = 4 * 1024 * 1024
"""The longest message accepted on stdin, in bytes, not counting the line ending."""

READ_SIZE = 64 * 1024  # bytes asked of stdin per read


class LineTooLong:
    """Marks a line longer than the cap; its bytes were read and thrown away."""

    def __repr__(self) -> str:
        return "LineTooLong()"


class LineSplitter:
    """Cuts a byte stream, fed in pieces, into lines of at most `limit` bytes each.

    `feed` returns the lines a piece completes (line ending included), with
    `LineTooLong` in place of any line whose bytes before its newline exceed
    `limit`; `end` returns what is left at end of input (a last line without a
    newline, as it is). Of a line being assembled at most `limit` bytes are held:
    once it is known to be too long, the rest is dropped as it arrives.
    """

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self._limit = limit
        self._pending = bytearray()  # the start of a line not yet ended
        self._discarding = False  # inside a line already known to be too long

    def feed(self, data: bytes) -> list[bytes | LineTooLong]:
        lines: list[bytes | LineTooLong] = []
        start = 0
        while (newline := data.find(b"\n", start)) >= 0:
            if self._discarding or len(self._pending) + newline - start > self._limit:
                lines.append(LineTooLong())
            elif self._pending:
                lines.append(bytes(self._pending) + data[start : newline + 1])
            else:
                lines.append(data[start : newline + 1])
            self._pending.clear()
            self._discarding = False
            start = newline + 1
        if not self._discarding and start < len(data):
            if len(self._pending) + len(data) - start > self._limit:
                self._pending.clear()
                self._discarding = True
            else:
                self._pending += data[start:]
        return lines

    def end(self) -> list[bytes | LineTooLong]:
        """What is left at end of input; the splitter is empty afterwards."""
        if self._discarding:
            self._discarding = False
            return [LineTooLong()]
        rest: list[bytes | LineTooLong] = [bytes(self._pending)] if self._pending else []
        self._pending.clear()
        return rest


def iter_lines(
    source: BinaryIO, splitter: LineSplitter | None = None
) -> Iterator[bytes | LineTooLong]:
    """Yield each line of `source` (line ending included), or `LineTooLong` in its place.

    Blocks on `source`; ends at end of file. Reads at most `READ_SIZE` bytes at a
    time into `splitter` (a new one, else one that already holds the start of a line).
    """
    splitter = splitter if splitter is not None else LineSplitter()
    # read1: what is there now, up to the size (a plain read would wait for all of it).
    read: Callable[[int], bytes] = getattr(source, "read1", source.read)
    while piece := read(READ_SIZE):
        yield from splitter.feed(piece)
    yield from splitter.end()
