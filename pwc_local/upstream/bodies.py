"""Reading an upstream body without ever holding more than its cap.

A catalog answer is read as raw bytes off the socket (`httpx.Response.aiter_raw`),
so httpx never decodes it for us: httpx would inflate each raw read in full before
anyone could count the bytes, and a 2 KB `Content-Encoding: gzip, gzip` body holding
1 GiB of zeros would then fill memory. `BodyReader` undoes the content coding itself,
incrementally, asking zlib for at most one byte more than the room left
(`decompressobj.decompress(data, max_length)`), so at any moment the process holds
at most `limit + 1` decoded bytes plus one raw read of a body, whatever it claims.

The rules, in one place:

* **Codings.** We ask for `gzip` (`ACCEPT_ENCODING`) and undo at most one layer of
  `gzip`/`x-gzip` or `deflate` (the zlib format RFC 9110 means by it). `identity`
  is no layer. Stacked codings (`gzip, gzip`) and unknown ones (`br`, `zstd`, ...)
  are refused: we never asked for them.
* **Sizes.** The decoded bytes count against `limit`, and the raw ones against
  `RAW_FACTOR * limit`. A success body over either is `ResponseTooLarge`; an error
  body is only read for its detail, so it is cut at `limit` and the rest ignored.
* **Integrity.** A compressed success body that does not decode, or ends before its
  compressed stream does, is `InvalidResponse`. An error body that does not decode
  loses its detail (the status still counts).

Typical use, inside `async with client.stream(...) as response`:

    reader = BodyReader(content_codings(response.headers), limit=cap, strict=True)
    async for piece in response.aiter_raw():
        if reader.feed(piece):
            break  # (only a non-strict reader stops early; a strict one raises)
    body = reader.finish()
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import httpx

from pwc_local.upstream.errors import InvalidResponse, ResponseTooLarge

ACCEPT_ENCODING = "gzip"
"""What we ask for: one coding, the one every HTTP server and proxy knows."""

RAW_FACTOR = 2
"""Raw bytes read may exceed the decoded limit by this factor (gzip can grow a body)."""

_WBITS = {
    "gzip": 16 + zlib.MAX_WBITS,  # gzip header and trailer
    "x-gzip": 16 + zlib.MAX_WBITS,
    "deflate": zlib.MAX_WBITS,  # zlib wrapper, as HTTP's "deflate" is defined
}


def content_codings(headers: httpx.Headers) -> list[str]:
    """The content codings of a response, outermost last, without `identity`.

    >>> content_codings(httpx.Headers({"Content-Encoding": "gzip, Identity"}))
    ['gzip']
    """
    codings: list[str] = []
    for value in headers.get_list("content-encoding", split_commas=True):
        token = value.strip().lower()
        if token and token != "identity":
            codings.append(token)
    return codings


class BodyReader:
    """Accumulates one body, decoding at most one content coding, within `limit` bytes.

    `strict` readers (success bodies) raise on anything over the limit or malformed;
    lenient ones (error bodies, read for their detail only) keep what fits and report
    that reading can stop.
    """

    def __init__(self, codings: Sequence[str], *, limit: int, strict: bool) -> None:
        self.limit = limit
        self.strict = strict
        self._body = bytearray()
        self._raw = 0
        self._broken = False  # lenient only: the coding could not be undone
        self._cut = False  # lenient only: the body reached the limit and was cut there
        self._inflater: zlib._Decompress | None = None
        if len(codings) > 1:
            self._refuse("catalog response has stacked content codings")
        elif codings:
            wbits = _WBITS.get(codings[0])
            if wbits is None:
                self._refuse("catalog response has an unknown content coding")
            else:
                self._inflater = zlib.decompressobj(wbits)

    def feed(self, raw: bytes) -> bool:
        """Take one raw read; True when the rest of the body need not be read."""
        if self._broken or self._cut:
            return True
        self._raw += len(raw)
        room = self.limit - len(self._body)
        if self._inflater is None:
            decoded = raw
        else:
            try:
                # At most one byte more than fits: enough to know the body is too large.
                decoded = self._inflater.decompress(raw, room + 1)
            except zlib.error:
                return self._refuse("catalog response does not decode")
            if self._inflater.eof and self._inflater.unused_data:
                return self._refuse("catalog response has data after its compressed body")
        if len(decoded) > room:
            self._body += decoded[:room]
            return self._over()
        self._body += decoded
        if self._raw > RAW_FACTOR * self.limit:
            # Compressed bytes that decode to next to nothing (a stream of empty
            # blocks): none of it is held, but reading on would only burn time.
            return self._over()
        return False

    def finish(self) -> bytes:
        """The decoded body, once the raw stream has ended."""
        if self._inflater is not None and not (self._broken or self._cut or self._inflater.eof):
            self._refuse("catalog response ended inside its compressed body")
        return bytes(self._body)

    def _over(self) -> bool:
        if self.strict:
            raise ResponseTooLarge(self.limit)
        self._cut = True  # an error body is only read for its detail: keep what fits
        return True

    def _refuse(self, reason: str) -> bool:
        if self.strict:
            raise InvalidResponse(reason)
        self._broken = True
        self._body.clear()  # undecodable bytes are no detail worth showing
        return True
