"""`pwc-mcp-local completion bash|zsh|fish`: print the shell's completion script.

click has completion built in: run with `_PWC_MCP_LOCAL_COMPLETE=bash_source` the
command prints the script, and the script then calls the command back with
`..._COMPLETE=bash_complete` for every Tab. This command prints the same script,
under a name a person can find in `--help`. Add to the shell's start-up file:

    eval "$(pwc-mcp-local completion bash)"                 # ~/.bashrc
    eval "$(pwc-mcp-local completion zsh)"                  # ~/.zshrc
    pwc-mcp-local completion fish | source                  # ~/.config/fish/config.fish

Besides commands and options, Tab completes what a user would otherwise look up:

    pwc-mcp-local call get_paper_o<Tab>             tool names (the contract's table)
    pwc-mcp-local call read_paper_section ma<Tab>   its parameters, as `max_bytes=`
    pwc-mcp-local library remove atten<Tab>         saved papers, by ID or title
    pwc-mcp-local watch remove benchmark <Tab>      the watch list's targets of that kind

Each Tab runs the command once, so these stay fast and local: the contract is plain
data, the library and watch list are read from the local database (never created:
no database, no names), and nothing touches the network. A completion is a hint:
whatever fails gives no names, never an error.

click's bash script is used with one line added: a value ending in `=` (a parameter
name) gets no space after it, so the value follows directly (`NoSpaceBash`).
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

import click
from click.shell_completion import BashComplete, CompletionItem, add_completion_class

from pwc_local.clients.entry import SCRIPT_NAME

log = logging.getLogger(__name__)

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
SHELLS = ("bash", "zsh", "fish")
# The variable click's completion reads, named after the script as click names it.
COMPLETE_VAR = "_PWC_MCP_LOCAL_COMPLETE"
MAX_ITEMS = 200  # saved papers or watches offered at once
MAX_HELP_CHARS = 80


class NoSpaceBash(BashComplete):
    """click's bash completion, with no space after a value ending in `=`."""

    source_template = BashComplete.source_template.replace(
        "            COMPREPLY+=($value)\n",
        "            COMPREPLY+=($value)\n            [[ $value == *= ]] && compopt -o nospace\n",
    )


add_completion_class(NoSpaceBash, "bash")


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish).

    bash: eval "$(pwc-mcp-local completion bash)" in ~/.bashrc; zsh: the same with
    zsh in ~/.zshrc; fish: pwc-mcp-local completion fish | source in
    ~/.config/fish/config.fish.
    """
    from click.shell_completion import get_completion_class

    shell_class = get_completion_class(shell)
    assert shell_class is not None  # every name in SHELLS is one click knows
    root = ctx.find_root().command
    # As click prints it for `_PWC_MCP_LOCAL_COMPLETE=SHELL_source`, byte for byte.
    click.echo(shell_class(root, {}, SCRIPT_NAME, COMPLETE_VAR).source(), nl=False)


# -- what Tab completes (each a click `shell_complete` function) --------------------------


def tool_names(ctx: click.Context, param: Any, incomplete: str) -> list[CompletionItem]:
    """The tools whose names start with what was typed."""
    from pwc_local.contract import TOOLS

    return [CompletionItem(tool.name) for tool in TOOLS if tool.name.startswith(incomplete)]


def tool_parameters(ctx: click.Context, param: Any, incomplete: str) -> list[CompletionItem]:
    """`name=` for the parameters of the tool already typed that are not given yet."""
    from pwc_local.contract import TOOLS

    words = list(ctx.params.get(param.name) or ())
    if "=" in incomplete or (words and words[-1] == "="):
        return []  # a value is being typed: nothing to offer
    # bash splits `limit=3` into `limit`, `=`, `3` (COMP_WORDBREAKS); other shells do not.
    given = {word.split("=", 1)[0] for word in words if "=" in word.strip("=")}
    given |= {word for word, after in itertools.pairwise(words) if after == "="}
    tool = next((tool for tool in TOOLS if tool.name == ctx.params.get("tool")), None)
    if tool is None:
        return []
    return [
        CompletionItem(f"{p.name}=")
        for p in tool.params
        if p.name.startswith(incomplete) and p.name not in given
    ]


def saved_papers(ctx: click.Context, param: Any, incomplete: str) -> list[CompletionItem]:
    """Saved papers whose ID, or a word of whose title, starts with what was typed."""
    from pwc_local.store.library import Library
    from pwc_local.store.library_db import DB_FILE_NAME, default_library_dir

    if not (default_library_dir() / DB_FILE_NAME).is_file():
        return []  # no library: nothing saved, and nothing is created here
    typed = incomplete.casefold()
    try:
        library = Library.open()
        try:
            entries = library.entries(limit=MAX_ITEMS)
        finally:
            library.close()
    except Exception as exc:  # a hint: an unusable library offers nothing
        log.debug("saved papers cannot be completed: %s", type(exc).__name__)
        return []
    return [
        CompletionItem(entry.paper, help=_shown(entry.title))
        for entry in entries
        if entry.paper.casefold().startswith(typed)
        or any(word.startswith(typed) for word in entry.title.casefold().split())
    ]


def watch_targets(ctx: click.Context, param: Any, incomplete: str) -> list[CompletionItem]:
    """The targets on the watch list of the kind already typed, as they were added."""
    from pwc_local.store.library_db import DB_FILE_NAME, default_library_dir
    from pwc_local.store.watchlist import Watchlist

    kind = str(ctx.params.get("kind") or "").casefold()
    if not kind or not (default_library_dir() / DB_FILE_NAME).is_file():
        return []
    before = list(ctx.params.get(param.name) or ())  # the target's words typed already
    typed = " ".join([*before, incomplete]).casefold()
    try:
        watchlist = Watchlist.open()
        try:
            watches = watchlist.watches()
        finally:
            watchlist.close()
    except Exception as exc:  # a hint: an unusable list offers nothing
        log.debug("watch targets cannot be completed: %s", type(exc).__name__)
        return []
    # A target of several words completes from the word being typed on.
    return [
        CompletionItem(
            " ".join(_shown(watch.target).split()[len(before) :]), help=_shown(watch.name)
        )
        for watch in watches[:MAX_ITEMS]
        if watch.kind == kind and " ".join(watch.target.split()).casefold().startswith(typed)
    ]


def _shown(text: str) -> str:
    from pwc_local.safe_text import one_line

    return one_line(text, MAX_HELP_CHARS)
