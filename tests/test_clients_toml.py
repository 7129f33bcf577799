"""Codex `config.toml`: only our `[mcp_servers.NAME]` tables change.

Results are compared byte for byte: what a person sees in their file is the contract.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from pwc_local.clients.errors import ConfigSyntaxError, UnsafeEdit
from pwc_local.clients.tomltables import TomlText, loads

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PREFIX = ("mcp_servers",)
ENTRY = {
    "command": "C:\\Users\\Zoë\\pipx\\pwc-mcp-local.exe",
    "args": ["-m", 'pwc_"local"'],
    "env": {"PWC_API_URL": "http://127.0.0.1:9/api/v1", "ODD KEY": "tab\there\x7f"},
}
SMALL = {"command": "pwc", "args": [], "env": {"A": "1"}}
SMALL_TABLES = (
    '[mcp_servers.pwc-local]\ncommand = "pwc"\nargs = []\n\n[mcp_servers.pwc-local.env]\nA = "1"\n'
)

CONFIG = """# Codex settings
model = "o3"
approval_policy = "on-request"

[mcp_servers.other]
command = "npx"
args = [
  "[this line is not a header]",
  '''[nor this]''',
]

[mcp_servers.other.env]
TOKEN = "x"

# profiles below
[profiles.fast]
model = "o4-mini"
"""


def set_small(text: str, newline: str = "\n") -> str:
    return TomlText(text, newline=newline).set_table(PREFIX, "pwc-local", SMALL)


def removed(text: str, newline: str = "\n") -> str:
    return TomlText(text, newline=newline).remove_table(PREFIX, "pwc-local")


def test_a_fresh_file_gets_our_table_and_its_env_table():
    added = TomlText("").set_table(PREFIX, "pwc-local", ENTRY)
    assert added == (
        "[mcp_servers.pwc-local]\n"
        'command = "C:\\\\Users\\\\Zoë\\\\pipx\\\\pwc-mcp-local.exe"\n'
        'args = ["-m", "pwc_\\"local\\""]\n'
        "\n"
        "[mcp_servers.pwc-local.env]\n"
        'PWC_API_URL = "http://127.0.0.1:9/api/v1"\n'
        '"ODD KEY" = "tab\\there\\u007f"\n'
    )
    assert tomllib.loads(added) == {"mcp_servers": {"pwc-local": ENTRY}}
    assert TomlText(added).remove_table(PREFIX, "pwc-local") == ""


def test_a_new_entry_goes_after_the_other_servers_and_remove_restores_the_bytes():
    added = TomlText(CONFIG).set_table(PREFIX, "pwc-local", ENTRY)
    before_profiles = CONFIG.index("# profiles below")
    rendered = TomlText("").set_table(PREFIX, "pwc-local", ENTRY)
    assert added == CONFIG[:before_profiles] + rendered + "\n" + CONFIG[before_profiles:]
    assert TomlText(added).remove_table(PREFIX, "pwc-local") == CONFIG


def test_replacing_keeps_surrounding_text_and_removes_stale_subtables():
    text = (
        '[mcp_servers.pwc-local]\ncommand = "old"\n\n'
        '[mcp_servers.pwc-local.env]\nOLD = "1"\n\n'
        '# about the next one\n[mcp_servers.next]\ncommand = "n"\n'
    )
    changed = TomlText(text).set_table(PREFIX, "pwc-local", {"command": "new", "args": []})
    assert changed == (
        '[mcp_servers.pwc-local]\ncommand = "new"\nargs = []\n\n'
        '# about the next one\n[mcp_servers.next]\ncommand = "n"\n'
    )


def test_crlf_files_keep_crlf():
    text = 'model = "o3"\r\n\r\n[mcp_servers.other]\r\ncommand = "npx"\r\n'
    added = set_small(text, "\r\n")
    assert added == text + "\r\n" + SMALL_TABLES.replace("\n", "\r\n")
    assert removed(added, "\r\n") == text


def test_a_file_with_mixed_line_breaks_keeps_its_own_and_gets_new_lines_with_lf():
    text = 'model = "o3"\r\nother = 1\n'
    assert set_small(text, "\r\n") == text + "\n" + SMALL_TABLES


def test_headers_inside_multiline_strings_are_not_tables():
    text = 'note = """\n[mcp_servers.pwc-local]\ncommand = "fake"\n"""\n'
    added = TomlText(text).set_table(PREFIX, "pwc-local", {"command": "real"})
    assert added == text + '\n[mcp_servers.pwc-local]\ncommand = "real"\n'


def test_unicode_line_separators_inside_strings_do_not_start_tables():
    # TOML lines end at \n only; U+2028 and U+0085 are ordinary characters in a string.
    text = '[mcp_servers.pwc-local]\ncommand = "old"\nnote = "a\u2028[b]\x85[c]"\n'
    replaced = TomlText(text).set_table(PREFIX, "pwc-local", {"command": "new"})
    assert replaced == '[mcp_servers.pwc-local]\ncommand = "new"\n'


def test_a_trailing_comment_on_our_header_and_comments_in_our_table_are_kept():
    # The hand-written editor wrote the whole table anew: all three comments went.
    text = (
        "[mcp_servers.pwc-local] # ours\n"
        "# my note\n"
        'command = "old" # the old path\n'
        "startup_timeout_sec = 30\n"
    )
    entry = {"command": "pwc", "startup_timeout_sec": 30, "args": []}
    assert TomlText(text).set_table(PREFIX, "pwc-local", entry) == (
        "[mcp_servers.pwc-local] # ours\n"
        "# my note\n"
        'command = "pwc" # the old path\n'
        "startup_timeout_sec = 30\n"
        "args = []\n"
    )


def test_comments_below_our_last_key_belong_to_the_next_table():
    text = '[mcp_servers.pwc-local]\ncommand = "x"\n\n# profiles below\n[profiles.fast]\nm = 1\n'
    assert set_small(text) == SMALL_TABLES + "\n# profiles below\n[profiles.fast]\nm = 1\n"
    assert removed(text) == "# profiles below\n[profiles.fast]\nm = 1\n"
    between = 'a = 1\n\n[mcp_servers.pwc-local]\ncommand = "x"\n\n# next\n[x]\n'
    assert removed(between) == "a = 1\n\n# next\n[x]\n"


def test_a_servers_super_table_with_comments():
    text = (
        "# servers\n[mcp_servers] # all of them\n# none yet\n\n"
        '[mcp_servers.other]\ncommand = "npx"\n'
    )
    added = set_small(text)
    assert added == text + "\n" + SMALL_TABLES
    assert removed(added) == text
    assert set_small("[mcp_servers] # all\n") == "[mcp_servers] # all\n\n" + SMALL_TABLES


def test_an_entry_written_with_dotted_keys_is_edited_in_its_form():
    # The hand-written editor refused these ("edit the file by hand").
    text = '[mcp_servers]\npwc-local.command = "x"\n\n[profiles.fast]\nm = 1\n'
    assert set_small(text) == (
        '[mcp_servers]\npwc-local.command = "pwc"\npwc-local.args = []\n'
        'pwc-local.env = {A = "1"}\n\n[profiles.fast]\nm = 1\n'
    )
    assert removed(text) == "[mcp_servers]\n\n[profiles.fast]\nm = 1\n"
    root = 'mcp_servers.pwc-local.command = "x"\nmodel = "o3"\n'
    assert removed(root) == 'model = "o3"\n'


def test_dotted_other_servers_are_left_alone():
    text = 'mcp_servers.other.command = "npx"\n'
    assert set_small(text) == text + "\n" + SMALL_TABLES
    assert removed(set_small(text)) == text


def test_inline_tables_are_edited_inline():
    # The hand-written editor refused these too.
    ours = 'mcp_servers = { pwc-local = { command = "x" } }\n'
    assert set_small(ours) == (
        'mcp_servers = { pwc-local = {command = "pwc", args = [], env = {A = "1"}} }\n'
    )
    other = 'mcp_servers = { other = { command = "npx" } }\n'
    assert set_small(other) == (
        'mcp_servers = { other = { command = "npx" }, '
        'pwc-local = {command = "pwc", args = [], env = {A = "1"}}}\n'
    )
    assert removed(set_small(other)) == other
    env = '[mcp_servers.pwc-local]\ncommand = "pwc"\nargs = []\nenv = { A = "0" }\n'
    assert set_small(env) == env.replace('{ A = "0" }', '{A = "1"}')


def test_values_that_do_not_change_keep_their_spelling():
    text = (
        "[mcp_servers.pwc-local]\ncommand = 'pwc'\nargs = [ ]\n\n"
        "[mcp_servers.pwc-local.env]\nA = '1' # kept\nB = '2'\n"
    )
    assert set_small(text) == (
        "[mcp_servers.pwc-local]\ncommand = 'pwc'\nargs = [ ]\n\n"
        "[mcp_servers.pwc-local.env]\nA = '1' # kept\n"
    )


def test_the_implicit_parent_goes_with_our_last_table_but_an_explicit_one_stays():
    assert removed('model = "o3"\n\n' + SMALL_TABLES) == 'model = "o3"\n'
    assert removed("[mcp_servers]\n\n" + SMALL_TABLES) == "[mcp_servers]\n"


@pytest.mark.parametrize("text", ["mcp_servers = 1\n", '[[mcp_servers]]\nname = "a"\n'])
def test_a_servers_key_that_is_not_a_table_is_refused(text: str):
    with pytest.raises(UnsafeEdit, match="not a table"):
        set_small(text)


def test_an_edit_tomlkit_cannot_make_is_refused_and_says_so():
    # Our env table split from our table by another one: tomlkit cannot remove both parts.
    text = '[mcp_servers.pwc-local]\ncommand = "x"\n\n[x]\ny = 2\n\n[mcp_servers.pwc-local.env]\n'
    with pytest.raises(UnsafeEdit, match="edit the file by hand"):
        removed(text)


def test_syntax_errors_carry_line_and_column():
    with pytest.raises(ConfigSyntaxError) as caught:
        loads('model = "o3"\n[mcp_servers.x]\ncommand = \n')
    assert (caught.value.line, caught.value.column) == (3, 11)
    with pytest.raises(ConfigSyntaxError) as caught:
        loads('model = "unterminated')
    assert caught.value.line == 1


@pytest.mark.e2e
def test_tomlkit_loads_only_when_a_toml_file_is_edited():
    script = (
        "import sys\n"
        "from pwc_local.clients.installer import ConfigDocument\n"
        "from pwc_local.clients.targets import TARGETS\n"
        "from pwc_local.clients.files import ConfigText\n"
        "document = ConfigDocument(TARGETS['codex'], ConfigText('model = 1\\n'))\n"
        "document.entry('pwc-local')\n"
        "ConfigDocument(TARGETS['cursor'], None).with_entry('pwc-local', {'command': 'x'})\n"
        "print('tomlkit' in sys.modules)\n"
        "document.with_entry('pwc-local', {'command': 'x'})\n"
        "print('tomlkit' in sys.modules)\n"
    )
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert shown.stdout.split() == ["False", "True"], shown.stderr
    version = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pwc_local", "--version"],
        capture_output=True,
        text=True,
    )
    assert version.returncode == 0 and "tomlkit" not in version.stderr
