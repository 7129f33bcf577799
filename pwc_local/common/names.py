"""The names this machine has seen, as the queries see them: a protocol.

`pwc_local.store.vocabulary.Vocabulary` (the completion vocabulary: every task and
benchmark a tool answer showed) implements `KnownNames`; a query that finds no
benchmark or task by the name a caller typed suggests the closest of these
(`queries.lookup.closest_known`), with no request. `pwc_local.server.tools` hands
it in as the `names` service, `None` when there is no library to keep it in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

TASK, BENCHMARK = "task", "benchmark"  # the kinds, as the vocabulary stores them


class Named(Protocol):
    @property
    def label(self) -> str:
        """What people call it (a task's or benchmark's name)."""
        ...


class KnownNames(Protocol):
    def lookup(self, kind: str, prefix: str) -> Sequence[Named]:
        """Names of `kind` with a word starting with `prefix` (`""`: the most recent),
        most recently seen first; blocks briefly on SQLite, never raises."""
        ...
