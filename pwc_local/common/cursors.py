"""Signed `read_paper` continuation cursors: mint and verify, nothing else.

A cursor lets a client continue reading a long paper in a later call without the
server keeping any session state. It carries everything the next read needs (which
paper, which content version, where to continue, how much to read, until when the
read may go on) and an HMAC-SHA256 signature, so a client can hold it but not forge
or edit it::

    token = B64URL(payload_json) "." B64URL(HMAC_SHA256(secret, B64URL(payload_json)))

`payload_json` is compact JSON with sorted keys and exactly nine keys: `v` (schema
version, 1), `ref` (the reference string the cursor was issued for), `paper` (the
canonical paper ID), `source` (`arxiv` or `external`), `version` (the Markdown content
version), `offset`, `limit`, `kid` (which key signed it) and `exp` (Unix expiry).

`read_paper_section` mints the very same cursors, at the byte where a section cut at
its budget stopped: a cursor names a byte offset, not a chunk number, so one kind of
cursor (and one set of checks) serves both tools.

Two secrets are accepted while a key rotation is under way: the current one signs,
the previous one still verifies, so cursors issued just before a rotation keep
working until they expire. Rotation never extends a cursor's lifetime.

This module is pure: no file access and no clock reads. Callers pass `now`, which
keeps verification testable and lets one `read_paper` call use a single instant for
both verifying the incoming cursor and minting the next one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import Any

from pwc_local.contract import CHUNK_BYTES, MAX_CURSOR_CHARS, MAX_REFERENCE_CHARS
from pwc_local.upstream.errors import CursorMismatch, ExpiredCursor, InvalidCursor

CURSOR_SCHEMA_VERSION = 1
MAX_TOKEN_CHARS = MAX_CURSOR_CHARS  # the tools state it in their schema too
MAX_PAYLOAD_BYTES = 2048
MAX_OFFSET = 2**63 - 1
DEFAULT_TTL = 24 * 3600

_KEYS = frozenset({"v", "ref", "paper", "source", "version", "offset", "limit", "kid", "exp"})
_MODERN_ARXIV = re.compile(r"\d{4}\.\d{4,5}")
# Legacy IDs (`math.GT/0309136`) are accepted on purpose: the hosted server refuses
# them here, which makes legacy papers longer than one chunk unreadable.
_LEGACY_ARXIV = re.compile(r"[A-Za-z][A-Za-z0-9.\-]*/\d{7}")
_NUMERIC = re.compile(r"\d{1,20}")
_VERSION = re.compile(r"[0-9a-f]{64}")
_B64URL = re.compile(r"[A-Za-z0-9_-]+")

INVALID_MESSAGE = (
    "invalid continuation cursor; pass the exact next_cursor from the previous "
    "read_paper result, or omit cursor to start from the beginning"
)
EXPIRED_MESSAGE = (
    "expired continuation cursor; omit cursor to read the paper again from the beginning"
)
MISMATCH_MESSAGE = (
    "continuation cursor belongs to a different paper; pass the paper it was issued for, "
    "or omit cursor to read this paper from the start"
)


@dataclass(frozen=True)
class CursorState:
    """Where a paused read continues.

    `ref` is the trimmed reference the cursor was issued for, `paper` the canonical
    ID the Markdown is stored under, `source` is `external` exactly when `paper` is
    all digits, `version` pins the content, `offset` is the next byte to read,
    `limit` the chunk size and `exp` the Unix second after which the read is over.
    """

    ref: str
    paper: str
    source: str
    version: str
    offset: int
    limit: int
    exp: int


class CursorReferenceMismatch(CursorMismatch):
    """A genuine, unexpired cursor presented with another reference string.

    It may still name the same paper (`755` after starting from `1706.03762`), so
    the decoded `state` travels with the error and the caller decides by resolving
    the new reference.
    """

    def __init__(self, state: CursorState) -> None:
        super().__init__(MISMATCH_MESSAGE)
        self.state = state


def source_for(paper: str) -> str:
    """The Markdown source label of a canonical paper ID."""
    return "external" if paper.isdigit() else "arxiv"


def is_cursor_paper(paper: str) -> bool:
    """Whether `paper` is a canonical ID a cursor can carry."""
    return any(p.fullmatch(paper) for p in (_MODERN_ARXIV, _LEGACY_ARXIV, _NUMERIC))


def key_id(secret: str) -> str:
    """The public identifier of a signing secret: 16 hex characters of its SHA-256."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()[:16]


class CursorCodec:
    """Mints and verifies cursors with a current and an optional previous secret.

    `ttl` is the lifetime in seconds given to a read when it starts; every cursor
    of that read keeps the first expiry.
    """

    def __init__(
        self, current_secret: str, previous_secret: str | None = None, *, ttl: int = DEFAULT_TTL
    ) -> None:
        if not current_secret:
            raise ValueError("a cursor signing secret is required")
        if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 1:
            raise ValueError("cursor lifetime must be a positive number of seconds")
        self.ttl = ttl
        self._current_kid = key_id(current_secret)
        self._keys: dict[str, bytes] = {self._current_kid: current_secret.encode("utf-8")}
        if previous_secret:
            self._keys.setdefault(key_id(previous_secret), previous_secret.encode("utf-8"))

    def expiry_for_new_read(self, now: float) -> int:
        """The `exp` of a read that starts at `now`."""
        return int(now) + self.ttl

    def mint(self, state: CursorState, *, now: float) -> str:
        """Sign `state` with the current secret.

        Raises `ValueError` when the state breaks a cursor rule (bad field, expiry not
        in `(now, now + ttl]`, token too long): that is a bug in the caller, not
        something a client can cause.
        """
        problem = _state_problem(state)
        if problem:
            raise ValueError(f"cannot mint cursor: {problem}")
        if not now < state.exp <= now + self.ttl:
            raise ValueError("cannot mint cursor: expiry outside the allowed window")
        payload = {
            "v": CURSOR_SCHEMA_VERSION,
            "ref": state.ref,
            "paper": state.paper,
            "source": state.source,
            "version": state.version,
            "offset": state.offset,
            "limit": state.limit,
            "kid": self._current_kid,
            "exp": state.exp,
        }
        raw = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")
        if len(raw) > MAX_PAYLOAD_BYTES:
            raise ValueError("cannot mint cursor: payload too large")
        body = _b64encode(raw)
        token = f"{body}.{_b64encode(self._sign(self._current_kid, body))}"
        if len(token) > MAX_TOKEN_CHARS:
            raise ValueError("cannot mint cursor: token too long")
        return token

    def verify(self, token: str, *, reference: str, now: float) -> CursorState:
        """Check `token` and return its state, in the order a client can act on.

        Any structural, key or signature problem is `InvalidCursor`; a genuine cursor
        past its expiry is `ExpiredCursor`; a genuine, live cursor issued for another
        reference string is `CursorReferenceMismatch` (a `CursorMismatch`) carrying
        the state. Tampering and expiry therefore win over a reference mismatch.
        """
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
            raise InvalidCursor(INVALID_MESSAGE)
        body, dot, signature_text = token.partition(".")
        if not dot:
            raise InvalidCursor(INVALID_MESSAGE)
        raw = _b64decode(body)
        signature = _b64decode(signature_text)
        if raw is None or signature is None or len(raw) > MAX_PAYLOAD_BYTES:
            raise InvalidCursor(INVALID_MESSAGE)
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise InvalidCursor(INVALID_MESSAGE) from None
        if not isinstance(payload, dict):
            raise InvalidCursor(INVALID_MESSAGE)
        kid = payload.get("kid")
        if not isinstance(kid, str) or kid not in self._keys:
            raise InvalidCursor(INVALID_MESSAGE)
        if not hmac.compare_digest(signature, self._sign(kid, body)):
            raise InvalidCursor(INVALID_MESSAGE)
        state = _state_from_payload(payload)
        if state is None:
            raise InvalidCursor(INVALID_MESSAGE)
        if state.exp <= now:
            raise ExpiredCursor(EXPIRED_MESSAGE)
        if state.ref != reference:
            raise CursorReferenceMismatch(state)
        return state

    def _sign(self, kid: str, body: str) -> bytes:
        return hmac.digest(self._keys[kid], body.encode("ascii"), "sha256")


def _state_from_payload(payload: dict[str, Any]) -> CursorState | None:
    """The state of a signed payload, or `None` when it breaks any cursor rule."""
    if set(payload) != _KEYS or not _is_int(payload["v"]) or payload["v"] != 1:
        return None
    if not all(_is_int(payload[key]) for key in ("offset", "limit", "exp")):
        return None
    if not all(isinstance(payload[key], str) for key in ("ref", "paper", "source", "version")):
        return None
    state = CursorState(
        ref=payload["ref"],
        paper=payload["paper"],
        source=payload["source"],
        version=payload["version"],
        offset=payload["offset"],
        limit=payload["limit"],
        exp=payload["exp"],
    )
    return None if _state_problem(state) else state


def _state_problem(state: CursorState) -> str | None:
    """What is wrong with `state` as cursor content, or `None` when nothing is."""
    if not isinstance(state.ref, str) or not 1 <= len(state.ref) <= MAX_REFERENCE_CHARS:
        return "reference must be 1 to 500 characters"
    if state.ref != state.ref.strip():
        return "reference must be trimmed"
    if not isinstance(state.paper, str) or not is_cursor_paper(state.paper):
        return "paper is not a canonical paper ID"
    if state.source != source_for(state.paper):
        return "source does not match the paper ID"
    if not isinstance(state.version, str) or not _VERSION.fullmatch(state.version):
        return "content version must be 64 lowercase hex characters"
    if not _is_int(state.offset) or not 1 <= state.offset <= MAX_OFFSET:
        return "offset out of range"
    if not _is_int(state.limit) or not 1 <= state.limit <= CHUNK_BYTES:
        return "limit out of range"
    if not _is_int(state.exp):
        return "expiry must be an integer"
    return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes | None:
    """Strict unpadded URL-safe base64: only the canonical spelling of some bytes."""
    if not _B64URL.fullmatch(text):
        return None
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    # Reject spellings with stray trailing bits, so each payload has one token.
    return data if _b64encode(data) == text else None
