"""The tool bindings: what answers each tool of the contract, and how it is shown.

`pwc_local.contract` says what each tool is (name, group, parameters, description,
hints); each entry here binds one of them, in the same order, to:

* `query`: the function that answers it (catalog logic in `pwc_local.queries`, no
  MCP), called as `query(*needs, **arguments)` with the runtime services named in
  `needs` and the parameters with `query=True`;
* `output` and `project(answer, arguments)`: the output model, from the query's
  answer and the validated arguments (defaults filled in);
* `text`: the pieces of the text block in the default `markdown` mode
  (`present/render.py`, `present/pieces.py`); by default `generic`, the model as Markdown;
* `summary(model, answer)`: the text block of a hosted tool in the `summary` mode,
  the hosted server's template; `None` (the field or the return value) means the
  model's JSON dump, as the hosted server sends (local tools have no hosted text to
  match: their `summary` mode is their Markdown);
* `links(model)`: the papers the result names, which then get `resource_link`
  items after the text block (`pwc_local.server.links`);
* `viewed`: the leaderboard view shows its results (`pwc_local.server.views`), and
  `view_data(model, answer)` what the view needs beyond the two halves (in `_meta`).

The entries of each contract group live in the module of its name (`hosted.py`,
`library.py`, `reading.py`, `watch.py`, `history.py`), which imports that group's
query and presentation modules. `BY_NAME` imports a group's module when one of its
tools is first asked for: a fresh server's first call to `get_paper_info` does not
wait for the library's, the watch list's or the history tools' modules. `all_tools()`
imports them all, in contract order. The machinery in `pwc_local.server.tools`
derives the rest; the server loads it after `initialize`, never on the way to the
handshake.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Any

from mcp_types import ToolAnnotations

from pwc_local import contract
from pwc_local.contract import Group, Param, Tool
from pwc_local.present.generic import generic

if TYPE_CHECKING:
    from pwc_local.present.hosted import ToolOutput
    from pwc_local.present.record import Presenter
    from pwc_local.present.render import Piece
    from pwc_local.server.links import PaperLink

Arguments = Mapping[str, Any]
QueryFunction = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its contract entry (`tool`) and what answers and shows it."""

    tool: Tool
    query: QueryFunction
    output: type[ToolOutput]
    project: Callable[[Any, Arguments], ToolOutput]
    summary: Callable[[Any, Any], str | None] | None = None
    text: tuple[Piece, ...] = (generic,)
    needs: tuple[str, ...] = ("catalog",)
    links: Callable[[Any], list[PaperLink]] | None = None
    compact: Presenter | None = None
    viewed: bool = False
    view_data: Callable[[Any, Any], dict[str, Any]] | None = None

    @property
    def name(self) -> str:
        return self.tool.name

    @property
    def group(self) -> Group:
        return self.tool.group

    @property
    def params(self) -> tuple[Param, ...]:
        return self.tool.params

    @property
    def description(self) -> str:
        return self.tool.description

    @cached_property
    def annotations(self) -> ToolAnnotations:
        """The MCP annotations the hosted profile sends: the contract's hints."""
        return ToolAnnotations.model_validate(dict(self.tool.hints))

    @cached_property
    def compact_annotations(self) -> ToolAnnotations:
        """The compact profile's: only what MCP's defaults do not say (`contract.unsaid`)."""
        return ToolAnnotations.model_validate(contract.unsaid(self.tool.hints))

    @cached_property  # asked on every tools/call; the params never change
    def references(self) -> frozenset[str]:
        """Parameters naming a paper or an entity: a JSON number there is read as text."""
        return frozenset(p.name for p in self.params if p.reference)


def bind(name: str, **binding: Any) -> ToolSpec:
    """Contract entry `name`, bound (the fields of `ToolSpec` after `tool`)."""
    return ToolSpec(contract.BY_NAME[name], **binding)


def group_tools(group: Group, tools: tuple[ToolSpec, ...]) -> dict[str, ToolSpec]:
    """A group module's entries by name, once they are checked against the contract."""
    if tuple(spec.name for spec in tools) != contract.names(group):
        raise RuntimeError(f"pwc_local.server.bindings.{group} does not bind the contract's tools")
    return {spec.name: spec for spec in tools}


class _Bindings(Mapping[str, ToolSpec]):
    """Every tool's entry by name, in contract order; a group's module loads on first use."""

    def __getitem__(self, name: str) -> ToolSpec:
        tool = contract.BY_NAME[name]  # KeyError for a name the contract lacks
        entries: dict[str, ToolSpec] = import_module(f"{__name__}.{tool.group}").BY_NAME
        return entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(contract.names())

    def __len__(self) -> int:
        return len(contract.names())


BY_NAME: Mapping[str, ToolSpec] = _Bindings()


def all_tools() -> tuple[ToolSpec, ...]:
    """Every entry, in contract order (every group's module imported)."""
    return tuple(BY_NAME[name] for name in contract.names())
