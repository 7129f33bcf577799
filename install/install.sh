#!/bin/sh
# Install pwc-mcp-local with pipx, register it with an MCP client, then check it.
#
#   sh install.sh [--from SPEC] [CLIENT [INSTALL-OPTIONS...]]
#
# SPEC is what pipx installs: by default the pwc-mcp-local package, or a path to a
# checkout or wheel (the PWC_MCP_LOCAL_SPEC environment variable works too). CLIENT is
# any client of `pwc-mcp-local install --help` (claude-desktop, codex, gemini ...) or
# print; options after it go to `pwc-mcp-local install` (for example --force).
#
# Running it again is safe: pipx reinstalls in place, an entry that is already right
# is left alone, and a different entry is only replaced when --force is given (without
# it, the script says how, still runs doctor, and exits 1).
#
# Without pipx, it is installed with the user's Python: `pip install --user pipx`, or,
# where that Python is "externally managed" (PEP 668: Debian 12, Ubuntu 23.04+,
# Homebrew), into a private virtual environment under the user's data directory
# (${XDG_DATA_HOME:-~/.local/share}/pwc-mcp-local/pipx-venv), which later runs reuse.
# It never uses --break-system-packages.
set -eu

spec=${PWC_MCP_LOCAL_SPEC:-pwc-mcp-local}
client=""
python=""
pipx_venv=${XDG_DATA_HOME:-$HOME/.local/share}/pwc-mcp-local/pipx-venv

say() {
    printf 'install.sh: %s\n' "$*" >&2
}

die() {
    say "$*"
    exit 1
}

usage() {
    cat <<'EOF'
usage: sh install.sh [--from SPEC] [CLIENT [INSTALL-OPTIONS...]]

Installs pwc-mcp-local with pipx (installing pipx first if needed), runs
`pwc-mcp-local install CLIENT INSTALL-OPTIONS...`, then `pwc-mcp-local doctor --offline`.
CLIENT: claude-desktop, claude-code, vscode, cursor, windsurf, codex, zed, gemini,
opencode, cline, lmstudio, copilot, goose, print.
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
        --from)
            [ $# -ge 2 ] || die "--from needs a package spec or path"
            spec=$2
            shift 2
            ;;
        --from=*)
            spec=${1#--from=}
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        -*)
            die "unknown option $1 (see --help)"
            ;;
        *)
            client=$1
            shift
            break
            ;;
    esac
done

# A Python 3.10 or newer, needed only when pipx itself is not on PATH.
find_python() {
    for candidate in python3 python; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            python=$candidate
            return 0
        fi
    done
    return 1
}

have_pipx() {
    command -v pipx >/dev/null 2>&1 && return 0
    [ -x "$pipx_venv/bin/pipx" ] && return 0
    [ -n "$python" ] && "$python" -m pipx --version >/dev/null 2>&1
}

run_pipx() {
    if command -v pipx >/dev/null 2>&1; then
        pipx "$@"
    elif [ -x "$pipx_venv/bin/pipx" ]; then
        "$pipx_venv/bin/pipx" "$@"
    else
        "$python" -m pipx "$@"
    fi
}

# PEP 668: a system Python marked EXTERNALLY-MANAGED refuses `pip install --user`.
externally_managed() {
    "$python" -c 'import os, sys, sysconfig
marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
sys.exit(0 if sys.prefix == sys.base_prefix and os.path.exists(marker) else 1)' 2>/dev/null
}

if ! command -v pipx >/dev/null 2>&1 && [ ! -x "$pipx_venv/bin/pipx" ]; then
    find_python || die "pipx is not installed and no Python 3.10+ was found; install Python 3.10 or newer (or pipx) and run this script again"
fi

if ! have_pipx; then
    if externally_managed; then
        say "$python is externally managed (PEP 668); installing pipx into its own environment $pipx_venv"
        "$python" -m venv "$pipx_venv" ||
            die "could not create $pipx_venv with '$python -m venv'; install the venv module (for example 'apt install python3-venv') or pipx itself ('apt install pipx') and run this script again"
        "$pipx_venv/bin/python" -m pip install --quiet pipx ||
            die "could not install pipx into $pipx_venv; install pipx with your package manager (for example 'apt install pipx') and run this script again"
    else
        say "pipx not found; installing it with: $python -m pip install --user pipx"
        "$python" -m pip install --user pipx ||
            die "could not install pipx with pip; install it with your package manager (for example 'apt install pipx' or 'brew install pipx') and run this script again"
    fi
    have_pipx || die "pipx was installed but does not run; install it with your package manager (for example 'apt install pipx') and run this script again"
fi

say "installing $spec with pipx"
# --force reinstalls when it is already there, which picks up a changed local checkout.
run_pipx install --force "$spec" || die "pipx could not install $spec"

bin_dir=$(run_pipx environment --value PIPX_BIN_DIR 2>/dev/null || true)
[ -n "$bin_dir" ] || bin_dir=${PIPX_BIN_DIR:-$HOME/.local/bin}
exe=$bin_dir/pwc-mcp-local
if [ ! -x "$exe" ]; then
    exe=$(command -v pwc-mcp-local || true)
    [ -n "$exe" ] || die "pipx finished but pwc-mcp-local is not in $bin_dir"
fi

case ":$PATH:" in
    *":$bin_dir:"*) ;;
    *) say "note: $bin_dir is not on your PATH; 'pipx ensurepath' adds it (MCP clients do not need it)" ;;
esac

registered=0
if [ -n "$client" ]; then
    "$exe" install "$client" "$@" || registered=$?
    if [ "$registered" -eq 1 ]; then
        # Most often a different entry is there already: install has shown the diff.
        say "the $client entry was not written (above: why); to replace a different entry, run: sh $0 --from $spec $client --force $*"
    fi
else
    say "no client named; register later with: $exe install CLIENT"
fi

# The check runs whether or not the entry was written; the exit status is install's.
"$exe" doctor --offline
exit "$registered"
