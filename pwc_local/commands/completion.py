"""`pwc-mcp-local completion bash|zsh|fish`: print the shell's completion script.

click has completion built in: run with `_PWC_MCP_LOCAL_COMPLETE=bash_source` the
command prints the script, and the script then calls the command back with
`..._COMPLETE=bash_complete` for every Tab. This command prints the same script,
under a name a person can find in `--help`. Add to the shell's start-up file:

    eval "$(pwc-mcp-local completion bash)"                 # ~/.bashrc
    eval "$(pwc-mcp-local completion zsh)"                  # ~/.zshrc
    pwc-mcp-local completion fish | source                  # ~/.config/fish/config.fish
"""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

from pwc_local.clients.entry import SCRIPT_NAME

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
SHELLS = ("bash", "zsh", "fish")
# The variable click's completion reads, named after the script as click names it.
COMPLETE_VAR = "_PWC_MCP_LOCAL_COMPLETE"


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish).

    bash: eval "$(pwc-mcp-local completion bash)" in ~/.bashrc; zsh: the same with
    zsh in ~/.zshrc; fish: pwc-mcp-local completion fish | source in
    ~/.config/fish/config.fish.
    """
    shell_class = get_completion_class(shell)
    assert shell_class is not None  # every name in SHELLS is one click knows
    root = ctx.find_root().command
    # As click prints it for `_PWC_MCP_LOCAL_COMPLETE=SHELL_source`, byte for byte.
    click.echo(shell_class(root, {}, SCRIPT_NAME, COMPLETE_VAR).source(), nl=False)
