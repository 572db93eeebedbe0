"""Secrets by family, not by example: disguised tokens of many families are refused on
every face that writes, and withheld on every face that copies stored text out.

Every fake token is assembled here from pieces (and none is a real credential), so this
file itself holds no string a secret scanner would flag.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format.secrets import (
    SecretFoundError,
    ensure_no_secrets_together,
    find_secrets,
    redact,
)
from memoir_tui.core.loop.brief import render_brief
from memoir_tui.core.rules.withhold import WITHHELD, withhold_lines, withhold_secrets
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.mcp.server import build_server
from tests.conftest import examples
from tests.deadlines import SAFETY_NET

R = (
    "q7Xk2"
    + "Lm9Vt"
    + "R4wZp"
    + "8NcYh"
    + "3JsGd"
    + "6BfTu"
    + "1EaWn"
    + "5HyKe"
    + "0PiQo"
    + "9MrSv"
)
R = R + R[::-1]
HEX = "3f9a1c7e" + "5b2d8046" + "a7c4e2f1" + "09b8d6c3"  # 32 varied hex digits
HEX64 = HEX + HEX[::-1]
BECH = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"  # age's bech32 alphabet

# The families, each as the plain token a disguise starts from.
GH = "gh" + "p_" + R[:36]
AKIA = "AK" + "IA" + "Q3EGRTZ7VXK2HW5N"
ANT = "sk-" + "ant-" + "api03-" + R[:60]
SLACK_BOT = "xo" + "xb-" + "2048" + "1937" + "5562-" + "4096" + "2817" + "3345" + "7-" + R[:24]
SLACK_APP = "xa" + "pp-1-" + "A0" + "4BC2" + "DEF7-" + "1234" + "5678" + "90-" + HEX64[:40]
DISCORD = (
    base64.b64encode(b"1234" + b"5678" + b"9012" + b"345678").decode().rstrip("=")
    + ".GhT3kQ."
    + R[:38]
)
TELEGRAM = "1234" + "56789" + ":AA" + R[:33]
GCP_SA = (
    '{"type": "service_account", "project_id": "demo", "private_key_id": "'
    + HEX[:32]
    + HEX[:8]
    + '"}'
)
AZURE_CONN = "DefaultEndpointsProtocol=https;AccountName=demo;Account" + "Key=" + R[:86] + "==;"
AZURE_CLIENT = "abc8" + "Q~" + R[:34]
SHOPIFY = "shp" + "at_" + HEX
SHOPIFY_SS = "shp" + "ss_" + HEX[::-1]
HEROKU = "HR" + "KU-" + "AA" + R[:58]
DIGITALOCEAN = "do" + "p_v1_" + HEX64
SENDGRID = "S" + "G." + R[:22] + "." + R[22:65]
MAILGUN = "ke" + "y-" + "3ax6xnjp" + "29jd6fds" + "4gc373sg" + "vjxteol0"
POSTMARK = "X-Postmark-Server-To" + "ken: " + "3f9a1c7e-5b2d-4046-9a1c-7e5b2d80463f"
AGE = "AGE-" + "SECRET-" + "KEY-1" + BECH + BECH[:26]
VAULT = "hv" + "s." + R[:90]
VAULT_OLD = "VAULT_ADDR set; token s." + R[:24]
MYSQL = "mysql -u root -p" + "Zebra7" + "horse app_db"
SSHPASS = "sshpass -p '" + "Zebra7" + "horse' ssh deploy@host"
PASSWORD_FLAG = "tool login --pass" + "word=" + "Zebra7" + "horse"
CURL = "curl -u admin:" + "Zebra7" + "horse https://api.example.org/v1"
NETRC = "machine api.example.org login ada pass" + "word " + "Zebra7" + "horse"
REDIS = "redis-cli -h cache -a " + "Zebra7" + "horse ping"


def _url(text: str) -> str:
    return urllib.parse.quote(text, safe="").replace("_", "%5F").replace("-", "%2D")


def _url_all(text: str) -> str:
    return "".join(f"%{ord(c):02X}" for c in text)


def _hex(text: str) -> str:
    return text.encode().hex()


def _json_u(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def _html_dec(text: str) -> str:
    return "".join(f"&#{ord(c)};" for c in text)


def _html_hex(text: str) -> str:
    return "".join(f"&#x{ord(c):x};" for c in text)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _octal(text: str) -> str:
    return "".join(f"\\{ord(c):03o}" for c in text)


def _octal0(text: str) -> str:  # echo -e's form
    return "".join(f"\\0{ord(c):03o}" for c in text)


def _swap(text: str, at: int, look_alike: str) -> str:
    return text[:at] + look_alike + text[at + 1 :]


def _mark(text: str, mark: str, *cuts: int) -> str:
    out, last = [], 0
    for cut in cuts:
        out.append(text[last:cut])
        last = cut
    out.append(text[last:])
    return mark.join(out)


# (name, disguised secret): each goes into ordinary words, and must be found, redacted
# and refused everywhere. 59 or more, over every family above and every disguise.
DISGUISES: list[tuple[str, str]] = [
    # the new families as written
    ("slack-bot", SLACK_BOT),
    ("slack-app", SLACK_APP),
    ("discord-bot", DISCORD),
    ("telegram-bot", TELEGRAM),
    ("gcp-service-account", GCP_SA),
    ("azure-connection", AZURE_CONN),
    ("azure-client-secret", AZURE_CLIENT),
    ("shopify-access", SHOPIFY),
    ("shopify-shared", SHOPIFY_SS),
    ("heroku", HEROKU),
    ("digitalocean", DIGITALOCEAN),
    ("sendgrid", SENDGRID),
    ("mailgun", MAILGUN),
    ("postmark", POSTMARK),
    ("age", AGE),
    ("vault", VAULT),
    ("vault-legacy", VAULT_OLD),
    ("mysql-p", MYSQL),
    ("sshpass", SSHPASS),
    ("password-flag", PASSWORD_FLAG),
    ("curl-user", CURL),
    ("netrc", NETRC),
    ("netrc-lines", NETRC.replace(" login", "\n  login").replace(" pass", "\n  pass")),
    ("redis-cli", REDIS),
    # encodings
    ("url-github", _url(GH)),
    ("url-aws", _url_all(AKIA)),
    ("url-slack", _url(SLACK_BOT)),
    ("url-shopify", _url_all(SHOPIFY)),
    ("url-password", "pass" + "word%3D" + "Zebra7" + "horse"),
    ("url-twice", _url_all(_url_all(GH)).replace("%25", "%25")),
    ("hex-github", _hex(GH)),
    ("hex-anthropic", _hex(ANT)),
    ("hex-sendgrid", _hex(SENDGRID)),
    ("json-u-aws", _json_u(AKIA)),
    ("json-u-vault", _json_u(VAULT)),
    ("json-u-digitalocean", _json_u(DIGITALOCEAN)),
    ("html-dec-github", _html_dec(GH)),
    ("html-hex-shopify", _html_hex(SHOPIFY)),
    ("base64-mysql", _b64(MYSQL)),
    ("base64-netrc", _b64(NETRC)),
    ("url-of-json-u", _url_all(_json_u(GH))),
    ("octal-github", _octal(GH)),
    ("octal-aws", _octal(AKIA)),
    ("octal0-anthropic", _octal0(ANT)),
    ("octal0-slack", _octal0(SLACK_BOT)),
    # separators inside a family's prefix
    ("space-in-ghp", GH[:2] + " " + GH[2:]),
    ("dash-in-ghp", GH[:2] + "-" + GH[2:]),
    ("spaces-in-ghp", " ".join(GH[:4]) + " " + GH[4:]),
    ("space-in-sk-ant", ANT[:3] + " " + ANT[3:]),
    ("space-in-akia", AKIA[:2] + " " + AKIA[2:]),
    ("space-in-xoxb", SLACK_BOT[:3] + " " + SLACK_BOT[3:]),
    ("dot-in-shpat", SHOPIFY[:3] + "." + SHOPIFY[3:]),
    ("newline-in-hvs", VAULT[:2] + "\n" + VAULT[2:]),
    ("zwsp-and-space-in-dop", DIGITALOCEAN[:1] + "\u200b " + DIGITALOCEAN[1:]),
    # look-alike letters in a family's prefix
    ("cyrillic-ghp", _swap(GH, 1, "\u04bb")),
    ("cyrillic-akia", _swap(AKIA, 0, "\u0410")),
    ("greek-sk-ant", _swap(ANT, 1, "\u03ba")),
    ("cyrillic-xoxb", _swap(SLACK_BOT, 1, "\u043e")),
    ("cyrillic-shpat", _swap(SHOPIFY, 3, "\u0430")),
    ("hyphen-look-alike-sk-ant", ANT.replace("-", "\u2010")),
    ("en-dash-aws", _mark(AKIA, "\u2013", 4, 8, 12)),
    ("fullwidth-hvs", "".join(chr(ord(c) + 0xFEE0) for c in VAULT[:4]) + VAULT[4:]),
    # invisible code points inside
    ("zwsp-digitalocean", _mark(DIGITALOCEAN, "\u200b", 10, 30, 50)),
    ("zwj-slack", _mark(SLACK_BOT, "\u200d", 8, 20)),
    ("soft-hyphen-age", _mark(AGE, "\u00ad", 20, 40)),
    ("lrm-heroku", _mark(HEROKU, "\u200e", 12, 30)),
    ("rlo-telegram", _mark(TELEGRAM, "\u202e", 16)),
    ("word-joiner-discord", _mark(DISCORD, "\u2060", 30, 50)),
    ("bom-aws", _mark(AKIA, "\ufeff", 6, 12)),
    # separators inside a token
    ("tab-github", _mark(GH, "\t", 12, 24)),
    ("dash-aws", _mark(AKIA, "-", 4, 8, 12, 16)),
    ("space-aws", _mark(AKIA, " ", 4, 8, 12, 16)),
    ("space-shopify", _mark(SHOPIFY, " ", 14, 26)),
    ("tab-digitalocean", _mark(DIGITALOCEAN, "\t", 20, 45)),
    ("dash-age", _mark(AGE, "-", 30, 50)),
    ("newline-vault", _mark(VAULT, "\n", 30, 60)),
    ("dash-mailgun", _mark(MAILGUN, "-", 12, 24)),
]


# What must be gone once a disguise is redacted or withheld: six characters of the secret
# itself (by default from the middle of the disguise; named where words surround it).
_TELLS = {
    "gcp-service-account": HEX[10:16],
    "postmark": "5b2d-4046",
    "vault-legacy": R[5:11],
    "azure-connection": R[40:46],
    **{n: "ebra7h" for n in ("mysql-p", "sshpass", "password-flag", "curl-user", "redis-cli")},
    **{n: "ebra7h" for n in ("netrc", "netrc-lines", "url-password")},
}


def _tell(name: str, secret: str) -> str:
    return _TELLS.get(name) or secret[len(secret) // 2 : len(secret) // 2 + 6]


def _sentence(secret: str) -> str:
    return "we deployed with " + secret + " yesterday"


@pytest.mark.parametrize(("name", "secret"), DISGUISES, ids=[n for n, _ in DISGUISES])
def test_every_disguise_is_found_and_redacted(name: str, secret: str) -> None:
    text = _sentence(secret)
    found = find_secrets(text)
    assert found, name
    redacted = redact(text)
    assert find_secrets(redacted) == []
    assert redacted.startswith("we deployed with ") and redacted.endswith(" yesterday")
    middle = _tell(name, secret)
    assert middle not in redacted
    with pytest.raises(SecretFoundError) as refused:
        ensure_no_secrets(text, "why")
    assert str(refused.value).startswith("why looks like it contains a secret (")
    assert middle not in str(refused.value)


def test_the_set_is_large_and_covers_every_disguise() -> None:
    assert len(DISGUISES) >= 59
    assert len({n for n, _ in DISGUISES}) == len(DISGUISES)


# Ordinary technical sentences: none holds a secret, though many look busy.
ORDINARY = [
    "Reverted 3f786850e387550fdab836ed7e6dc881de23001b after the flaky build; "
    "see a94a8fe5ccb19ba61c4c0873d391e987982fbbd3.",
    "Session 123e4567-e89b-12d3-a456-426614174000 and request "
    "9b2c1f40-7a3e-4d5b-8c6f-0e1d2a3b4c5d both failed.",
    "The fixture is base64: SGVsbG8gd29ybGQ= decodes to a greeting, nothing more.",
    "Search with https://example.org/search?q=memoir%20tui&page=2&sort=desc#results for it.",
    "Use the colours #ff8800, #1e1e2e and rgb(30, 30, 46) in the dark theme.",
    "Bumped textual from 0.86.3 to 1.0.0 and pydantic to 2.10.4; python>=3.11,<3.14 stays.",
    "Rename AbstractSessionStoreTransactionCoordinatorFactory to SessionDoor in the core.",
    "The file lives at /home/ada/projects/memoir-tui/memoir_tui/core/format/secrets.py now.",
    "Windows paths like C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\settings.json need care.",
    "Escape the ampersand as &amp; and the quote as &quot; in HTML output; &lt;div&gt; too.",
    'The JSON string "caf\\u00e9" is café, and \\n is a newline.',
    "Use %s and %(name)s placeholders, never f-strings, in logging calls; 100% of them.",
    "We pin sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 for it.",
    "The docker image ghcr.io/owner/memoir-tui:v1.2.3-rc.4 is published by CI.",
    "Run mysql -u root -p and type the password when it asks; never put it on the line.",
    "Use sshpass -e with SSHPASS from the environment, or sshpass -f ~/.ssh/pass-file.",
    'curl -u "$USER:$TOKEN" https://api.example.org reads both from the environment.',
    "In .netrc the format is machine <host> login <user> password <password>.",
    "The slack channel #dev-tools and the xoxb- prefix for bot tokens are documented.",
    "A Telegram bot token looks like 123456:ABC, which is not a real one.",
    "Shopify tokens start with shpat_ and DigitalOcean ones with dop_v1_; both go to the vault.",
    "The age tool prints AGE-SECRET-KEY-1 followed by the key; ours lives in pass.",
    "Vault tokens begin with hvs. and the old ones with s. followed by 24 characters.",
    "Mailgun keys used to start with key- and Postmark uses a server token header.",
    "The commit message was 'fix: use key-value store for the cache (key-3f78)'.",
    "Discord's docs at https://discord.com/developers/docs/topics/oauth2 explain scopes.",
    "The id 1234567890123456789 is a snowflake; timestamps come from its top bits.",
    "Benchmark: 10,000 calls in 3.2 s, p99 12 ms, RSS 48 MiB on a t3.medium.",
    "Version strings like v2.0.0-beta.1+build.5 follow semver, and 2026.1.3 is calver.",
    "CamelCase names such as getUserAccountSettingsFromRemoteConfigurationService are long.",
    "Azure's docs show AccountKey=<key> and SharedAccessSignature placeholders only.",
    "List them with https://api.github.com/repos/owner/repo/pulls?state=open&per_page=100.",
    "The hex dump 00ff10ab 7f454c46 02010100 shows an ELF header.",
    "The UTF-8 bytes e2 80 8b are a zero-width space; U+200B is its code point.",
    "Привет, мир: the Cyrillic greeting stays as it is, and Ελληνικά too.",
    "Set PASSWORD_MIN_LENGTH=12 and TOKEN_TTL_SECONDS=3600 in the config.",
    "The wiki URL https://en.wikipedia.org/wiki/Caf%C3%A9 has an encoded é.",
    "The header X-Request-Id: 7d9f1c2e-3b4a-4c5d-8e6f-1a2b3c4d5e6f helps tracing.",
    "Open questions: should the hook use --dry-run? Should -p mean project?",
    "A tab\tseparated\tline and a dash-separated-line-of-words are ordinary text.",
    "Test vector 6d656d6f6972 spells 'memoir' in hex, a harmless word.",
    "Encode with %41%42%43 to get ABC in a URL; that is all it says.",
    # octal-looking text: file modes, C escapes
    "Run chmod 0755 on the script, chmod 0644 on the config and umask 022 for the rest.",
    "In C, \\012 is a newline, \\033[0m resets the colour and \\177 is DEL; \\n and \\t too.",
    "printf 'a\\tb\\n' and echo -e '\\0101\\0102' print a tab, a newline and AB.",
    "The mode drwxr-xr-x is 0755 and -rw------- is 0600, as stat -c %a prints them.",
    "Windows paths such as C:\\Temp\\123\\456\\build.log hold digits after a backslash.",
    # words that spell a family's prefix across a separator
    "We ask. Ant colonies and the gh pages site; sk - learn and hf - hub are libraries.",
    "A KIA car, an AK IA typo, and x ox b- in a list of typos are ordinary words.",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_technical_sentences_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text
    ensure_no_secrets_together([("decision", text), ("why", text), ("rejected", text)])


def test_the_ordinary_set_is_large_enough() -> None:
    assert len(ORDINARY) >= 30


def ensure_no_secrets(text: str, what: str) -> None:
    from memoir_tui.core.format.secrets import ensure_no_secrets as ensure

    ensure(text, what)


# --- a key split over two fields of one call ----------------------------------------


def test_a_key_split_between_why_and_rejected_is_refused_naming_both(store: Memoir) -> None:
    before = store.session_path.read_bytes() if store.session_path.exists() else None
    with pytest.raises(SecretFoundError) as refused:
        store.note_decision("Deploy with the bot", why="it uses " + GH[:18], rejected=GH[18:])
    message = str(refused.value)
    assert message.startswith("why and rejected look like they contain a secret")
    assert "github-token" in message and GH[10:18] not in message and GH[18:26] not in message
    after = store.session_path.read_bytes() if store.session_path.exists() else None
    assert after == before


def test_fields_that_only_look_busy_together_are_not_refused(store: Memoir) -> None:
    store.note_decision("Pin the base image", why="digest 3f786850e3", rejected="87550fdab836ed")
    assert [d.text for d in store.working_set().decisions] == ["Pin the base image"]


# --- every writing face ----------------------------------------------------------------


def _refused_everywhere(store: Memoir) -> list[tuple[str, object]]:
    return [
        ("goal", store.add_goal),
        ("next action", store.add_next_action),
        ("question", store.ask_question),
        ("decision", lambda s: store.note_decision(s)),
        ("why", lambda s: store.note_decision("Use the queue", why=s)),
        ("rejected", lambda s: store.note_decision("Use the queue", rejected=s)),
        ("summary", lambda s: store.record_session_end(s)),
    ]


def test_every_store_writer_refuses_every_disguise(store: Memoir) -> None:
    store.add_goal("Ship it")
    before = store.session_path.read_bytes()
    for field, write in _refused_everywhere(store):
        for name, secret in DISGUISES:
            with pytest.raises(SecretFoundError) as refused:
                write(_sentence(secret))  # type: ignore[operator]
            assert str(refused.value).startswith(field), (field, name)
            assert _tell(name, secret) not in str(refused.value)
    assert store.session_path.read_bytes() == before


def test_the_cli_verbs_refuse_every_disguise(store_dir: Path, capsys) -> None:
    from memoir_tui.__main__ import main

    verbs = [
        ("goal",),
        ("next",),
        ("ask",),
        ("note",),
        ("note", "Use the queue", "--why"),
        ("note", "Use the queue", "--rejected"),
    ]
    for verb in verbs:
        for name, secret in DISGUISES:
            assert main([*verb, _sentence(secret)]) == 1, (verb, name)
            err = capsys.readouterr().err
            assert "looks like it contains a secret" in err, (verb, name, err)
            assert _tell(name, secret) not in err
    assert (
        not (store_dir / "session.json").exists()
        or "deployed" not in (store_dir / "session.json").read_text()
    )


# Every text field that writes. memoir_complete_next's match and memoir_forget's text are
# needles, not writes: a pasted token must reach them (issue 28, test_needle_is_not_a_write).
MCP_FIELDS: list[tuple[str, dict, str]] = [
    ("memoir_set_goal", {}, "text"),
    ("memoir_add_next", {}, "text"),
    ("memoir_ask", {}, "text"),
    ("memoir_note", {}, "text"),
    ("memoir_note", {"text": "Use the queue"}, "why"),
    ("memoir_note", {"text": "Use the queue"}, "rejected"),
    ("memoir_pin", {"id": "abc123"}, "text"),
    ("memoir_pin", {"id": "abc123"}, "why"),
    ("memoir_pin", {"id": "abc123"}, "rejected"),
    ("memoir_remember", {"tool": "claude-code", "filename": "notes.md"}, "content"),
    ("memoir_remember", {"tool": "claude-code", "content": "Notes on the queue"}, "filename"),
]


async def test_every_mcp_text_field_refuses_every_disguise(store_dir: Path) -> None:
    async with Client(build_server(store_dir)) as client:
        for tool, args, field in MCP_FIELDS:
            for name, secret in DISGUISES:
                result = await client.call_tool(tool, {**args, field: _sentence(secret)})
                text = result.content[0].text
                assert result.is_error, (tool, field, name)
                assert text.startswith(f"{field} looks like it contains a secret ("), text
                assert _tell(name, secret) not in text
    assert not (store_dir / "session.json").exists()


async def test_a_key_split_over_two_mcp_fields_is_refused(store_dir: Path) -> None:
    async with Client(build_server(store_dir)) as client:
        result = await client.call_tool(
            "memoir_note",
            {"text": "Deploy with the bot", "why": "it uses " + AKIA[:10], "rejected": AKIA[10:]},
        )
    text = result.content[0].text
    assert result.is_error and "why and rejected" in text and "aws-access-key-id" in text
    assert AKIA[4:10] not in text


async def test_a_service_account_json_object_comes_back_as_a_sentence(store_dir: Path) -> None:
    key = (
        "-----BEGIN " + "PRIVATE KEY-----\n" + "MIIEv" + R * 3 + "\n-----END " + "PRIVATE KEY-----"
    )
    account = {**json.loads(GCP_SA), "private_key": key, "client_email": "a@b.iam.example"}
    async with Client(build_server(store_dir)) as client:
        as_object = await client.call_tool("memoir_note", {"text": account})
        as_string = await client.call_tool("memoir_note", {"text": json.dumps(account)})
        wrong_type = await client.call_tool("memoir_note", {"text": {"a": 1}})
    for result in (as_object, as_string):
        text = result.content[0].text
        assert result.is_error and text.startswith("text looks like it contains a secret ("), text
        assert "validation" not in text and R[:12] not in text and HEX[:12] not in text
    text = wrong_type.content[0].text
    assert wrong_type.is_error and "validation error" not in text and "pydantic" not in text
    assert text == "memoir_note was not run: text must be a string."


def test_capture_pin_never_stores_a_disguise_in_any_field(store: Memoir) -> None:
    # Pinning redacts (a candidate keeps its words, the secret goes): nothing of any
    # disguise reaches the session, whichever field carried it.
    cases = [(f, n, s) for f in ("text", "why", "rejected") for n, s in DISGUISES]
    store.review.enqueue(
        [
            {
                "text": f"We are going with queue number {i}",
                "kind": "decision",
                "source": "user",
                "extractor": "decision.going_with",
                "session_id": "s-1",
                "timestamp": "2026-11-30T10:00:00.000Z",
                "transcript": "/t/s-1.jsonl",
            }
            for i in range(len(cases))
        ]
    )
    items = {i.text: i.short_id for i in store.review.list_items()}
    for i, (field, _name, secret) in enumerate(cases):
        store.review.pin(items[f"We are going with queue number {i}"], **{field: _sentence(secret)})
    stored = store.session_path.read_text(encoding="utf-8")
    assert _leaks(stored) == [] and find_secrets(stored) == []
    assert "[REDACTED:" in stored  # pinned, with the secret gone


def test_the_editor_path_refuses_every_disguise(store: Memoir) -> None:
    entry = store.memory_dir / "notes.md"
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text("---\nname: notes\ntype: project\n---\nThe queue is bounded.\n")
    before = entry.read_bytes()
    for name, secret in DISGUISES:
        edit = store.entries.begin_edit(entry)
        edit.draft.write_text(before.decode() + _sentence(secret) + "\n")
        with pytest.raises(MemoirError, match="secret") as refused:
            store.entries.finish_edit(edit)
        assert _tell(name, secret) not in str(refused.value), name
        store.entries.discard_edit(edit)
        assert entry.read_bytes() == before


# --- every face that copies stored text out -----------------------------------------------

WHEN = "2026-05-01T00:00:00.000Z"


def _planted() -> dict:
    """A session another tool wrote, each disguise in a live item of its own."""
    lists: dict[str, list[dict]] = {"goals": [], "next_actions": [], "open_questions": []}
    decisions: list[dict] = [{"text": "Use SQLite", "date": WHEN, "why": "simple"}]
    for n, (_name, secret) in enumerate(DISGUISES):
        text = _sentence(secret)
        if n % 4 == 0:
            lists["goals"].append({"text": text, "set_on": WHEN})
        elif n % 4 == 1:
            lists["next_actions"].append({"text": text, "added": WHEN})
        elif n % 4 == 2:
            lists["open_questions"].append({"text": text, "asked": WHEN})
        else:
            decisions.append({"text": f"Decision {n}", "date": WHEN, "why": text})
    decisions.append({"text": "Plain key " + AKIA, "date": WHEN})
    return {
        "version": 1,
        "created_at": WHEN,
        "updated_at": WHEN,
        "machines": {},
        "current": {**lists, "completed_actions": [], "decisions": decisions},
        "history": [{"date": WHEN, "machine_id": "m", "summary": "pushed " + GH}],
    }


def _leaks(text: str) -> list[str]:
    """The disguises whose secret shows in ``text``."""
    shown = []
    for name, secret in [*DISGUISES, ("plain-aws", AKIA), ("plain-github", GH)]:
        if _tell(name, secret) in text:
            shown.append(name)
    return shown


@pytest.fixture
def planted(store_dir: Path) -> Path:
    (store_dir / "session.json").write_text(json.dumps(_planted()), encoding="utf-8")
    return store_dir


def test_the_brief_never_hands_on_a_planted_secret(planted: Path, store: Memoir) -> None:
    brief = render_brief(store.working_set(), limit=8_000)
    assert brief.text and "Use SQLite — why: simple" in brief.text
    assert _leaks(brief.text) == []
    assert WITHHELD in brief.text and "aws-access-key-id" in brief.text


def test_the_session_start_hook_never_hands_on_a_planted_secret(tmp_path: Path) -> None:
    from tests.hooks.helpers import brief_of, make_world, start_event

    world = make_world(tmp_path)
    world.cli("goal", "Ship the CSV importer")
    path = world.store_dir / "session.json"
    state = json.loads(path.read_text())
    state["current"]["decisions"].append({"text": "Deploy with " + AKIA, "date": WHEN})
    state["current"]["goals"].append({"text": "Push with " + _url(GH), "set_on": WHEN})
    path.write_text(json.dumps(state))
    done = world.hook("session-start", start_event(world))
    assert done.returncode == 0, done.stderr
    brief = brief_of(done.stdout)
    assert "Ship the CSV importer" in brief
    assert AKIA[4:] not in brief and _url(GH)[20:40] not in brief
    assert brief.count(WITHHELD) == 2


async def test_the_mcp_reads_never_hand_on_a_planted_secret(planted: Path) -> None:
    async with Client(build_server(planted)) as client:
        for tool, args in (
            ("memoir_session", {}),
            ("memoir_resume", {}),
            ("memoir_why", {"query": "Decision"}),
            ("memoir_why", {"query": "Plain key"}),
        ):
            result = await client.call_tool(tool, args)
            assert not result.is_error, result.content[0].text
            text = result.content[0].text
            assert _leaks(text) == [], tool
            assert _leaks(json.dumps(result.structured_content)) == [], tool
            assert WITHHELD in text, tool


def test_the_cli_reads_never_hand_on_a_planted_secret(planted: Path, capsys) -> None:
    from memoir_tui.__main__ import main

    for verb in (["session"], ["resume"], ["why", "Decision"]):
        assert main(verb) == 0
        out = capsys.readouterr().out
        assert _leaks(out) == [] and WITHHELD in out, verb


def test_merge_and_sync_pull_hold_back_every_planted_secret() -> None:
    out, notes = withhold_secrets(_planted())
    assert _leaks(json.dumps(out)) == []
    assert [d["text"] for d in out["current"]["decisions"]] == ["Use SQLite"]
    assert notes and not any(_leaks(n) for n in notes)


def test_inject_withholds_every_planted_secret() -> None:
    from memoir_tui.core.services.inject import render_block

    block = render_block(_planted(), all_projects=True, max_chars=60_000)
    assert _leaks(block.text) == []
    assert len(block.withheld) >= len(DISGUISES) // 4


def test_a_file_the_agent_loads_is_shown_with_its_secret_lines_withheld() -> None:
    pem = (
        "-----BEGIN " + "PRIVATE KEY-----\n" + "MIIEv" + R + "\n" + R[::-1] + "\n"
        "-----END " + "PRIVATE KEY-----\n"
    )
    text = "# Notes\n\nUse the queue.\n" + pem + "token " + _url(GH) + "\nThe end.\n"
    shown, kept = withhold_lines(text)
    assert _leaks(shown) == [] and R[:12] not in shown and R[::-1][:12] not in shown
    assert shown.startswith("# Notes\n\nUse the queue.\n") and shown.endswith("The end.\n")
    assert shown.count(WITHHELD) == 5 and kept == len(shown)
    cut, cut_kept = withhold_lines(text, len("# Notes\n\nUse the queue.\n") + 5)
    assert cut == shown and cut_kept == len("# Notes\n\nUse the queue.\n") + 5


async def test_recall_passages_never_hand_on_a_planted_secret(planted: Path) -> None:
    async with Client(build_server(planted)) as client:
        result = await client.call_tool("memoir_recall", {"query": "deployed yesterday"})
    text = result.content[0].text
    assert not result.is_error, text
    assert "passage(s)" in text and WITHHELD in text
    assert _leaks(text) == [] and _leaks(json.dumps(result.structured_content)) == []


def test_the_cli_recall_never_hands_on_a_planted_secret(planted: Path, capsys) -> None:
    from memoir_tui.__main__ import main

    for extra in ([], ["--json"]):
        assert main(["recall", "deployed yesterday", *extra]) == 0
        out = capsys.readouterr().out
        assert _leaks(out) == [] and WITHHELD in out, extra


# --- properties of the decoders ------------------------------------------------------------

_ESCAPE_FRAGMENTS = st.sampled_from(
    [
        "%", "%4", "%41", "%e2%80%8b", "%ZZ", "%25", "\\u", "\\u00", "\\u0041", "\\ud83d",
        "\\ude00", "\\x4", "\\x41", "\\n", "\\", "&", "&#", "&#65;", "&#x41;", "&#x110000;",
        "&amp;", "&nosuch;", "&#0;", "6768705f", "41", "\u200b", "\u0430", "\u2010", " ",
        "\t", "-", "gh" + "p_", "AK" + "IA", R[:8], "pass" + "word=",
    ]
)  # fmt: skip

_ENCODERS = [_url, _url_all, _hex, _json_u, _html_dec, _html_hex, _b64, _octal, _octal0]


@settings(max_examples=examples(150, soak=3000))
@given(st.lists(_ESCAPE_FRAGMENTS | st.text(max_size=6), max_size=40).map("".join))
def test_escapes_of_any_shape_never_raise_and_redact_to_nothing(text: str) -> None:
    for f in find_secrets(text):
        assert 0 <= f.start < f.end <= len(text)
    assert find_secrets(redact(text)) == []


@settings(max_examples=examples(150, soak=2000))
@given(
    st.sampled_from([GH, AKIA, SHOPIFY, DIGITALOCEAN, AGE, VAULT, SLACK_BOT, HEROKU]),
    st.sampled_from(_ENCODERS),
    st.lists(st.sampled_from(["the", "deploy", "v1.2.3", "a94a8fe5", "ok", "%", "&"]), max_size=6),
)
def test_an_encoded_token_in_any_words_is_found(token: str, encode, words: list[str]) -> None:
    text = " ".join([*words, encode(token), *words])
    assert find_secrets(text)
    assert find_secrets(redact(text)) == []


# --- the real processes: a CLI verb and the stdio MCP server ----------------------------------


def test_a_real_cli_process_refuses_in_one_sentence(store_dir: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.paths import REPO

    env = {**os.environ, "MEMOIR_HOME": str(store_dir), "PYTHONPATH": str(REPO)}
    for name, secret in (DISGUISES[0], DISGUISES[27], DISGUISES[45]):
        done = subprocess.run(
            [sys.executable, "-m", "memoir_tui", "note", "Use the queue", "--why", secret],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=SAFETY_NET,
        )
        assert done.returncode == 1, name
        assert done.stderr.startswith("memoir-tui: why looks like it contains a secret (")
        assert "Traceback" not in done.stderr and _tell(name, secret) not in done.stderr
    assert not (store_dir / "session.json").exists()


async def test_the_stdio_server_refuses_a_service_account_object_in_a_sentence(
    store_dir: Path, tmp_path: Path
) -> None:
    import os
    import sys

    from mcp import ClientSession, StdioServerParameters, stdio_client

    from tests.paths import REPO

    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoir_tui", "--mcp"],
        env={
            "HOME": os.environ["HOME"],
            "MEMOIR_HOME": str(store_dir),
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(REPO),
        },
        cwd=str(tmp_path),
    )
    account = {**json.loads(GCP_SA), "private_key": "-----BEGIN " + "PRIVATE KEY-----\n" + R}
    async with (
        stdio_client(server) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        as_object = await session.call_tool("memoir_note", {"text": account})
        split = await session.call_tool(
            "memoir_note", {"text": "Ship it", "why": GH[:20], "rejected": GH[20:]}
        )
    text = as_object.content[0].text
    assert as_object.is_error and text.startswith("text looks like it contains a secret (")
    assert R[:12] not in text and HEX[:12] not in text and "validation" not in text
    text = split.content[0].text
    assert split.is_error and text.startswith("why and rejected look like they contain a secret")
    assert not (store_dir / "session.json").exists()


def test_the_agent_view_shows_a_loaded_file_with_its_secret_withheld(
    store: Memoir, tmp_path: Path
) -> None:
    from memoir_tui.core.loop.agent_view import host_view

    home = tmp_path / "home"
    project = home / "code" / "app"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text(
        "# App\n\nRun the tests.\nDeploy key: " + _url(GH) + "\nThat is all.\n"
    )
    env = {"HOME": str(home)}
    view = host_view("claude-code", store=store, home=home, env=env, project=project)
    claude_md = next(s for s in view.sources if s.path.endswith("app/CLAUDE.md"))
    assert claude_md.text == (
        "# App\n\nRun the tests.\n[withheld: looks like a secret (github-token)]\nThat is all.\n"
    )
    assert claude_md.kept_chars == len(claude_md.text) and not claude_md.cut
