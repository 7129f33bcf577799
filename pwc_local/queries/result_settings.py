"""The settings a result was obtained under, and the groups of comparable results.

A leaderboard mixes results that cannot be compared: trained with extra data or
without, on one split or another, with 0 or 5 examples in the prompt, under one
evaluation harness or another. The catalog records four such settings per result
(`docs`: catalog-api.md, evaluation row):

| setting     | from the row                                            |
| ----------- | ------------------------------------------------------- |
| extra data  | `uses_additional_data` (missing counts as without)      |
| split       | the first non-empty of `split`, `split_name`, `evaluated_on` |
| shots       | the shot count written in `methodology` (`5-shot`)      |
| protocol    | `harness` (`verified`, `timm`)                          |

The rest of `methodology` is free text ("Table 3") and would make every paper a
group of its own, so only its shot count counts. Results with equal settings are
comparable; `results_table`, `check_claim` and the history tools group by them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, TypeVar

from pwc_local.queries.leaderboard import row_split, shot_count

__all__ = ["Setting", "differences", "grouped", "setting_of"]

T = TypeVar("T")


class Setting(NamedTuple):
    """One result's settings (empty text: the catalog does not say)."""

    extra_data: bool
    split: str
    shots: str
    protocol: str

    @property
    def label(self) -> str:
        """`no extra data, test split, 5-shot, verified protocol`: what is known, in words."""
        return ", ".join(part for part in _parts(self) if part)


def _parts(setting: Setting) -> tuple[str, str, str, str]:
    return (
        "extra data" if setting.extra_data else "no extra data",
        f"{setting.split} split" if setting.split else "",
        f"{setting.shots}-shot" if setting.shots else "",
        f"{setting.protocol} protocol" if setting.protocol else "",
    )


_UNSAID = ("", "split not given", "shots not given", "no protocol named")


def setting_of(row: Mapping[str, Any]) -> Setting:
    """The settings of a (merged) evaluation row."""
    harness = row.get("harness")
    return Setting(
        extra_data=row.get("uses_additional_data") is True,
        split=" ".join(row_split(row).split()),
        shots=shot_count(row.get("methodology")),
        protocol=" ".join(str(harness).split()) if harness not in (None, "") else "",
    )


def differences(mine: Setting, other: Setting) -> list[str]:
    """What `other` was obtained under where it differs from `mine`: `["extra data"]`."""
    said, unsaid = _parts(other), _UNSAID
    return [
        said[index] or unsaid[index]
        for index, (a, b) in enumerate(zip(mine, other, strict=True))
        if a != b
    ]


def grouped(items: Iterable[tuple[Setting, T]]) -> list[tuple[Setting, list[T]]]:
    """Items by setting: the largest group first; equal sizes in order of first appearance
    (so with items best first, the group holding the best result leads a tie)."""
    groups: dict[Setting, list[T]] = {}
    for setting, item in items:
        groups.setdefault(setting, []).append(item)
    order = {setting: index for index, setting in enumerate(groups)}
    return sorted(groups.items(), key=lambda pair: (-len(pair[1]), order[pair[0]]))
