"""Command-line subcommands other than `serve`, each imported only when invoked.

`pwc_local.cli` names them in `LAZY_COMMANDS`; `settings` is what they share (the main
group's flags, one error line). Nothing here imports `pwc_local.cli` back.
"""
