"""Stored paper Markdown for the fake: document text, versions and byte chunks.

Models the server side of the read protocol in catalog-api.md §3: documents are
addressed by byte offsets into their UTF-8 encoding, chunks are cut on character
boundaries (§3.4 rule 8), and `x-pwc-content-version` is the SHA-256 hex of the
whole document (§3.3, inferred as "a natural choice").

It also generates the one large fixture document: well over 200 KiB, dense in
Greek, CJK, emoji and mathematical symbols, built so that every cut of a 64 KiB
chunked read (the MCP's chunk size) lands inside a multi-byte character. It is
built deterministically (no randomness), and `big_document()` returns the exact
text so tests can compare a reassembled read byte for byte.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

MCP_CHUNK_BYTES = 65_536
BIG_DOCUMENT_TARGET_BYTES = 300_000


def content_version(text: str) -> str:
    """The document's version: lowercase SHA-256 hex of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@lru_cache(maxsize=4)
def encoded(text: str) -> tuple[bytes, str]:
    """A document's UTF-8 bytes and version, remembered: a chunked read of a 40 MiB
    paper asks for them once per chunk, and hashing it each time would be the fake's
    cost, not the client's (benchmarks/large_paper.py)."""
    return text.encode("utf-8"), content_version(text)


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


@dataclass(frozen=True)
class Chunk:
    """A slice of a document. `next_offset` is None when the slice reaches the end."""

    body: bytes
    next_offset: int | None


class OffsetNotOnBoundary(ValueError):
    """The requested offset points into the middle of a multi-byte character."""


def cut_chunk(document: bytes, offset: int, limit: int | None) -> Chunk:
    """Cut at most `limit` bytes of `document` starting at byte `offset`.

    The end moves back to the previous character boundary, so a chunk is shorter
    than `limit` when the byte at `offset + limit` continues a multi-byte character.
    If even one character does not fit in `limit`, that whole character is returned
    (the spec's suggestion for an undefined case). An offset at or past the end
    gives an empty final chunk (also a suggestion of §3.4). `limit=None` means to
    the end of the document.
    """
    size = len(document)
    if offset >= size:
        return Chunk(b"", None)
    if _is_continuation(document[offset]):
        raise OffsetNotOnBoundary(f"offset {offset} is inside a multi-byte character")
    end = size if limit is None else min(size, offset + limit)
    while end < size and end > offset and _is_continuation(document[end]):
        end -= 1
    if end == offset:  # the character at `offset` alone is longer than `limit`
        end = offset + 1
        while end < size and _is_continuation(document[end]):
            end += 1
    return Chunk(document[offset:end], end if end < size else None)


def render_paper(
    title: str,
    authors: Sequence[str],
    abstract: str,
    points: Sequence[str],
    *,
    extra: str = "",
) -> str:
    """A plausible short Markdown rendering of a paper from its fixture fields."""
    lines = [f"# {title}", "", f"**Authors:** {', '.join(authors)}", "", "## Abstract", ""]
    lines += [abstract, "", "## 1 Introduction", ""]
    lines.append(
        f"This document is the stored Markdown of *{title}* in the fake catalog. "
        "It follows the usual layout of a research paper so that readers, chunkers "
        "and summarisers have realistic structure to work with."
    )
    lines += ["", "## 2 Key ideas", ""]
    lines += [f"- {point}" for point in points]
    if extra:
        lines += ["", extra.strip()]
    lines += [
        "",
        "## 3 Experiments",
        "",
        "The experiments compare the proposed approach with strong baselines under "
        "matched compute budgets and report the mean over three seeds.",
        "",
        "## 4 Conclusion",
        "",
        "The results support the central claim; limitations and future work are "
        "discussed in the appendix.",
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------
# The large multi-byte document
# ---------------------------------------------------------------------------------

# Invented sample sentences for a multilingual evaluation appendix; the mix of 2-,
# 3- and 4-byte UTF-8 characters is the point.
_SAMPLES: tuple[tuple[str, str], ...] = (
    ("el", "Η μετάφραση διατηρεί το νόημα της αρχικής πρότασης χωρίς απώλειες."),
    ("zh", "跨语言表示学习让模型在低资源语言上也能取得稳定的效果。"),
    ("ja", "この評価では、各言語の検証セットで同じ設定を使用しました。"),
    ("ko", "다국어 사전학습은 저자원 언어의 성능을 크게 향상시킵니다."),
    ("ru", "Модель обучена на данных из ста языков одновременно."),
    ("ar", "يتحسن الأداء عندما يزداد حجم بيانات التدريب."),
    ("hi", "बहुभाषी मॉडल कम संसाधन वाली भाषाओं में भी अच्छा करता है।"),
    ("th", "แบบจำลองเรียนรู้ร่วมกันจากหลายภาษาในคราวเดียว"),
    ("emoji", "Results at a glance: 🚀 faster, 📈 better, 🧪 reproducible, 🌍 multilingual."),
    ("math", "∀ x ∈ 𝒟: ‖f(x) − g(x)‖₂ ≤ ε, and ∑ᵢ αᵢ = 1 with αᵢ ≥ 0."),
)

# Characters placed across the cut positions of a 64 KiB chunked read, and how many
# of their bytes fall before the cut: each one forces the chunk to end early.
_STRADDLES: tuple[tuple[str, int], ...] = (
    ("🧬", 2),  # 4-byte emoji, cut after its 2nd byte
    ("λ", 1),  # 2-byte Greek
    ("語", 1),  # 3-byte CJK, cut after the 1st byte
    ("∑", 2),  # 3-byte math symbol, cut after the 2nd byte
    ("😀", 3),  # 4-byte emoji, cut after the 3rd byte
)

_PAD_TEXT = "Padding sentence kept in plain ASCII so the next symbol sits on a chunk edge. "


def _section(index: int) -> str:
    lang, sentence = _SAMPLES[index % len(_SAMPLES)]
    score = (index * 37) % 100
    return f"| {index:04d} | {lang} | {sentence} | 0.{score:02d} | Δ=+{index % 7}.{index % 10} |\n"


@cache
def big_document() -> str:
    """The >200 KiB multi-byte fixture document, identical on every call and machine.

    Built by appending table rows; whenever the next row would reach the position
    where a 64 KiB chunked read will cut, ASCII padding brings the text to just
    before that position and a multi-byte character is placed across it. The read
    then has to end that chunk early, and the following cut position is computed
    from where the chunk really ended.
    """
    header = (
        "# Unsupervised Cross-lingual Representation Learning at Scale\n\n"
        "## Appendix C: Per-language samples (Ελληνικά, 中文, 日本語, 한국어, 🌐)\n\n"
        "| # | lang | sample | score | change |\n|---|---|---|---|---|\n"
    )
    pieces = [header]
    size = len(header.encode())
    cut = MCP_CHUNK_BYTES
    straddle_index = 0
    row = 0
    while size < BIG_DOCUMENT_TARGET_BYTES:
        piece = _section(row)
        piece_size = len(piece.encode())
        char, before = _STRADDLES[straddle_index % len(_STRADDLES)]
        start = cut - before  # where the straddling character must begin
        if size + piece_size <= start:
            pieces.append(piece)
            size += piece_size
            row += 1
            continue
        pad = start - size
        padding = (_PAD_TEXT * (pad // len(_PAD_TEXT) + 1))[:pad]
        pieces += [padding, char, "\n"]
        size += pad + len(char.encode()) + 1
        cut = start + MCP_CHUNK_BYTES  # the chunk ended at `start`, the next cut is 64 KiB on
        straddle_index += 1
    pieces.append("\n## End of appendix ✅\n")
    return "".join(pieces)
