"""Does each real client see what `install CLIENT` wrote, and does `doctor` agree?

    python benchmarks/client_listings.py [--server COMMAND] [--clients-dir DIR]
        [--clients claude-code,gemini,codex,opencode,copilot] [--write-docs]
        [--codex-approvals] [--gemini-trust] [--keep DIR] [--no-isolate]

For each client installed from the npm registry into `--clients-dir` (the same
prefix as `real_clients.py`, installed by `real_clients_setup.install_clients` only
when missing), in a scratch HOME of its own: `SERVER install CLIENT` writes two
entries, `pwc-local` (sound) and `pwc-broken` (its program path made one that does
not exist), and the client lists its servers with its own command (`claude mcp
list`, `gemini mcp list`, ...). Then `SERVER doctor --json --offline` runs in the
same HOME, and each entry's state in the client's listing is set beside doctor's:
both should call `pwc-local` good and `pwc-broken` bad. Gemini CLI is listed twice,
in an untrusted folder and then in a trusted one (`trustedFolders.json`, what
`/permissions trust` writes). Codex and Copilot CLI list without starting a server,
so for them the listing shows only that the client read the entry.

`--codex-approvals` adds what `install codex --approve-writes` is for: Codex runs
the scripted session of `real_clients.py` under `codex exec` with approval "never"
and no bypass flag, once as `install codex` leaves it and once with
`--approve-writes`, and the table says what the model got from each tool that writes.
`--gemini-trust` runs the same session under `gemini -p` on the entry `install gemini`
writes: in an untrusted folder, a trusted one, trusted with `--approval-mode yolo`,
and with the entry's own `"trust": true`; the table counts the tools the model was
offered and the results it got (what `install gemini` and `doctor` tell).

The listing runs inside `unshare --net` with only loopback up, as `real_clients.py`
does (unless `--no-isolate`). It is a benchmark, not a test: the clients weigh
1.3 GB; it prints a table and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.real_clients import (  # noqa: E402
    DEFAULT_CLIENTS_DIR,
    ISOLATED,
    default_server,
    prepare_clients,
)
from benchmarks.real_clients_setup import BY_KEY, Client, Scratch  # noqa: E402
from pwc_local.clients.targets import LINUX, TARGETS, Host  # noqa: E402

DOCS = ROOT / "docs" / "benchmarks.md"
HEADING = "## Client listings"
GOOD, BROKEN = "pwc-local", "pwc-broken"
MISSING = "/nonexistent/bin/pwc-mcp-local"
COPILOT = Client("copilot", "GitHub Copilot CLI", "@github/copilot", "copilot", lambda s: ([], {}))
KNOWN = {**BY_KEY, "copilot": COPILOT}
# Each client's listing command; whether the listing starts servers (else it only reads
# the file); and extra environment that keeps it quiet and local.
LISTINGS: dict[str, tuple[list[str], bool, dict[str, str]]] = {
    "claude-code": (
        ["mcp", "list"],
        True,
        {"DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
    ),
    "gemini": (["mcp", "list"], True, {"GEMINI_CLI_NO_RELAUNCH": "true"}),
    "codex": (["mcp", "list"], False, {}),
    "opencode": (
        ["mcp", "list"],
        True,
        {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1"},
    ),
    "copilot": (["mcp", "list", "--json"], False, {}),
}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass
class Row:
    client: str
    version: str
    entry: str
    listed: str  # the client's word for the entry: Connected, Failed, Disabled, enabled...
    doctor: str  # ok / fail, and whether it started the entry
    agree: str


def state_in(listing: str, name: str, key: str) -> str:
    """The client's state for entry `name`, read from its listing's text."""
    text = _ANSI.sub("", listing)
    if key == "copilot":
        try:
            servers = json.loads(text[text.index("{") :])
        except ValueError:
            return "not listed"
        found = _find(servers, name)
        return f"listed, {found}" if found else "not listed"
    if key == "opencode":  # "✓ NAME connected" or "✗ NAME failed", the command below
        match = re.search(rf"[✓✗●○]?\s*{re.escape(name)}\s+(\w[\w ]*)", text)
        return match.group(1).strip() if match else "not listed"
    if key == "codex":  # a table: Name Command Args Env Cwd Status Auth
        for line in text.splitlines():
            if line.split()[:1] == [name]:
                return "listed, " + next(
                    (w for w in line.split() if w in ("enabled", "disabled")), "?"
                )
        return "not listed"
    for line in text.splitlines():  # claude, gemini: "NAME: command - STATE"
        if re.search(rf"(^|\s){re.escape(name)}:", line):
            state = line.rsplit(" - ", 1)[-1].lstrip("✓✔✗✘⏸ ")
            return state.split(" — ")[0].strip()  # Claude Code adds the spawn error
    return "not listed"


def _find(servers: object, name: str) -> str:
    """Copilot's JSON listing: the entry's status (or its type) wherever it is nested."""
    if isinstance(servers, dict):
        if servers.get("name") == name:
            return _word(servers)
        if name in servers and isinstance(servers[name], dict):
            return _word(servers[name])
        for value in servers.values():
            found = _find(value, name)
            if found:
                return found
    if isinstance(servers, list):
        for value in servers:
            found = _find(value, name)
            if found:
                return found
    return ""


def _word(entry: dict[str, object]) -> str:
    if "status" in entry:
        return str(entry["status"]).lower()
    enabled = entry.get("enabled", entry.get("disabled") is not True)
    return "enabled" if enabled else "disabled"


def doctor_states(server: str, env: dict[str, str], cwd: Path, key: str) -> dict[str, str]:
    """doctor's verdict on each of our entries in `key`'s user config."""
    done = subprocess.run(
        [server, "doctor", "--json", "--offline"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    check = next(c for c in report["checks"] if c["name"] == key)
    states = {}
    for name, info in check.get("details", {}).get("entries", {}).items():
        if not info.get("runnable"):
            states[name] = "fail: does not exist"
        else:
            states[name] = "ok: started" if info.get("started") else "fail: did not start"
    if any("trust" in note for note in check.get("notes", [])):
        states = {name: state + " (+ trust note)" for name, state in states.items()}
    return states


def agreement(listed: str, doctor: str, starts: bool, name: str) -> str:
    good_by_client = listed.lower().startswith("connected")
    good_by_doctor = doctor.startswith("ok")
    if listed.lower().startswith("disabled"):
        return "doctor's trust note explains" if "trust" in doctor else "no"
    if not starts:
        return "client only reads it; doctor starts it" if listed != "not listed" else "no"
    return "yes" if good_by_client == good_by_doctor == (name == GOOD) else "no"


def run_client(key: str, binary: Path, server: str, root: Path) -> list[tuple[str, str, str, str]]:
    """Install both entries, list them, ask doctor: (listing label, entry, the client's
    state, doctor's) per entry and listing."""
    scratch = Scratch(root, "http://127.0.0.1:9", "http://127.0.0.1:9/api/v1", server)
    scratch.work.mkdir(parents=True, exist_ok=True)
    argv, _, extra = LISTINGS[key]
    env = dict(scratch.base_env(), **extra)
    target = key  # the benchmark's client keys are install's CLIENT names

    def install(name: str) -> None:
        subprocess.run(
            [server, "install", target, "--name", name],
            env=env,
            cwd=scratch.work,
            check=True,
            capture_output=True,
            timeout=120,
        )

    install(BROKEN)
    config = _config_file(target, env)
    config.write_text(config.read_text().replace(_program(server, env), MISSING))
    install(GOOD)

    def listing() -> str:
        done = subprocess.run(
            [str(binary), *argv],
            env=env,
            cwd=scratch.work,
            capture_output=True,
            text=True,
            timeout=180,
        )
        return done.stdout + done.stderr

    results = []
    labels = (
        [("untrusted folder", None), ("trusted folder", scratch.work)]
        if key == "gemini"
        else [("", None)]
    )
    for label, trusted in labels:
        if trusted is not None:
            trust = scratch.home / ".gemini" / "trustedFolders.json"
            trust.write_text(json.dumps({str(trusted): "TRUST_FOLDER"}))
        text = listing()
        (root / f"listing{'-' + label.split()[0] if label else ''}.txt").write_text(text)
        for name in (GOOD, BROKEN):
            results.append((label, name, state_in(text, name, key)))
    doctor = doctor_states(server, env, scratch.work, target)
    return [(label, name, state, doctor.get(name, "not seen")) for label, name, state in results]


def _program(server: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [server, "install", "print"], env=env, capture_output=True, text=True, timeout=60
    )
    document, _ = json.JSONDecoder().raw_decode(done.stdout.lstrip())
    return str(document["mcpServers"]["pwc-local"]["command"])


def run_project(key: str, binary: Path, server: str, root: Path) -> str:
    """`install KEY --project DIR` in a git checkout, the folder trusted as its
    `--project` notice says (Claude Code's approval is left undone), then the client's
    listing there: its state for `pwc-local`."""
    scratch = Scratch(root, "http://127.0.0.1:9", "http://127.0.0.1:9/api/v1", server)
    work = scratch.work
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(work)], check=True, timeout=60)
    argv, _, extra = LISTINGS[key]
    env = dict(scratch.base_env(), **extra)
    # A project entry runs `pwc-mcp-local` by name: this installation's on the PATH.
    env["PATH"] = f"{Path(server).parent}{os.pathsep}{env.get('PATH', '')}"
    subprocess.run(
        [server, "install", key, "--project", str(work)],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    home = scratch.home
    if key == "gemini":
        _write(home / ".gemini" / "trustedFolders.json", {str(work): "TRUST_FOLDER"})
    elif key == "copilot":
        _write(home / ".copilot" / "config.json", {"trusted_folders": [str(work)]})
    elif key == "codex":
        config = home / ".codex" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f'[projects.{json.dumps(str(work))}]\ntrust_level = "trusted"\n')
    done = subprocess.run(
        [str(binary), *argv], env=env, cwd=work, capture_output=True, text=True, timeout=180
    )
    return state_in(done.stdout + done.stderr, GOOD, key)


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def _config_file(target: str, env: dict[str, str]) -> Path:
    """The file `install TARGET` writes in this scratch HOME."""
    host = Host(LINUX, env, Path(env["HOME"]))
    return TARGETS[target].user_path(host)


WRITING = ("save_papers", "watch", "whats_new")


def codex_approvals(clients_dir: Path, server: str, base: Path) -> str:
    """Codex's `exec` with approval "never", without and with `--approve-writes`: what
    the model received from each tool that writes, as a Markdown table."""
    from benchmarks.real_clients import run_client as run_scripted
    from benchmarks.real_clients_api import ScriptedApi
    from benchmarks.real_clients_setup import SERVER_NAME, codex
    from tests.fake_catalog.server import FakeCatalog

    def prepare(approve: bool) -> Callable[[Scratch], tuple[list[str], dict[str, str]]]:
        def setup(scratch: Scratch) -> tuple[list[str], dict[str, str]]:
            argv, env = codex(scratch)  # config.toml, then `install codex`
            if approve:
                flags = [f"--env={k}={v}" for k, v in scratch.server_env().items()]
                install = [server, "install", "codex", "--name", SERVER_NAME]
                subprocess.run(
                    [*install, "--approve-writes", "--force", *flags],
                    env=env,
                    check=True,
                    capture_output=True,
                    timeout=120,
                )
            return [a for a in argv if a != "--dangerously-bypass-approvals-and-sandbox"], env

        return setup

    binary = clients_dir / "node_modules" / ".bin" / "codex"
    lines = ["| `install codex` | " + " | ".join(f"`{t}`" for t in WRITING) + " |"]
    lines.append("| --- |" + " --- |" * len(WRITING))
    fake = FakeCatalog().start()
    try:
        with ScriptedApi() as api:
            for approve in (False, True):
                label = "--approve-writes" if approve else "(no flag)"
                client = Client("codex", "Codex", "@openai/codex", "codex", prepare(approve))
                scratch = Scratch(base / f"codex-{approve}", api.url, fake.api_url, server)
                model, outcome = run_scripted(client, binary, api, scratch, 300.0)
                cells = []
                for tool in WRITING:
                    got = [r for r in model.received.values() if r.call.tool == tool]
                    if not got:
                        cells.append("never reached the model")
                        continue
                    text = " ".join(got[0].payload.split())
                    text = text.split("Output: ", 1)[-1][:60].replace("|", "/")  # Codex's prefix
                    refused = "requires approval" in text
                    cells.append(("refused: " if refused else "ran: ") + f"`{text}`")
                if outcome.error:
                    cells[-1] += f" ({outcome.error[:60]})"
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
    finally:
        fake.stop()
    return "\n".join(lines)


def gemini_trust(clients_dir: Path, server: str, base: Path) -> str:
    """Gemini CLI's `-p` on the entry `install gemini` writes: in an untrusted folder,
    in a trusted one, and trusted with `--approval-mode yolo`; how many of our tools
    the model was offered and how many results it got, as a Markdown table."""
    from benchmarks.real_clients import run_client as run_scripted
    from benchmarks.real_clients_api import ScriptedApi, match_tool
    from benchmarks.real_clients_setup import PROMPT
    from pwc_local.contract import TOOLS
    from tests.fake_catalog.server import FakeCatalog

    def prepare(
        trusted: bool, yolo: bool, entry_trust: bool
    ) -> Callable[[Scratch], tuple[list[str], dict[str, str]]]:
        def setup(scratch: Scratch) -> tuple[list[str], dict[str, str]]:
            scratch.install("gemini")  # the entry exactly as install writes it
            settings_file = scratch.home / ".gemini" / "settings.json"
            settings = json.loads(settings_file.read_text())
            if entry_trust:  # Gemini's own per-server switch: no confirmations for it
                settings["mcpServers"]["pwc-local"]["trust"] = True
            settings.update(
                security={"auth": {"selectedType": "gemini-api-key"}},
                privacy={"usageStatisticsEnabled": False},
                telemetry={"enabled": False},
                general={"disableAutoUpdate": True, "disableUpdateNag": True},
            )
            settings_file.write_text(json.dumps(settings, indent=2))
            if trusted:
                trust = scratch.home / ".gemini" / "trustedFolders.json"
                trust.write_text(json.dumps({str(scratch.work): "TRUST_FOLDER"}))
            env = dict(
                scratch.base_env(),
                GEMINI_API_KEY="scripted",
                GOOGLE_GEMINI_BASE_URL=scratch.api_url,
                GEMINI_CLI_NO_RELAUNCH="true",
            )
            return ["-p", PROMPT, *(["--approval-mode", "yolo"] if yolo else [])], env

        return setup

    binary = clients_dir / "node_modules" / ".bin" / "gemini"
    lines = ["| folder, approval | our tools offered | results the model got |"]
    lines.append("| --- | --- | --- |")
    fake = FakeCatalog().start()
    try:
        with ScriptedApi() as api:
            variants = ((False, False, False), (True, False, False), (True, True, False))
            for trusted, yolo, entry_trust in (*variants, (True, False, True)):
                label = "trusted" if trusted else "untrusted"
                label += ", `--approval-mode yolo`" if yolo else ", default approval"
                label += ', entry `"trust": true`' if entry_trust else ""
                setup = prepare(trusted, yolo, entry_trust)
                client = Client("gemini", "Gemini CLI", "", "gemini", setup)
                name = f"gemini-{trusted:d}{yolo:d}{entry_trust:d}"
                scratch = Scratch(base / name, api.url, fake.api_url, server)
                model, outcome = run_scripted(client, binary, api, scratch, 300.0)
                offered = sum(bool(match_tool(t.name, model.offered)) for t in TOOLS)
                got = sum(not r.error for r in model.received.values())
                said = next((line for line in outcome.log if "trusted" in line), outcome.error)
                note = (
                    f" (exit {outcome.exit_code}: {said.split('. ')[0]})"
                    if said and not got
                    else ""
                )
                lines.append(f"| {label} | {offered} of {len(TOOLS)} | {got}{note} |")
    finally:
        fake.stop()
    return "\n".join(lines)


def render(rows: list[Row]) -> str:
    lines = [
        "| client | version | entry | client's listing | doctor | agree |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r.client} | {r.version} | `{r.entry}` | {r.listed} | {r.doctor} | {r.agree} |"
        )
    return "\n".join(lines)


def docs_section(table: str, label: str, when: str, network: str) -> str:
    return (
        f"{HEADING}\n\n"
        f"`benchmarks/client_listings.py`, {when}, server {label}, network: {network}. "
        f"Each client installed from npm, `install CLIENT` in a scratch HOME, then the "
        f"client's own listing; `{BROKEN}` is the same entry with a program that does not "
        f"exist. Codex and Copilot CLI list without starting servers (their state is what "
        f"they read); the others start each entry. A `--project` row trusts the folder as "
        f"`install`'s notice says (Claude Code's one-time approval is left undone). Cline, "
        f"LM Studio and Goose are not on npm: tests/test_clients_documented.py checks what "
        f"`install` writes for them against their documented format.\n\n"
        f"{table}\n"
    )


def replace_section(document: str, section: str) -> str:
    start = document.find(HEADING + "\n")
    if start < 0:
        return document.rstrip("\n") + "\n\n" + section
    end = document.find("\n## ", start + len(HEADING))
    rest = "" if end < 0 else document[end + 1 :]
    return document[:start] + section + ("\n" + rest if rest else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients-dir", type=Path, default=DEFAULT_CLIENTS_DIR)
    parser.add_argument("--server", default=default_server())
    parser.add_argument("--clients", default=",".join(LISTINGS))
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--no-isolate", action="store_true")
    parser.add_argument("--keep", type=Path, help="keep each client's scratch directory here")
    parser.add_argument("--codex-approvals", action="store_true", help="also run codex exec")
    parser.add_argument("--gemini-trust", action="store_true", help="also run gemini -p")
    args = parser.parse_args()
    listed = {key: KNOWN[key] for key in LISTINGS}
    keys, versions = prepare_clients(parser, args, listed, "no network namespace here")
    label = subprocess.run(
        [args.server, "--version"], capture_output=True, text=True, timeout=60
    ).stdout.strip()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="pwc-listings-") as temp:
        base = args.keep or Path(temp)
        for key in keys:
            client = KNOWN[key]
            binary = args.clients_dir / "node_modules" / ".bin" / client.command
            print(f"listing {key} ...", file=sys.stderr, flush=True)
            try:
                found = run_client(key, binary, args.server, base / key)
            except (OSError, subprocess.SubprocessError, RuntimeError, ValueError) as error:
                rows.append(
                    Row(client.title, versions.get(key, ""), "-", str(error)[:120], "-", "-")
                )
                continue
            starts = LISTINGS[key][1]
            for label_, name, listed, doctor in found:
                title = f"{client.title} ({label_})" if label_ else client.title
                agree = agreement(listed, doctor, starts, name)
                rows.append(Row(title, versions.get(key, ""), name, listed, doctor, agree))
            if TARGETS[key].project_path is not None:
                try:
                    listed = run_project(key, binary, args.server, base / f"{key}-project")
                except (OSError, subprocess.SubprocessError) as error:
                    listed = str(error)[:120]
                title = f"{client.title} (`--project`, folder trusted)"
                note = "(project files are not doctor's)"
                rows.append(Row(title, versions.get(key, ""), GOOD, listed, note, "-"))
        table = render(rows)
        if args.codex_approvals:
            print("codex exec, approval never ...", file=sys.stderr, flush=True)
            approvals = codex_approvals(args.clients_dir, args.server, base)
            table += (
                '\n\n`codex exec` with approval "never" and no bypass flag, running the '
                "scripted session of `real_clients.py`: what the model got from each tool "
                "that writes.\n\n" + approvals
            )
        if args.gemini_trust:
            print("gemini -p, untrusted and trusted ...", file=sys.stderr, flush=True)
            table += (
                "\n\n`gemini -p` running the scripted session on the entry `install gemini` "
                "writes, with nothing else set:\n\n"
                + gemini_trust(args.clients_dir, args.server, base)
            )
    print(table)
    if args.write_docs:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        network = os.environ.get(ISOLATED) or "not isolated"
        document = replace_section(
            DOCS.read_text(encoding="utf-8"), docs_section(table, label, when, network)
        )
        DOCS.write_text(document, encoding="utf-8")
        print(f"written to {DOCS}", file=sys.stderr)


if __name__ == "__main__":
    main()
