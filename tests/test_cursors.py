"""Cursor codec: round trip, every verification failure and its order, key rotation."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from pwc_local.common.cursors import (
    CursorCodec,
    CursorReferenceMismatch,
    CursorState,
    key_id,
)
from pwc_local.upstream.errors import CursorMismatch, ExpiredCursor, InvalidCursor

NOW = 1_700_000_000.0
VERSION = "a" * 64


def state(**changes: object) -> CursorState:
    fields: dict = {
        "ref": "1706.03762",
        "paper": "1706.03762",
        "source": "arxiv",
        "version": VERSION,
        "offset": 65536,
        "limit": 65536,
        "exp": int(NOW) + 3600,
    }
    fields.update(changes)
    return CursorState(**fields)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forge(payload: dict, secret: str = "current-secret") -> str:
    """A token signed like the codec does, for payloads the codec would never mint."""
    body = b64(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
    mac = hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest()
    return f"{body}.{b64(mac)}"


def payload(**changes: object) -> dict:
    data = {
        "v": 1,
        "ref": "1706.03762",
        "paper": "1706.03762",
        "source": "arxiv",
        "version": VERSION,
        "offset": 10,
        "limit": 100,
        "kid": key_id("current-secret"),
        "exp": int(NOW) + 60,
    }
    data.update(changes)
    return data


@pytest.fixture
def codec() -> CursorCodec:
    return CursorCodec("current-secret", ttl=86400)


def test_round_trip_returns_the_minted_state(codec: CursorCodec) -> None:
    original = state()
    token = codec.mint(original, now=NOW)
    assert codec.verify(token, reference="1706.03762", now=NOW + 10) == original


def test_token_layout_matches_the_documented_format(codec: CursorCodec) -> None:
    token = codec.mint(state(), now=NOW)
    body, _signature = token.split(".")
    decoded = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert set(decoded) == {
        "v",
        "ref",
        "paper",
        "source",
        "version",
        "offset",
        "limit",
        "kid",
        "exp",
    }
    assert (
        decoded["v"] == 1 and decoded["kid"] == hashlib.sha256(b"current-secret").hexdigest()[:16]
    )
    assert "=" not in token
    assert token == forge(decoded)  # compact JSON, sorted keys, HMAC over the first segment


@pytest.mark.parametrize(
    "paper, source",
    [("math.GT/0309136", "arxiv"), ("hep-th/9901001", "arxiv"), ("4242", "external")],
)
def test_legacy_and_numeric_papers_are_valid_cursor_papers(
    codec: CursorCodec, paper: str, source: str
) -> None:
    original = state(ref=paper, paper=paper, source=source)
    assert codec.verify(codec.mint(original, now=NOW), reference=paper, now=NOW) == original


def test_tampered_payload_is_invalid(codec: CursorCodec) -> None:
    token = codec.mint(state(), now=NOW)
    body, signature = token.split(".")
    raw = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    raw["offset"] = 1
    tampered = b64(json.dumps(raw, separators=(",", ":"), sort_keys=True).encode())
    with pytest.raises(InvalidCursor, match=r"^invalid continuation cursor"):
        codec.verify(f"{tampered}.{signature}", reference="1706.03762", now=NOW)


def test_flipped_signature_is_invalid(codec: CursorCodec) -> None:
    token = codec.mint(state(), now=NOW)
    last = token[-2]
    flipped = token[:-2] + ("A" if last != "A" else "B") + token[-1]
    with pytest.raises(InvalidCursor):
        codec.verify(flipped, reference="1706.03762", now=NOW)


@pytest.mark.parametrize(
    "token",
    ["", "no-dot-at-all", ".", "abc.", ".abc", "a.b.c", "!!!.???", "x" * 2049, "e30.e30"],
)
def test_malformed_tokens_are_invalid(codec: CursorCodec, token: str) -> None:
    with pytest.raises(InvalidCursor) as caught:
        codec.verify(token, reference="1706.03762", now=NOW)
    assert "omit cursor" in str(caught.value)


def test_cursor_signed_with_an_unknown_key_is_invalid(codec: CursorCodec) -> None:
    other = CursorCodec("some-other-secret")
    with pytest.raises(InvalidCursor):
        codec.verify(other.mint(state(), now=NOW), reference="1706.03762", now=NOW)


def test_previous_key_still_verifies_after_rotation() -> None:
    before = CursorCodec("old-secret")
    token = before.mint(state(), now=NOW)
    after = CursorCodec("new-secret", "old-secret")
    assert after.verify(token, reference="1706.03762", now=NOW).offset == 65536
    # New cursors are signed with the new key, which the old codec does not know.
    with pytest.raises(InvalidCursor):
        before.verify(after.mint(state(), now=NOW), reference="1706.03762", now=NOW)
    # Once the old key is dropped entirely, its cursors stop working.
    with pytest.raises(InvalidCursor):
        CursorCodec("new-secret").verify(token, reference="1706.03762", now=NOW)


@pytest.mark.parametrize(
    "changes",
    [
        {"v": 2},
        {"v": True},
        {"offset": 0},
        {"offset": True},
        {"offset": 2**63},
        {"offset": "10"},
        {"limit": 0},
        {"limit": 65537},
        {"exp": float(NOW + 60)},
        {"version": "A" * 64},
        {"version": "a" * 63},
        {"paper": "not-a-paper"},
        {"paper": "1" * 21, "source": "external"},
        {"source": "external"},
        {"paper": "4242", "source": "arxiv"},
        {"ref": ""},
        {"ref": " 1706.03762"},
        {"ref": "x" * 501},
        {"extra": 1},
    ],
)
def test_signed_payload_breaking_a_rule_is_invalid(codec: CursorCodec, changes: dict) -> None:
    with pytest.raises(InvalidCursor):
        codec.verify(forge(payload(**changes)), reference="1706.03762", now=NOW)


def test_missing_key_is_invalid(codec: CursorCodec) -> None:
    data = payload()
    del data["limit"]
    with pytest.raises(InvalidCursor):
        codec.verify(forge(data), reference="1706.03762", now=NOW)


def test_non_object_payload_is_invalid(codec: CursorCodec) -> None:
    body = b64(b"[1,2,3]")
    mac = hmac.new(b"current-secret", body.encode(), hashlib.sha256).digest()
    with pytest.raises(InvalidCursor):
        codec.verify(f"{body}.{b64(mac)}", reference="1706.03762", now=NOW)


def test_non_canonical_base64_spelling_is_invalid(codec: CursorCodec) -> None:
    token = codec.mint(state(), now=NOW)
    body, signature = token.split(".")
    with pytest.raises(InvalidCursor):
        codec.verify(f"{body}.{signature}==", reference="1706.03762", now=NOW)


def test_expired_cursor(codec: CursorCodec) -> None:
    token = codec.mint(state(exp=int(NOW) + 5), now=NOW)
    assert codec.verify(token, reference="1706.03762", now=NOW + 4.9)
    with pytest.raises(ExpiredCursor, match=r"^expired continuation cursor"):
        codec.verify(token, reference="1706.03762", now=NOW + 5)


def test_reference_mismatch_carries_the_state(codec: CursorCodec) -> None:
    token = codec.mint(state(), now=NOW)
    with pytest.raises(CursorMismatch) as caught:
        codec.verify(token, reference="755", now=NOW)
    assert isinstance(caught.value, CursorReferenceMismatch)
    assert caught.value.state == state()


def test_tampering_and_expiry_win_over_a_reference_mismatch(codec: CursorCodec) -> None:
    expired = codec.mint(state(exp=int(NOW) + 5), now=NOW)
    with pytest.raises(ExpiredCursor):
        codec.verify(expired, reference="another paper", now=NOW + 10)
    with pytest.raises(InvalidCursor):
        codec.verify(expired[:-3] + "abc", reference="another paper", now=NOW)


def test_mint_refuses_states_outside_the_rules(codec: CursorCodec) -> None:
    with pytest.raises(ValueError):
        codec.mint(state(exp=int(NOW)), now=NOW)  # already expired
    with pytest.raises(ValueError):
        codec.mint(state(exp=int(NOW) + 86401), now=NOW)  # beyond the lifetime
    with pytest.raises(ValueError):
        codec.mint(state(paper="4242"), now=NOW)  # source does not match
    with pytest.raises(ValueError):
        codec.mint(state(ref="r" * 501), now=NOW)


def test_lifetime_is_configurable(codec: CursorCodec) -> None:
    short = CursorCodec("current-secret", ttl=60)
    assert short.expiry_for_new_read(NOW) == int(NOW) + 60
    assert codec.expiry_for_new_read(NOW) == int(NOW) + 86400
    with pytest.raises(ValueError):
        CursorCodec("current-secret", ttl=0)
    with pytest.raises(ValueError):
        CursorCodec("")
