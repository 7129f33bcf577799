"""What the scripted model asks for, turn by turn, and what it was given back.

The model of `real_clients.py` has no judgement: on every turn it asks the client
to call the next tool of `CALLS` (each default tool once, with typical
arguments), then reads `READ_PAPER` from its start by following `next_cursor`.
The cursor is taken from what the client handed back as the previous tool
result, exactly as a model would have to; when it cannot be found there, the
reading stops and the run records that the cursor was lost.

`ScriptedModel` is the state of one client's run: `next_call(n)` says what the
n-th call is (n = how many tool results the client has sent back so far), and
`receive(step, payload)` records a tool result as the client sent it. The
wire dialects (`real_clients_api.py`) do the parsing; this module knows nothing
of HTTP.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

# The paper the reading steps follow to its end. The benchmark gives it Markdown
# that takes three chunks of the server's default chunk (`real_clients.py`).
READ_PAPER = "1810.04805"

# Every default tool once, in an order whose side effects feed later calls
# (save_papers before the library tools, watch before whats_new).
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("search_papers", {"query": "attention", "mode": "keyword", "limit": 3}),
    ("get_paper_info", {"paper": "1706.03762", "include_evaluations": True}),
    ("get_paper_evaluations", {"paper": "1706.03762", "limit": 2}),
    ("list_papers", {"task": "machine-translation", "limit": 2}),
    ("list_recent_papers", {"limit": 2}),
    ("list_trending_papers", {"limit": 3, "max_age_days": 365}),
    ("get_related_papers", {"paper": "1706.03762", "limit": 3}),
    ("get_paper_lineage", {"paper": "2307.09288"}),
    ("get_task", {"task": "scene-text-recognition", "benchmark_limit": 1}),
    ("list_tasks", {"limit": 3, "order_by": "name"}),
    ("get_method", {"method": "transformer"}),
    ("list_methods", {"search": "adam", "limit": 5}),
    ("get_conference", {"conference": "CVPR 2026"}),
    ("list_conferences", {"year": 2025}),
    ("get_organization", {"organization": "nvidia"}),
    ("list_organizations", {"featured_only": True}),
    ("get_framework", {"framework": "vLLM"}),
    ("list_frameworks", {"platform": "CPU"}),
    ("get_benchmark", {"benchmark": "swe-bench-pro"}),
    ("list_benchmarks", {"task": "image-classification"}),
    ("get_paper_outline", {"paper": "1911.02116"}),
    ("read_paper_section", {"paper": "1911.02116", "section": "s1.1"}),
    ("cite_paper", {"paper": "10.1038/nature14539", "format": "csl-json"}),
    ("save_papers", {"papers": ["1706.03762", "1301.3781"]}),
    ("list_library", {"limit": 5}),
    ("search_library", {"query": "attention", "limit": 3}),
    ("watch", {"kind": "benchmark", "target": "ImageNet-1k"}),
    ("whats_new", {"mark_seen": False}),
    ("sota_history", {"benchmark": "ImageNet-1k"}),
    ("who_beat_paper", {"paper": "1512.03385"}),
)

MAX_READS = 8  # a reading that goes on longer than this is cut off (and shows as such)

# A signed cursor: two base64url parts joined by a dot, after the word "cursor"
# (`"next_cursor": "..."` in JSON, `cursor ...` or `next_cursor: ...` in text).
_CURSOR = re.compile(r"cursor\W{0,8}([A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})", re.IGNORECASE)


def find_cursor(payload: str) -> str | None:
    """The read_paper cursor in what the model received, or None."""
    found = _CURSOR.search(payload)
    return found.group(1) if found else None


@dataclass(frozen=True)
class Call:
    """One tool call the model asks for: `step` numbers the calls from 0."""

    step: int
    tool: str
    arguments: dict[str, Any]
    read: int | None = None  # for read_paper: which chunk (0 = the first)


@dataclass
class Received:
    """A tool result exactly as the client sent it back to the model."""

    call: Call
    payload: str  # the text the model reads (text parts joined)
    raw: Any  # the tool-result element of the request, as parsed JSON
    error: bool = False  # the client marked it as an error


@dataclass
class ScriptedModel:
    """One client run: the calls asked so far and the results received."""

    calls: tuple[tuple[str, dict[str, Any]], ...] = CALLS
    read_paper: str = READ_PAPER
    max_reads: int = MAX_READS
    asked: dict[int, Call] = field(default_factory=dict)
    received: dict[int, Received] = field(default_factory=dict)
    offered: list[str] = field(default_factory=list)  # tool names in the last main request
    notes: list[str] = field(default_factory=list)  # what went wrong, in words
    finished: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def next_call(self, done: int) -> Call | None:
        """The call after `done` results, or None when the script is over."""
        with self._lock:
            if done in self.asked:
                return self.asked[done]
            call = self._plan(done)
            if call is None:
                self.finished = True
            else:
                self.asked[done] = call
            return call

    def receive(self, step: int, payload: str, raw: Any, *, error: bool = False) -> None:
        """Record the result of call `step` as first seen (later requests repeat it, or
        a client's later compaction of it)."""
        with self._lock:
            call = self.asked.get(step)
            if call is not None and step not in self.received:
                self.received[step] = Received(call, payload, raw, error)

    def note(self, text: str) -> None:
        with self._lock:
            if text not in self.notes:
                self.notes.append(text)

    def _plan(self, done: int) -> Call | None:
        if done < len(self.calls):
            tool, arguments = self.calls[done]
            return Call(done, tool, dict(arguments))
        read = done - len(self.calls)
        if read >= self.max_reads:  # max_reads 0: no reading at all
            if self.max_reads:
                self.notes.append(f"reading stopped after {self.max_reads} chunks")
            return None
        if read == 0:
            return Call(done, "read_paper", {"paper": self.read_paper}, read=0)
        previous = self.received.get(done - 1)
        if previous is None:
            return None
        cursor = find_cursor(previous.payload)
        if cursor is None:
            return None  # the end, or the cursor lost: the report tells which
        arguments = {"paper": self.read_paper, "cursor": cursor}
        return Call(done, "read_paper", arguments, read=read)
