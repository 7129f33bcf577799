<#
.SYNOPSIS
Install pwc-mcp-local with pipx, register it with an MCP client, then check it.

.DESCRIPTION
Installs pwc-mcp-local with pipx (installing pipx with your Python first when it is
missing), runs `pwc-mcp-local install CLIENT`, then `pwc-mcp-local doctor --offline`.
Running it again is safe: pipx reinstalls in place, an entry that is already right is
left alone, and a different entry is only replaced with -Force.

.PARAMETER Client
claude-desktop, claude-code, vscode, cursor, windsurf, codex, zed, gemini, opencode,
cline, lmstudio, copilot, goose or print. Leave it out to install without registering
anywhere.

.PARAMETER From
What pipx installs: the pwc-mcp-local package by default, or a path to a checkout or
wheel. The PWC_MCP_LOCAL_SPEC environment variable sets the default.

.PARAMETER Force
Replace an existing, different entry of the same name.

.PARAMETER Env
KEY=VALUE pairs for the server's environment, for example PWC_API_URL=...

.PARAMETER Name
Entry name in the client's configuration (default pwc-local).

.EXAMPLE
powershell -ExecutionPolicy Bypass -File install.ps1 claude-desktop

.EXAMPLE
.\install.ps1 vscode -From C:\src\pwc-mcp-local -Env PWC_API_URL=http://127.0.0.1:8000/api/v1
#>
[CmdletBinding()]
param(
    [Parameter(Position = 0)]
    [string] $Client = "",

    [string] $From = "",

    [switch] $Force,

    [Alias("Env")]
    [string[]] $ServerEnv = @(),

    [string] $Name = "",

    # Anything after `--` is passed to `pwc-mcp-local install` unchanged.
    [Parameter(ValueFromRemainingArguments = $true)]
    [string[]] $InstallArgs = @()
)

$ErrorActionPreference = "Stop"
Set-StrictMode -Version 3

function Say([string] $Message) {
    [Console]::Error.WriteLine("install.ps1: $Message")
}

function Fail([string] $Message) {
    Say $Message
    exit 1
}

if (-not $From) {
    $From = if ($env:PWC_MCP_LOCAL_SPEC) { $env:PWC_MCP_LOCAL_SPEC } else { "pwc-mcp-local" }
}

# A Python 3.10+ as a command plus leading arguments, e.g. @("py", "-3").
function Find-Python {
    # Windows PowerShell 5.1 turns a native command's stderr into terminating errors
    # under "Stop" when it is redirected; these probes expect stderr noise.
    $ErrorActionPreference = "Continue"
    foreach ($candidate in @(@("py", "-3"), @("python"), @("python3"))) {
        if (-not (Get-Command $candidate[0] -ErrorAction SilentlyContinue)) { continue }
        $lead = @($candidate | Select-Object -Skip 1)
        # The Microsoft Store "python" alias exits non-zero here instead of running.
        & $candidate[0] @lead -c "import sys; sys.exit(sys.version_info < (3, 10))" 2>$null
        if ($LASTEXITCODE -eq 0) { return , $candidate }
    }
    return $null
}

$script:Python = $null
$script:PipxOnPath = [bool](Get-Command pipx -ErrorAction SilentlyContinue)

function Invoke-Python([string[]] $Arguments) {
    $lead = @($script:Python | Select-Object -Skip 1)
    & $script:Python[0] @lead @Arguments
}

function Invoke-Pipx([string[]] $Arguments) {
    if ($script:PipxOnPath) {
        & pipx @Arguments
    } else {
        Invoke-Python (@("-m", "pipx") + $Arguments)
    }
}

function Test-Pipx {
    $ErrorActionPreference = "Continue"
    if ($script:PipxOnPath) { return $true }
    if (-not $script:Python) { return $false }
    Invoke-Python @("-m", "pipx", "--version") *> $null
    return ($LASTEXITCODE -eq 0)
}

if (-not $script:PipxOnPath) {
    $script:Python = Find-Python
    if (-not $script:Python) {
        Fail "pipx is not installed and no Python 3.10+ was found; install Python 3.10 or newer from python.org (or pipx) and run this script again"
    }
}

if (-not (Test-Pipx)) {
    Say "pipx not found; installing it with: $($script:Python -join ' ') -m pip install --user pipx"
    Invoke-Python @("-m", "pip", "install", "--user", "pipx")
    if ($LASTEXITCODE -ne 0) { Fail "could not install pipx with pip; see https://pipx.pypa.io for other ways, then run this script again" }
    if (-not (Test-Pipx)) { Fail "pipx was installed but '-m pipx' does not run; check your Python user site" }
}

Say "installing $From with pipx"
# --force reinstalls when it is already there, which picks up a changed local checkout.
Invoke-Pipx @("install", "--force", $From)
if ($LASTEXITCODE -ne 0) { Fail "pipx could not install $From" }

function Get-PipxBinDir {
    $ErrorActionPreference = "Continue"
    $value = Invoke-Pipx @("environment", "--value", "PIPX_BIN_DIR") 2>$null | Select-Object -Last 1
    if ($LASTEXITCODE -ne 0) { return "" }
    return "$value".Trim()
}

$binDir = Get-PipxBinDir
if (-not $binDir) {
    $binDir = if ($env:PIPX_BIN_DIR) { $env:PIPX_BIN_DIR } else { Join-Path $HOME ".local\bin" }
}
$exe = Join-Path $binDir "pwc-mcp-local.exe"
if (-not (Test-Path -LiteralPath $exe -PathType Leaf)) {
    $found = Get-Command pwc-mcp-local -ErrorAction SilentlyContinue
    if (-not $found) { Fail "pipx finished but pwc-mcp-local is not in $binDir" }
    $exe = $found.Source
}

$pathDirs = @($env:PATH -split [IO.Path]::PathSeparator)
if ($pathDirs -notcontains $binDir) {
    Say "note: $binDir is not on your PATH; 'pipx ensurepath' adds it (MCP clients do not need it)"
}

if ($Client) {
    $options = @()
    if ($Force) { $options += "--force" }
    if ($Name) { $options += @("--name", $Name) }
    foreach ($pair in $ServerEnv) { $options += @("--env", $pair) }
    & $exe install $Client @options @InstallArgs
    if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
} else {
    Say "no client named; register later with: & '$exe' install CLIENT"
}

& $exe doctor --offline
exit $LASTEXITCODE
