"""Compare what each client's model received with what the server sent, and tabulate.

`Reference` holds, per scripted call, both halves of the server's result as the raw
stdio client saw them: the text block and `structuredContent` (as compact JSON).
`judge` places a received payload against them: which half it carries (`text`,
`structured`, `both`, or `?` when it matches neither), whether it is whole, and if
not how much of that half it kept (the longest run of the half's head or tail found
in it, both when a client kept head and tail). JSON is matched whether the client
re-serialised it compactly, with spaces, indented, or with non-ASCII escaped.

`render_table` prints one row per call, one column per client; `docs_section`
gives the same table as the `## Real clients` section of docs/benchmarks.md, which
`replace_section` swaps in place (or appends) so the file keeps only the latest run.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

from benchmarks.real_clients_script import Call, Received, ScriptedModel, find_cursor

HEADING = "## Real clients"
MIN_MATCH = 40  # characters of a half a payload must hold to count as (part of) it


@dataclass
class Sent:
    """Both halves of one result as the server sent it."""

    call: Call
    text: str
    structured: Any  # None when the result had no structuredContent
    error: bool
    has_cursor: bool  # the server gave a next_cursor (read_paper)

    @property
    def structured_json(self) -> str:
        return "" if self.structured is None else compact(self.structured)


@dataclass
class Reference:
    chunk_bytes: int = 0  # the server's first read_paper chunk of the large paper
    sent: dict[int, Sent] = field(default_factory=dict)

    def add(self, call: Call, result: dict[str, Any]) -> None:
        text = "\n".join(
            b.get("text", "") for b in result.get("content", []) if b.get("type") == "text"
        )
        structured = result.get("structuredContent")
        cursor = (structured or {}).get("next_cursor") if isinstance(structured, dict) else None
        self.sent[call.step] = Sent(
            call, text, structured, bool(result.get("isError")), bool(cursor or find_cursor(text))
        )


# What differs between two runs of the same call and is no difference for the model:
# signed cursors (another key, another expiry) and the times of saves and checks.
_VOLATILE = (
    (re.compile(r"[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"), "CURSOR"),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"), "TIME"),
)


def normal(text: str) -> str:
    for pattern, placeholder in _VOLATILE:
        text = pattern.sub(placeholder, text)
    return text


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _js(value: Any) -> Any:
    """`value` as JavaScript prints it: a whole float without its `.0`."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_js(item) for item in value]
    if isinstance(value, dict):
        return {key: _js(item) for key, item in value.items()}
    return value


def _forms(value: Any) -> list[str]:
    """The ways a client may have serialised a JSON value."""
    forms = []
    for shape in (value, _js(value)):
        forms += [
            compact(shape),
            json.dumps(shape, separators=(",", ":")),
            json.dumps(shape, ensure_ascii=False),
            json.dumps(shape),
            json.dumps(shape, ensure_ascii=False, indent=2),
            json.dumps(shape, indent=2),
        ]
    return list(dict.fromkeys(forms))


def _kept(half: str, payload: str) -> int:
    """How many characters of `half` are in `payload`: the longest head of it found
    there plus the longest tail (capped at its length)."""
    if not half:
        return 0

    def longest(make: Any) -> int:
        low, high = 0, len(half)
        while low < high:  # containment is monotonic in the length of a head (or tail)
            mid = (low + high + 1) // 2
            if make(mid) in payload:
                low = mid
            else:
                high = mid - 1
        return low

    head = longest(lambda n: half[:n])
    tail = longest(lambda n: half[len(half) - n :])
    return min(len(half), head + tail)


@dataclass(frozen=True)
class Verdict:
    half: str  # text | structured | both | ? | none
    whole: bool
    kept: float  # share of that half the model got (1.0 when whole)


def judge(payload: str, sent: Sent) -> Verdict:
    """Which half of `sent` the payload carries and how much of it (cursors and
    times set aside: they differ from run to run)."""
    if not payload:
        return Verdict("none", False, 0.0)
    payload = normal(payload)
    text = normal(sent.text).strip()
    forms = [] if sent.structured is None else [normal(f) for f in _forms(sent.structured)]
    has_text = bool(text) and text in payload
    has_structured = any(f in payload for f in forms)
    if has_text and has_structured:
        return Verdict("both", True, 1.0)
    if has_text:
        return Verdict("text", True, 1.0)
    if has_structured:
        return Verdict("structured", True, 1.0)
    text_kept = _kept(text, payload)
    structured_kept = max((_kept(f, payload) / len(f) for f in forms), default=0.0)
    structured_chars = max((_kept(f, payload) for f in forms), default=0)
    if max(text_kept, structured_chars) < MIN_MATCH:
        return Verdict("?", False, 0.0)
    text_share = text_kept / len(text) if text else 0.0
    if text_share >= structured_kept:
        return Verdict("text", False, text_share)
    return Verdict("structured", False, structured_kept)


@dataclass
class ClientRun:
    key: str
    title: str
    version: str
    model: ScriptedModel
    seconds: float = 0.0
    timed_out: bool = False
    error: str = ""
    refused_hosts: list[str] = field(default_factory=list)
    log_tail: list[str] = field(default_factory=list)


def _step_label(sent: Sent) -> str:
    if sent.call.read is not None:
        return f"read_paper chunk {sent.call.read + 1}"
    return sent.call.tool


def cell(received: Received | None, sent: Sent) -> str:
    """`bytes half whole|cut N%` and for reading `cursor ok|lost|end`."""
    if received is None:
        return "not reached"
    if received.raw is None:
        return "not offered"
    verdict = judge(received.payload, sent)
    size = f"{len(received.payload.encode()):,}"
    state = "whole" if verdict.whole else f"cut {verdict.kept:.0%}"
    parts = [size, verdict.half, state]
    if received.error and not sent.error:
        parts.append("error")
    if sent.call.read is not None:
        if sent.has_cursor:
            parts.append("cursor ok" if find_cursor(received.payload) else "cursor lost")
        else:
            parts.append("end")
    return " ".join(parts)


def reading_summary(run: ClientRun, reference: Reference) -> str:
    """How far following the cursors the model was given got: `to the end, 3 of 3
    chunks` (whether or not each chunk reached it whole) or `stopped at 1 of 3`."""
    reads = [s for s in reference.sent.values() if s.call.read is not None]
    got = [r for r in run.model.received.values() if r.call.read is not None]
    if got and len(got) == len(reads) and not reads[-1].has_cursor:
        return f"cursors to the end, {len(got)} of {len(reads)} chunks"
    return f"stopped at {len(got)} of {len(reads)} chunks"


def rows(reference: Reference, runs: list[ClientRun]) -> list[list[str]]:
    header = ["call", "server text", "server structured"] + [
        f"{r.title} {r.version}".strip() for r in runs
    ]
    table = [header]
    for step in sorted(reference.sent):
        sent = reference.sent[step]
        line = [
            _step_label(sent),
            f"{len(sent.text.encode()):,}",
            f"{len(sent.structured_json.encode()):,}",
        ]
        for run in runs:
            line.append(cell(run.model.received.get(step), sent))
        table.append(line)
    table.append(["reading", "", ""] + [reading_summary(r, reference) for r in runs])
    table.append(["run", "", ""] + [_run_note(r) for r in runs])
    return table


def _run_note(run: ClientRun) -> str:
    note = f"{run.seconds:.0f} s"
    if run.timed_out:
        note += ", timed out"
    if run.error:
        note += f", failed: {run.error[:80]}"
    if run.refused_hosts:
        note += ", refused: " + " ".join(run.refused_hosts)
    return note


def render_table(reference: Reference, runs: list[ClientRun]) -> str:
    """A Markdown table (also readable as plain text)."""
    table = rows(reference, runs)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = []
    for index, row in enumerate(table):
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
        if index == 0:
            lines.append("| " + " | ".join("-" * w for w in widths) + " |")
    return "\n".join(lines)


def docs_section(
    reference: Reference, runs: list[ClientRun], server: str, when: str, network: str
) -> str:
    notes = []
    for run in runs:
        for text in run.model.notes:
            notes.append(f"- {run.title}: {text}.")
        if run.error:
            notes.append(f"- {run.title}: {run.error}.")
    prose = (
        "`python benchmarks/real_clients.py --write-docs` (how it works: its docstring): what "
        "a model in each real client receives from each default tool, against the two halves "
        "the server sent (bytes of the text block, and of `structuredContent` as compact JSON, "
        "seen by a raw stdio client). A cell: the bytes the model got, which half they carry "
        "(`text`, `structured`, `both`, `?` for neither), `whole` or `cut` with the share of "
        "that half kept (head and tail), and for reading whether the cursor reached the model "
        "(`end`: the last chunk, none to reach). Bytes above a whole half are the client's own "
        "wrapping. The paper read has three chunks of the server's first chunk "
        f"({reference.chunk_bytes:,} bytes); a client that cuts a chunk but keeps the cursor "
        "still reads to the end, without having seen the middle. "
        f"Latest run: {when}, server: {server}, network: {network}. Running it again "
        "replaces this section."
    )
    return "\n".join(
        [
            HEADING,
            "",
            textwrap.fill(prose, width=88, break_on_hyphens=False),
            "",
            render_table(reference, runs),
            *(["", *notes] if notes else []),
            "",
        ]
    )


def find_section(document: str, heading: str = HEADING) -> str:
    """The section of `document` under `heading` (to the next `## `), or ""."""
    start = document.find(heading + "\n")
    if start < 0:
        return ""
    end = document.find("\n## ", start + len(heading))
    return document[start : None if end < 0 else end + 1]


def replace_section(document: str, section: str, heading: str = HEADING) -> str:
    """`document` with its section under `heading` (the Real clients one unless told)
    replaced by `section`, or with `section` appended."""
    old = find_section(document, heading)
    if not old:
        return document.rstrip("\n") + "\n\n" + section
    start = document.find(old)
    rest = document[start + len(old) :]
    return document[:start] + section + ("\n" + rest if rest else "")
