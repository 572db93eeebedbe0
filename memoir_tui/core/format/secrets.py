"""Secret scanning: find credentials in text before anything writes it to the store.

Every path that writes memory calls ``ensure_no_secrets`` (refuse) or
``redact`` (capture: keep the text, drop the secret). A finding names its rule
and carries a masked preview; nothing here ever puts a secret into a message.

Each rule is a precompiled regular expression plus a check on the matched
value, and each has its own minimum length: a prefixed token family
(``ghp_``, ``sk-ant-``, ``AKIA``…) is specific enough to catch at its real
length, while the generic ``password=``/``token=`` assignments need a value
that looks like a secret rather than a word.

Decisions worth knowing (the tests pin each one):

- ``password=hunter2`` is a secret: a bound ``password=``/``password:`` value of
  four or more characters is caught even when it is a plain word. When the
  separator is followed by a space and the value is unquoted (prose, or
  ``password: swordfish`` in YAML), a plain lower-case word is *not* caught,
  so "the password: rotate it monthly" stays storable; ``password: hunter2``
  (digit, symbol or inner capital) still is, and so is "the password is hunter2"
  (``is``/``was`` in prose needs a digit in the value: "the password is
  case-sensitive" is prose).
- ``token=``/``secret=``/``api_key:`` values need eight or more characters with
  a digit and a letter, or mixed case: "the token= parameter" and
  ``token: rotate-weekly`` are prose. A bare ``key:`` counts only after a word
  that makes it a credential (``api``, ``secret``, ``deploy``, ``ssh``…).
- Placeholders are never secrets: empty values, ``<your-token>``, ``${VAR}``,
  ``$VAR``, ``%VAR%``, ``{{ var }}``, ``***``/``xxxx``, values containing
  ``example``/``placeholder``/``redacted`` (AWS documents ``AKIAIOSFODNN7EXAMPLE``),
  ``your-…`` values, code references (``os.environ[…]``, ``args.password``,
  ``get_password()``, ``user_password``, ``DB_PASSWORD``) and literal words such
  as ``password``, ``null`` or ``changeme`` (see ``_PLACEHOLDER_WORDS``).
- Prefixed tokens must look random (two of lower case, upper case and digits):
  ``sk-`` in prose or ``sk-learn-compatible`` is not an OpenAI key.
- Only the secret itself is redacted: ``password=[REDACTED:password-assignment]``
  keeps the key so the memory still reads sensibly.
- UUIDs, git SHAs and base64 on their own are not findings: without a token
  prefix or an assignment there is nothing to say they are credentials.
- Disguises do not hide a secret. The rules also run over the text in NFKC
  with invisible characters removed (below), so full-width letters and invisible marks inside a token are read
  through; spans are mapped back, so redaction removes the disguise too.
- A token family may be split by single spaces or line breaks (a wrapped
  paste): the pieces are joined while they look machine-made (two character
  classes, not a hash); a word of one case, or a capitalised one, ends it, so
  "the ghp_ prefix" and prose after a token stay prose.
- Escapes are read through: a text holding URL ``%xx`` (runs read as UTF-8),
  JSON/JavaScript ``\\uXXXX``/``\\xXX``, octal ``\\147`` or ``\\0147`` (C, ``echo -e``) or HTML
  character references is also read
  decoded (up to three levels, each mapped back to the original offsets), and a run of
  twenty or more hex digits that spells printable ASCII is decoded (``hex-<rule>``).
  Look-alike letters (Cyrillic and Greek capitals and small letters that read as
  Latin ones, dotless i, script g, the hyphen and dash family) are folded to ASCII, and
  every format character (category Cf: zero-width marks, bidirectional marks and
  isolates, the soft hyphen) is dropped, so ``ghр_``, ``АKIA`` or ``sκ-ant-`` are read
  as what they spell.
- A separator inside a family's prefix (``gh p_``, ``g h p _``, ``sk- ant-``, ``AK IA``,
  ``xox b-``: spaces, tabs, dashes, dots, line breaks, invisible marks, up to three at a
  place) is read through: one pass over the text finds every prefix in
  ``FAMILY_PREFIXES`` spelled with separators where a word starts, and the rules also read
  the text with those separators taken out. A gap just after the prefix stays the body's
  business (``_rejoin``), so "the ghp_ prefix" followed by a hash is prose.
- Inside a token's body a tab, and in a family whose alphabet has no dash a dash, is a
  separator too (``AKIA-Q3EG-…``); any piece may follow one, since prose does not put
  either inside a word. After a space or a line break a piece must look machine-made,
  and a word of prose (``The``, ``is``) ends the token. A hex family's (Shopify,
  DigitalOcean, Mailgun) pieces are hex.
- Families with their own rules besides the classic ones: Slack (``xox?-``, ``xapp-``),
  Discord bot tokens (the id part must decode to digits) and webhooks, Telegram bot
  tokens (``<8-10 digits>:AA…``), a GCP service account's ``private_key_id``, Azure
  connection strings and client secrets (``…Q~…``), Shopify (``shpat_``/``shpss_``/
  ``shpca_``/``shppa_``), Heroku (``HRKU-``), DigitalOcean (``dop_v1_``…), SendGrid,
  Mailgun (``key-``), Postmark (a token header or setting), ``age`` secret keys, Vault
  (``hvs.``/``hvb.``/``hvr.`` and the old ``s.`` + 24), command-line passwords
  (``mysql -p…``, ``sshpass -p``, ``redis-cli -a``, ``curl -u user:…``) and ``.netrc``
  ``machine … login … password …`` records. Prose about any of them (``mysql -p`` that
  prompts, ``sshpass -e``, ``$TOKEN``, ``<password>``) is not a finding.
- ``ensure_no_secrets_together`` refuses the fields of one call when two of them joined
  end to start hold a secret (a key split over ``why`` and ``rejected``), naming both.
- Base64 is decoded when it could be the base64 of text (``base64-<rule>`` if
  the decoded text holds a finding) or of a key: a run that decodes to DER
  private key structure (PKCS#1, PKCS#8 plain or encrypted, SEC1) or to
  OpenSSH's ``openssh-key-v1`` is ``private-key`` without any armour. Public
  keys, certificates and encoded prose are not findings.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from memoir_tui.core.base.errors import MemoirError

__all__ = [
    "RULES",
    "SecretFinding",
    "SecretFoundError",
    "ensure_no_secrets",
    "ensure_no_secrets_together",
    "find_secrets",
    "redact",
]


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """One secret: the rule that caught it, its span in the text, a masked preview."""

    rule: str
    start: int
    end: int
    preview: str


class SecretFoundError(MemoirError):
    """Refusal to store text that contains a secret; the message names rules, never values."""

    def __init__(self, what: str, findings: list[SecretFinding], *, together: bool = False) -> None:
        self.what = what
        self.findings = tuple(findings)
        self.rules = tuple(dict.fromkeys(f.rule for f in findings))
        kinds = ", ".join(self.rules)
        verb = (
            "look like they contain a secret split between them"
            if together
            else ("looks like it contains a secret")
        )
        super().__init__(
            f"{what} {verb} ({kinds}); memoir will not store it. "
            "Remove the secret or refer to where it lives (for example ${ENV_VAR})."
        )


# --- value checks ------------------------------------------------------------------

_ONLY_MARKERS = re.compile(r"^(?:\[REDACTED:[a-z0-9-]+\])+$")

_PLACEHOLDER_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "pass",
        "pwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "api-key",
        "key",
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "required",
        "optional",
        "string",
        "str",
        "bool",
        "int",
        "todo",
        "tbd",
        "changeme",
        "secret_key",
        "access_token",
        "auth_token",
        "client_secret",
        "mypassword",
        "yourpassword",
        "placeholder",
        "user",
        "username",
        "empty",
        "hidden",
        "masked",
    }
)

_PLACEHOLDER_SHAPES = re.compile(
    r"""^(?:
        <[^<>]*>                     # <your-token>
      | \$\{[^{}]*\}                 # ${DB_PASSWORD}
      | \$\([^()]*\)                 # $(cat secret)
      | \$[A-Za-z_][A-Za-z0-9_]*     # $DB_PASSWORD
      | %[A-Za-z_][A-Za-z0-9_]*%     # %DB_PASSWORD%
      | %\(?[A-Za-z_]*\)?[sd]        # %s, %(password)s
      | \{\{.*\}\}                   # {{ secrets.TOKEN }}
      | \{[A-Za-z_][A-Za-z0-9_.-]*\} # {password}
      | \[[^\[\]]*\]                 # [your token]
      | [*xX.•#_-]+                  # ****, xxxx, ....
      | your[-_ ]?[A-Za-z_-]*        # your-token, your_api_key_here
    )$""",
    re.VERBOSE,
)
_PLACEHOLDER_INFIX = re.compile(r"(?i)example|placeholder|redacted|xxxx|\*\*\*|<|>")
# Code and environment references: os.environ[...], args.password, get_password(),
# user_password, DB_PASSWORD, settings.SECRET_KEY.
_CODE_REF = re.compile(
    r"""^(?:
        (?:os\.environ|os\.getenv|process\.env|ENV|env|getenv|secrets|vault)\b.*
      | [A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)+(?:\(.*)?  # dotted path (no digits)
      | [A-Za-z_][A-Za-z0-9_.]*\(.*                                    # call
      | [a-z][a-z_]*_[a-z_]*                                           # snake_case name
      | [A-Z][A-Z_]*_[A-Z0-9_]*                                        # ENV_NAME
    )$""",
    re.VERBOSE,
)


def _is_placeholder(value: str) -> bool:
    if not value or _ONLY_MARKERS.match(value):
        return True
    if value.lower() in _PLACEHOLDER_WORDS:
        return True
    if _PLACEHOLDER_SHAPES.match(value) or _PLACEHOLDER_INFIX.search(value):
        return True
    return len(set(value)) <= 2  # aaaaaaaa, 00000000


def _classes(value: str) -> int:
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    return lower + upper + digit


def _random_token(value: str) -> bool:
    """A machine-made token: two of lower case, upper case and digits, and variety."""
    return _classes(value) >= 2 and len(set(value)) >= 6 and not _is_placeholder(value)


def _secretish(value: str) -> bool:
    """A token/secret/API-key value: a digit and a letter, or mixed case beyond a capital."""
    if _is_placeholder(value) or _CODE_REF.match(value):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    inner_upper = any(c.isupper() for c in value[1:])
    has_lower = any(c.islower() for c in value)
    return (has_alpha and has_digit) or (inner_upper and has_lower)


def _not_plain_word(value: str) -> bool:
    """Anything but a word: a digit, a symbol or a capital after the first letter."""
    return not (value.isalpha() and value[1:].islower())


# --- rules ---------------------------------------------------------------------------

Check = Callable[[re.Match[str], str], bool]


@dataclass(frozen=True, slots=True)
class _Rule:
    """A token family.

    Every pattern starts with a literal (the regex engine then skims the text
    for it, which is what keeps a scan of 100 KB in a few milliseconds); the
    left boundary is checked here instead of with a leading lookbehind, which
    would defeat that. ``lower`` rules run over an ASCII-lower-cased copy of
    the text (same length, same offsets) so ``PASSWORD=`` and ``password=``
    are one literal; their values are read back from the original text.
    """

    name: str
    patterns: tuple[re.Pattern[str], ...]
    min_len: int
    check: Check
    left: str = ""  # characters that may not come just before the match
    lower: bool = False
    key_prefix: re.Pattern[str] | None = None  # must end just before the match
    strict: tuple[re.Pattern[str], ...] = ()  # the patterns without gaps, one per pattern
    gaps: tuple[re.Pattern[str] | None, ...] = ()  # the separators each pattern lets in
    hex_body: bool = False  # a body of hex (or lower-case base 36): such pieces belong to it


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_WORDISH = _ALNUM + "_-"
# A token pasted across a line break, or split by a space, a tab or (in a family whose
# alphabet has none) a dash: one such separator may sit between two of its characters
# (``_rejoin`` then decides what belongs to it). Invisible separators are gone already
# (``_normalised``).
_GAP = r"(?:\r?\n|[ \t])"
_GAP_DASH = r"(?:\r?\n|[ \t-])"
_GAPS = re.compile(_GAP)
_GAPS_DASH = re.compile(_GAP_DASH)
_RUN = re.compile("\x00([^\x00\x01]*)\x01(\\d+)\x01(\\d*)\x00")


def _run(cls: str, lo: int, hi: int | None = None) -> str:
    """``cls`` repeated ``lo``..``hi`` times; in the relaxed pattern a single separator
    may sit between two of them (``_expand``)."""
    return f"\x00{cls}\x01{lo}\x01{'' if hi is None else hi}\x00"


def _gap_for(cls: str) -> str:
    return _GAP if cls.endswith("-]") else _GAP_DASH


def _expand(pattern: str, *, relaxed: bool) -> str:
    first = True

    def sub(m: re.Match[str]) -> str:
        nonlocal first
        cls, lo, hi = m[1], m[2], m[3]
        if not relaxed:
            return f"{cls}{{{lo},{hi}}}"
        most = "" if not hi else 2 * int(hi)  # with as many gaps as characters, at worst
        run = rf"(?:{cls}|{_gap_for(cls)}(?={cls})){{{lo},{most}}}"
        if first:  # where the body starts: a separator in the prefix is no gap
            first = False
            return f"(?P<run>{run})"
        return run

    return _RUN.sub(sub, pattern)


def _gaps_in(pattern: str) -> re.Pattern[str] | None:
    """The separators the relaxed ``pattern`` lets in (None: it has no run)."""
    runs = _RUN.findall(pattern)
    if not runs:
        return None
    return _GAPS if all(cls.endswith("-]") for cls, _lo, _hi in runs) else _GAPS_DASH


def _tail_random(prefix_len: int) -> Check:
    return lambda _m, v: _random_token(v[prefix_len:])


def _always(_m: re.Match[str], _v: str) -> bool:
    return True


def _aws_key_id(_m: re.Match[str], v: str) -> bool:
    return len(set(v[4:])) >= 6 and "EXAMPLE" not in v


def _aws_secret(_m: re.Match[str], v: str) -> bool:
    return _classes(v) >= 2 and len(set(v)) >= 10 and not _is_placeholder(v)


def _jwt(_m: re.Match[str], v: str) -> bool:
    header = v.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    return isinstance(decoded, dict) and ("alg" in decoded or "typ" in decoded)


_PEM_ARMOR = re.compile(r"-----(?:BEGIN|END) [A-Z0-9 ]+-----")


def _pem(_m: re.Match[str], v: str) -> bool:
    return re.search(r"[A-Za-z0-9+/]{16}", _PEM_ARMOR.sub("", v)) is not None


def _basic_auth(_m: re.Match[str], v: str) -> bool:
    try:
        decoded = base64.b64decode(v + "=" * (-len(v) % 4), validate=True).decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    _user, sep, password = decoded.partition(":")
    return bool(sep) and not _is_placeholder(password)


def _url_password(_m: re.Match[str], v: str) -> bool:
    return not _is_placeholder(v) and not _CODE_REF.match(v)


def _password_value(m: re.Match[str], v: str) -> bool:
    if _is_placeholder(v) or _CODE_REF.match(v):
        return False
    if m.group("bare") is not None and m.group("sp"):
        return _not_plain_word(v)  # "the password: rotate it" is prose
    return True


def _assignment_value(_m: re.Match[str], v: str) -> bool:
    return _secretish(v)


# key["']? <sep> value, quoted or bare (the secret is the value, read by _value_span).
_VALUE = (
    r"""(?![A-Za-z0-9_])["']?(?P<sep>[ \t]*(?:=>|:=|=|:)(?P<sp>[ \t]*))"""
    r"""(?:"(?P<dq>[^"\n]{1,256})"|'(?P<sq>[^'\n]{1,256})'|(?P<bare>[^\s"'`,;]{1,256}))"""
)
_KEY_WORDS = re.compile(
    r"(?:api|access|auth|secret|private|client|app|consumer|signing|encryption|master|deploy"
    r"|ssh|license|licence|service|webhook|admin|root)[ _-]?$"
)
# "the password is hunter2": prose, so the value must carry a digit.
_PASSWORD_IS = (
    r"pass(?:word|wd|phrase)[ \t]+(?:is|was)[ \t]+(?:"
    r"""["'](?P<dq>[^"'\n]{1,256})["']|(?P<bare>[^\s"'`,;]{1,256}))"""
)


def _password_is_value(_m: re.Match[str], v: str) -> bool:
    if _is_placeholder(v) or _CODE_REF.match(v):
        return False
    return any(c.isdigit() for c in v)


def _hex_token(v: str) -> bool:
    """A machine-made hex (or base-36) body: digits and letters, and variety."""
    return len(set(v)) >= 8 and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)


def _discord_id(m: re.Match[str]) -> bool:
    """A Discord bot token opens with its bot's id (digits) in base64."""
    head = re.search(r"[A-Za-z0-9_-]{23,27}$", m.string[max(0, m.start() - 27) : m.start()])
    if head is None:
        return False
    body = head.group()
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (ValueError, binascii.Error):
        return False
    return raw.isdigit()


# A command's argument: quoted, or a bare word up to a space or a shell operator.
_ARG = r"""(?:"(?P<dq>[^"\n]{1,256})"|'(?P<sq>[^'\n]{1,256})'|(?P<bare>[^\s"'`;|&]{1,256}))"""


def _command_line_value(_m: re.Match[str], v: str) -> bool:
    return not (_is_placeholder(v) or _CODE_REF.match(v) or v.startswith(("-", "$")))


def _rule(name: str, patterns: str | tuple[str, ...], min_len: int, check: Check, **kw) -> _Rule:
    if isinstance(patterns, str):
        patterns = (patterns,)
    relaxed = tuple(re.compile(_expand(p, relaxed=True)) for p in patterns)
    strict = tuple(re.compile(_expand(p, relaxed=False)) for p in patterns)
    gaps = tuple(_gaps_in(p) for p in patterns)
    return _Rule(name, relaxed, min_len, check, strict=strict, gaps=gaps, **kw)


# Most specific first: when two rules find the same span, the earlier one names it.
RULES: tuple[_Rule, ...] = (
    _rule(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?:(?!-----)[\s\S]){16,65536}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:[A-Za-z0-9+/=:,.\-\s]|\\[nr]){16,})",
        40,
        _pem,
    ),
    _rule(
        "aws-access-key-id",
        r"A(?:KIA|SIA|BIA|CCA)" + _run("[A-Z0-9]", 16, 16) + r"(?![A-Za-z0-9])",
        20,
        _aws_key_id,
        left=_ALNUM,
    ),
    _rule(
        "aws-secret-access-key",
        tuple(
            key + r"""["']?[ \t]*(?:=>|:=|=|:)[ \t]*["']?(?P<s>[a-z0-9/+]{40})(?![a-z0-9/+=])"""
            for key in (r"secret_?access_?key", r"aws_?secret(?:_?key)?")
        ),
        40,
        _aws_secret,
        lower=True,
    ),
    _rule(
        "gcp-api-key",
        r"AIza" + _run("[0-9A-Za-z_-]", 35, 35) + r"(?![A-Za-z0-9_-])",
        39,
        _always,
        left=_WORDISH,
    ),
    _rule(
        "gcp-oauth-client-secret",
        r"GOCSPX-" + _run("[A-Za-z0-9_-]", 28, 28) + r"(?![A-Za-z0-9_-])",
        35,
        _tail_random(7),
        left=_WORDISH,
    ),
    _rule(
        "google-oauth-token",
        r"ya29\." + _run("[A-Za-z0-9_-]", 30),
        35,
        _tail_random(5),
        left=_WORDISH,
    ),
    _rule(
        "azure-connection-string",
        tuple(
            k + r"Key[ \t]*=[ \t]*(?P<s>[A-Za-z0-9+/]{20,}={0,2})"
            for k in ("Account", "SharedAccess")
        ),
        20,
        _tail_random(0),
    ),
    _rule(
        "azure-sas-signature",
        r"sig=(?P<s>[A-Za-z0-9%+/]{20,}(?:%3D|=){0,2})",
        20,
        _tail_random(0),
        left=_WORDISH,  # ?sig= &sig= ;sig=, not "xsig="
    ),
    _rule(
        "github-pat",
        r"github_pat_" + _run("[A-Za-z0-9_]", 30, 255) + r"(?![A-Za-z0-9_])",
        41,
        _tail_random(11),
        left=_ALNUM,
    ),
    _rule(
        "github-token",
        r"gh[pousr]_" + _run("[A-Za-z0-9]", 30, 255) + r"(?![A-Za-z0-9])",
        34,
        _tail_random(4),
        left=_ALNUM,
    ),
    _rule(
        "gitlab-token",
        r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-" + _run("[A-Za-z0-9_.-]", 20),
        25,
        lambda _m, v: _random_token(v.split("-", 1)[1]),
        left=_ALNUM,
    ),
    _rule(
        "slack-token",
        (r"xox[abposre]-" + _run("[A-Za-z0-9-]", 10), r"xapp-" + _run("[A-Za-z0-9-]", 10)),
        15,
        _tail_random(5),
        left=_ALNUM,
    ),
    _rule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
        43,
        lambda _m, v: len(set(v.split("/", 4)[-1])) >= 8,
    ),
    _rule(
        "stripe-key",
        tuple(p + _run("[A-Za-z0-9]", 16) for p in (r"sk_(?:live|test)_", r"rk_(?:live|test)_")),
        24,
        _tail_random(8),
        left=_ALNUM,
    ),
    _rule(
        "stripe-webhook-secret",
        r"whsec_" + _run("[A-Za-z0-9+/=]", 24),
        30,
        _tail_random(6),
        left=_ALNUM,
    ),
    _rule(
        "anthropic-key",
        r"sk-ant-" + _run("[A-Za-z0-9_-]", 20),
        27,
        _tail_random(7),
        left=_ALNUM,
    ),
    _rule(
        "openai-key",
        r"sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?" + _run("[A-Za-z0-9_-]", 20),
        23,
        lambda _m, v: _random_token(v[3:]) and any(c.isdigit() for c in v),
        left=_ALNUM,
    ),
    _rule(
        "npm-token",
        r"npm_" + _run("[A-Za-z0-9]", 30) + r"(?![A-Za-z0-9])",
        34,
        _tail_random(4),
        left=_ALNUM,
    ),
    _rule(
        "huggingface-token",
        r"hf_" + _run("[A-Za-z0-9]", 30) + r"(?![A-Za-z0-9])",
        33,
        _tail_random(3),
        left=_ALNUM,
    ),
    _rule("pypi-token", r"pypi-AgE" + _run("[A-Za-z0-9_-]", 50), 58, _always, left=_ALNUM),
    _rule(
        "sendgrid-key",
        r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
        36,
        _tail_random(3),
        left=_ALNUM,
    ),
    _rule(
        "gcp-service-account",
        r"""private_key_id["']?[ \t]*:[ \t]*["'](?P<s>[0-9a-f]{40})["']""",
        40,
        lambda _m, v: len(set(v)) >= 8,
    ),
    _rule(
        "azure-client-secret",
        r"Q~" + _run("[A-Za-z0-9_~.-]", 31, 34) + r"(?![A-Za-z0-9_~.-])",
        33,
        _tail_random(2),
        key_prefix=re.compile(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]$"),
    ),
    _rule(
        "discord-bot-token",
        r"\.[A-Za-z0-9_-]{6}\." + _run("[A-Za-z0-9_-]", 27, 40) + r"(?![A-Za-z0-9_-])",
        35,
        lambda m, v: _discord_id(m) and _random_token(v[8:]),
        key_prefix=re.compile(r"(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}$"),
    ),
    _rule(
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/"
        r"[A-Za-z0-9_-]{60,}",
        90,
        lambda _m, v: _random_token(v.rsplit("/", 1)[1]),
    ),
    _rule(
        "telegram-bot-token",
        r":AA" + _run("[A-Za-z0-9_-]", 30, 40) + r"(?![A-Za-z0-9_-])",
        33,
        _tail_random(3),
        key_prefix=re.compile(r"(?<![0-9])[0-9]{8,10}$"),
    ),
    _rule(
        "shopify-token",
        r"shp(?:at|ss|ca|pa)_" + _run("[a-fA-F0-9]", 32, 32) + r"(?![A-Za-z0-9])",
        38,
        lambda _m, v: _hex_token(v[6:]),
        left=_ALNUM,
        hex_body=True,
    ),
    _rule(
        "heroku-api-key",
        r"HRKU-" + _run("[A-Za-z0-9_-]", 30),
        35,
        _tail_random(5),
        left=_ALNUM,
    ),
    _rule(
        "digitalocean-token",
        r"do[opr]_v1_" + _run("[a-f0-9]", 64, 64) + r"(?![A-Za-z0-9])",
        70,
        lambda _m, v: _hex_token(v[7:]),
        left=_ALNUM,
        hex_body=True,
    ),
    _rule(
        "mailgun-key",
        r"key-" + _run("[0-9a-z]", 32, 32) + r"(?![A-Za-z0-9])",
        36,
        lambda _m, v: _hex_token(v[4:]),
        left=_WORDISH,
        hex_body=True,
    ),
    _rule(
        "postmark-token",
        r"""postmark[a-z0-9_ .-]{0,30}?(?:token|key)["']?[ \t]*[:=][ \t]*["']?"""
        r"(?P<s>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
        36,
        _always,
        lower=True,
    ),
    _rule(
        "age-secret-key",
        r"AGE-SECRET-KEY-1" + _run("[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]", 58, 58),
        74,
        _always,
        left=_ALNUM,
    ),
    _rule(
        "vault-token",
        (r"hv[sbr]\." + _run("[A-Za-z0-9_-]", 24), r"s\.[A-Za-z0-9]{24}(?![A-Za-z0-9.])"),
        26,
        lambda _m, v: _random_token(v[2:]) if v[1] == "." else _random_token(v[4:]),
        left=_WORDISH + ".",
    ),
    _rule(
        "jwt",
        r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}",
        36,
        _jwt,
        left=_WORDISH,
    ),
    _rule(
        "url-password",
        r"""://[^\s:/@?#"'<>]*:(?P<s>[^\s/?#"'<>]{1,256})@[A-Za-z0-9_.\[\]%-]+""",
        3,
        _url_password,
        key_prefix=re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,30}$"),  # the scheme
    ),
    _rule(
        "basic-auth",
        r"""authorization["']?[ \t]*[:=][ \t]*["']?basic[ \t]+(?P<s>[a-z0-9+/]{8,}={0,2})""",
        8,
        _basic_auth,
        lower=True,
    ),
    _rule(
        "bearer-token",
        r"bearer[ \t]+(?P<s>[a-z0-9._~+/-]{16,}=*)",
        16,
        lambda _m, v: _random_token(v),
        lower=True,
        left=_ALNUM,
    ),
    _rule(
        "command-line-password",
        (
            r"sshpass(?:[ \t]+-[A-Za-z]+(?:[ \t]+[^\s-]\S*)?)*?[ \t]+-p[ \t]*" + _ARG,
            *(
                tool + r"(?![A-Za-z0-9_])[^\n|;&]{0,200}?[ \t]-p" + _ARG
                for tool in (r"mysql(?:dump|admin|import|show|check)?", r"mariadb(?:-dump)?")
            ),
            r"redis-cli(?![A-Za-z0-9_-])[^\n|;&]{0,200}?[ \t](?:-a|--pass)[ \t]+" + _ARG,
            *(
                tool + r"(?![A-Za-z0-9_-])[^\n|;&]{0,200}?[ \t](?:-u|--user)[ \t=]*"
                r"""[^\s:"'`]+:""" + _ARG
                for tool in ("curl", "wget")
            ),
        ),
        3,
        _command_line_value,
        left=_WORDISH,
    ),
    _rule(
        "netrc-password",
        tuple(
            start + r"(?:\s+(?:login|account|port|protocol)[ \t]+\S+){0,4}\s+password[ \t]+" + _ARG
            for start in (r"machine[ \t]+\S+", "default")
        ),
        3,
        _command_line_value,
        left=_WORDISH,
    ),
    _rule(
        "password-assignment", r"pass(?:word|wd|phrase)" + _VALUE, 4, _password_value, lower=True
    ),
    _rule("password-assignment", _PASSWORD_IS, 4, _password_is_value, lower=True),
    _rule(
        "secret-assignment",
        tuple(k + _VALUE for k in ("token", "secret", "credentials?")),
        8,
        _assignment_value,
        lower=True,
    ),
    _rule(
        "secret-assignment",
        r"key" + _VALUE,
        8,
        _assignment_value,
        lower=True,
        key_prefix=_KEY_WORDS,  # api_key, SECRET-KEY, deploy key…, not "key: value"
    ),
)
_PRIORITY = {rule.name: i for i, rule in reversed(list(enumerate(RULES)))}

_TRAILING = ".,:!?"
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def _value_span(m: re.Match[str], text: str) -> tuple[int, int] | None:
    """The secret's span: group ``s``, the quoted or bare value, or the whole match."""
    groups = m.re.groupindex
    if "s" in groups:
        return m.span("s")
    if "bare" not in groups:
        return m.span()
    for name in ("dq", "sq"):
        if name in groups and m.group(name) is not None:
            return m.span(name)
    start, end = m.span("bare")
    value = text[start:end]
    # Prose punctuation after a bare value is not part of it: "password=hunter2."
    while value:
        last = value[-1]
        if last in _TRAILING or (last in _CLOSERS and _CLOSERS[last] not in value):
            value = value[:-1]
            end -= 1
        else:
            break
    return (start, end) if value else None


def _preview(secret: str) -> str:
    """At most four characters and never more than a third of the secret, then '…'."""
    return secret[: min(4, len(secret) // 3)] + "…"


def _ascii_lower(text: str) -> str:
    """Lower-case ``text`` keeping every offset (a few characters lower-case to two)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered  # lower() never shortens, so equal length means one-to-one
    return "".join(low if len(low := ch.lower()) == 1 else ch for ch in text)


def _candidates(text: str) -> list[tuple[int, int, int, str]]:
    found: list[tuple[int, int, int, str]] = []
    lowered: str | None = None
    for rule in RULES:
        if rule.lower:
            if lowered is None:
                lowered = _ascii_lower(text)
            haystack = lowered
        else:
            haystack = text
        for pattern, strict, gaps in zip(rule.patterns, rule.strict, rule.gaps, strict=True):
            for m in pattern.finditer(haystack):
                at = m.start()
                if rule.left and at and text[at - 1] in rule.left:
                    continue
                if rule.key_prefix is not None and not rule.key_prefix.search(
                    haystack, max(0, at - 32), at
                ):
                    continue
                span = _value_span(m, text)
                if span is None:
                    continue
                start, end = span
                value = text[start:end]
                body = m.start("run") - start if gaps is not None else 0
                if gaps is not None and gaps.search(value, body) and not strict.fullmatch(value):
                    joined = _rejoin(rule, strict, gaps, m, value, body)
                    if joined is None:
                        continue
                    end, value = start + joined[0], joined[1]
                if len(value) < rule.min_len or _ONLY_MARKERS.match(value):
                    continue
                if rule.check(m, value):
                    found.append((start, end, _PRIORITY[rule.name], rule.name))
    return found


# --- text that hides a secret from the rules: look-alike letters, invisible marks, base64

# Invisible characters that split a token without showing: every format character
# (zero-width space, non-joiner and joiner, word joiner, the byte-order mark, the soft
# hyphen, the bidirectional marks and isolates…) and a few blank letters and fillers.
_INVISIBLE_EXTRA = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180e\u3164\uffa0")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
# Letters that look like ASCII ones, as a disguise uses them inside a token's prefix
# (``ghр_`` with a Cyrillic er, ``АKIA`` with a Cyrillic A, ``sk‐`` with a hyphen).
_HOMOGLYPHS = dict(
    zip(
        # Cyrillic
        "АВЕЅІЈКМНОРСТХУҮԚԜаеѕіјорсхуԁһӏԛԝвкмнтьѵ"
        # Greek
        "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧαοριυχνκτϲϳ"
        # Latin and Armenian look-alikes, dashes
        "ıɡɑοօսց‐‑‒–—―−﹘﹣",
        # what each reads as, in the same order
        "ABESIJKMHOPCTXYYQWaesijopcxydhlqwBKMHTbv"  # Cyrillic
        "ABEZHIKMNOPTYXaopiuxvktcj"  # Greek
        "igaooug---------",  # Latin and Armenian, dashes
        strict=True,
    )
)


def _fold(ch: str) -> str:
    """One non-ASCII character as the scanner reads it: gone if invisible, else its
    NFKC form with look-alike letters made ASCII."""
    import unicodedata

    if ch in _INVISIBLE_EXTRA or unicodedata.category(ch) == "Cf":
        return ""
    folded = unicodedata.normalize("NFKC", ch)
    return "".join(_HOMOGLYPHS.get(c, c) for c in folded)


# A view of a text: the text the rules read, and for each of its characters the span
# [lo, hi) of the original it came from.
_View = tuple[str, list[int], list[int]]


def _normalised(text: str) -> _View | None:
    """``text`` with invisible characters gone, in NFKC (full-width and other
    compatibility letters become ASCII) and with look-alike letters folded; None when
    that changes nothing."""
    if text.isascii():
        return None
    out: list[str] = []
    lo: list[int] = []
    pos = 0
    for run in _NON_ASCII.finditer(text):
        out.append(text[pos : run.start()])
        lo.extend(range(pos, run.start()))
        for i in range(run.start(), run.end()):
            folded = _fold(text[i])
            out.append(folded)
            lo.extend([i] * len(folded))
        pos = run.end()
    out.append(text[pos:])
    lo.extend(range(pos, len(text)))
    normal = "".join(out)
    return None if normal == text else (normal, lo, [i + 1 for i in lo])


# Escapes that spell a character: URL %xx (runs of them are UTF-8), JSON and
# JavaScript \uXXXX and \xXX, HTML character references. A text with none of these is
# read as it is; one with some is read decoded too.
# (Three patterns, each opening with a literal the engine skims for: much faster than
# one alternation over every position.)
_ESCAPED = tuple(
    re.compile(p)
    for p in (
        r"%[0-9A-Fa-f]{2}",
        r"\\[ux][0-9A-Fa-f]{2}",
        r"\\[0-7]{3}",
        r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});",
    )
)
_ESCAPE = re.compile(
    r"(?P<url>(?:%[0-9A-Fa-f]{2})+)"
    r"|\\u(?P<u>[0-9A-Fa-f]{4})"
    r"|\\x(?P<x>[0-9A-Fa-f]{2})"
    r"|\\(?P<o>0?[0-3][0-7]{2})"  # octal: C's \147 and echo -e's \0147
    r"|\\(?P<c>[nrt\"'/\\])"
    r"|&(?:#(?P<dec>[0-9]{1,7})|#[xX](?P<hex>[0-9A-Fa-f]{1,6})|(?P<name>[A-Za-z][A-Za-z0-9]{1,31}));"
)
_C_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}


def _char(code: int) -> str | None:
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else None


def _decoded(text: str) -> _View | None:
    """``text`` with its escapes decoded (one level), or None when it has none."""
    if not any(p.search(text) for p in _ESCAPED):
        return None
    out: list[str] = []
    lo: list[int] = []
    hi: list[int] = []
    pos = 0
    ch: str | None  # the character an escape spells, None when it spells none
    for m in _ESCAPE.finditer(text):
        start, end = m.span()
        out.append(text[pos:start])
        lo.extend(range(pos, start))
        hi.extend(range(pos + 1, start + 1))
        pos = end
        kind = m.lastgroup
        if kind == "url":  # bytes, read as UTF-8 (a stray byte stays as it was written)
            raw = bytes.fromhex(m.group("url").replace("%", ""))
            at = start
            for ch in raw.decode("utf-8", "surrogateescape"):
                width = 1 if "\udc80" <= ch <= "\udcff" else len(ch.encode("utf-8"))
                piece = ch if width > 1 or ord(ch) < 0x80 else text[at : at + 3]
                out.append(piece)
                lo.extend([at] * len(piece))
                hi.extend([at + 3 * width] * len(piece))
                at += 3 * width
            continue
        if kind == "u":
            code = int(m.group("u"), 16)
            if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", end):  # a surrogate pair
                low = text[end + 2 : end + 6]
                if len(low) == 4 and all(c in "0123456789abcdefABCDEF" for c in low):
                    low_code = int(low, 16)
                    if 0xDC00 <= low_code <= 0xDFFF:
                        code = 0x10000 + ((code - 0xD800) << 10) + (low_code - 0xDC00)
                        end = pos = end + 6
            ch = _char(code)
        elif kind == "x":
            ch = _char(int(m.group("x"), 16))
        elif kind == "o":
            ch = _char(int(m.group("o"), 8))
        elif kind == "c":
            ch = _C_ESCAPES.get(m.group("c"), m.group("c"))
        elif kind == "dec":
            ch = _char(int(m.group("dec")))
        elif kind == "hex":
            ch = _char(int(m.group("hex"), 16))
        else:
            from html.entities import html5

            ch = html5.get(m.group("name") + ";")
        piece = m.group() if ch is None else ch
        out.append(piece)
        lo.extend([start] * len(piece))
        hi.extend([end] * len(piece))
    out.append(text[pos:])
    lo.extend(range(pos, len(text)))
    hi.extend(range(pos + 1, len(text) + 1))
    decoded = "".join(out)
    return None if decoded == text else (decoded, lo, hi)


# Each token family's literal prefixes (rule name → prefixes): a separator inside one
# (``gh p_``, ``sk- ant-``, ``AK IA``, ``xox b-``) is read through by ``_prefix_joined``.
# tests/trust/test_secret_families.py checks every prefixed family is here.
FAMILY_PREFIXES: dict[str, tuple[str, ...]] = {
    "aws-access-key-id": ("AKIA", "ASIA", "ABIA", "ACCA"),
    "gcp-api-key": ("AIza",),
    "gcp-oauth-client-secret": ("GOCSPX-",),
    "google-oauth-token": ("ya29.",),
    "github-pat": ("github_pat_",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "gitlab-token": tuple(
        f"gl{k}-" for k in ("pat", "dt", "rt", "ptt", "cbt", "oas", "soat", "ft", "imt", "agent")
    ),
    "slack-token": (*(f"xox{c}-" for c in "abposre"), "xapp-"),
    "stripe-key": ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    "stripe-webhook-secret": ("whsec_",),
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-", "sk-proj-", "sk-svcacct-", "sk-admin-"),
    "npm-token": ("npm_",),
    "huggingface-token": ("hf_",),
    "pypi-token": ("pypi-AgE",),
    "sendgrid-key": ("SG.",),
    "shopify-token": ("shpat_", "shpss_", "shpca_", "shppa_"),
    "heroku-api-key": ("HRKU-",),
    "digitalocean-token": ("dop_v1_", "doo_v1_", "dor_v1_"),
    "mailgun-key": ("key-",),
    "age-secret-key": ("AGE-SECRET-KEY-1",),
    "vault-token": ("hvs.", "hvb.", "hvr."),
}
# What may sit inside a prefix: a space, a tab, a dash, a dot, a line break (invisible
# characters are gone already, in ``_normalised``), up to three of them at one place.
_PREFIX_SEP = r"(?:[ \t.-]|\r?\n){1,3}"


def _prefix_trie_pattern(prefixes: list[str]) -> str:
    """One pattern for every prefix, factored by their common starts (so the engine
    tries a character once), a separator allowed between two of its characters."""
    trie: dict = {}
    for prefix in prefixes:
        node = trie
        for ch in prefix:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        arms = [re.escape(ch) + after(child) for ch, child in sorted(node.items()) if ch]
        return arms[0] if len(arms) == 1 else "(?:" + "|".join(arms) + ")"

    def after(child: dict) -> str:
        if not any(child):
            return ""  # a gap after the prefix is the body's (``_rejoin``): "the ghp_ prefix"
        goes_on = f"(?:{_PREFIX_SEP})?" + build(child)
        return f"(?:{goes_on})?" if "" in child else goes_on

    return build(trie)


# Looked for only where a word starts (every family's rule wants a boundary before its
# prefix): the engine then tries the prefixes at one position in several, not at each.
_SPLIT_PREFIX = re.compile(
    "[^A-Za-z0-9]("
    + _prefix_trie_pattern(sorted({p for ps in FAMILY_PREFIXES.values() for p in ps}))
    + ")"
)
_PREFIX_SEPS = re.compile(_PREFIX_SEP)
_PREFIX_SET = frozenset(p for ps in FAMILY_PREFIXES.values() for p in ps)


_ALL_PREFIXES = sorted({p for ps in FAMILY_PREFIXES.values() for p in ps}, key=len, reverse=True)
_SEP_CHARS = frozenset(" \t.-\r\n")


def _aligned(piece: str) -> list[int] | None:
    """The offsets in ``piece`` (a split prefix as matched) of the prefix's own
    characters, the rest being separators: the longest prefix that fits."""
    for prefix in _ALL_PREFIXES:
        if prefix[0] != piece[0]:
            continue
        kept: list[int] = []
        j = 0
        for i, ch in enumerate(piece):
            if j < len(prefix) and ch == prefix[j]:
                kept.append(i)
                j += 1
            elif ch not in _SEP_CHARS:
                break
        else:
            if j == len(prefix):
                return kept
    return None


def _prefix_joined(text: str) -> _View | None:
    """``text`` with the separators inside a family's prefix taken out (``gh p_`` reads
    ``ghp_``, ``sk- ant-`` reads ``sk-ant-``), or None when no prefix holds one."""
    out: list[str] = []
    lo: list[int] = []
    pos = 0
    for m in _SPLIT_PREFIX.finditer(" " + text):  # the text's start is a word's start
        piece = m.group(1)
        if not _PREFIX_SEPS.search(piece) or piece in _PREFIX_SET:
            continue
        kept = _aligned(piece)
        if kept is None or len(kept) == len(piece):
            continue
        start = m.start(1) - 1
        out.append(text[pos:start])
        lo.extend(range(pos, start))
        for i in kept:
            out.append(piece[i])
            lo.append(start + i)
        pos = m.end(1) - 1
    if pos == 0:
        return None
    out.append(text[pos:])
    lo.extend(range(pos, len(text)))
    return "".join(out), lo, [i + 1 for i in lo]


def _compose(outer: _View | None, inner: _View) -> _View:
    """``inner`` (a view of ``outer``'s text) as a view of the original text."""
    if outer is None:
        return inner
    _text, olo, ohi = outer
    text, ilo, ihi = inner
    return text, [olo[i] for i in ilo], [ohi[i - 1] for i in ihi]


_MAX_DEPTH = 3  # decoded inside decoded: %-escapes of \u escapes of a token, base64 of hex


def _views(text: str) -> list[_View]:
    """What the rules read besides ``text`` itself: its decoded and normalised forms,
    each mapped back to ``text``."""
    views: list[_View] = []
    seen = {text}
    current: _View | None = None
    body = text
    for _ in range(_MAX_DEPTH):
        changed = False
        for step in (_decoded, _normalised, _prefix_joined):
            found = step(body)
            if found is None or found[0] in seen:
                continue
            current = _compose(current, found)
            body = current[0]
            seen.add(body)
            views.append(current)
            changed = True
        if not changed:
            break
    return views


# A run of base64 (either alphabet), possibly wrapped over lines (a PEM body without
# its armour, also with escaped ``\n`` as in JSON); short runs carry no token.
_B64_MIN = 20
_B64_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
_B64_MASK = bytes(0x41 if c in _B64_CHARS else 0x20 for c in range(256))
_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}(?:(?:\r?\n[ \t]*|\\n)[A-Za-z0-9+/_-]{16,})*={0,2}")
_B64_SEPARATORS = re.compile(r"\r?\n[ \t]*|\\n|=+$")
_HEX_OR_UUID = re.compile(r"[0-9a-f-]+|[0-9A-F-]+")
_B64_DECODED_MAX = 16 * 1024
_PBES2 = b"\x2a\x86\x48\x86\xf7\x0d\x01\x05\x0d"
# DER opens with a SEQUENCE (0x30, "M" in base64); OpenSSH's key with its magic.
_KEY_B64_OPENINGS = ("M", "b3BlbnNzaC1rZXktdjE")
# In the base64 of ASCII text every fourth character, from the first, is one of A-Z a-f
# (a byte below 0x80): a cheap test that skips paths, identifiers and random runs.
_ASCII_B64 = re.compile(r"(?:[A-Za-f][A-Za-z0-9+/_-]{3}){5}")
_B64_HEAD = re.compile(
    "(?P<key>" + "|".join(_KEY_B64_OPENINGS) + ")|(?P<text>" + _ASCII_B64.pattern + ")"
)


def _b64decode(run: str) -> bytes | None:
    body = _B64_SEPARATORS.sub("", run)[: _B64_DECODED_MAX * 4 // 3]
    rest = len(body) % 4  # the last quantum: two or three characters are one or two bytes
    body = body[:-1] if rest == 1 else body + "=" * ((4 - rest) % 4)
    altchars = b"-_" if ("-" in body or "_" in body) else None
    if altchars and ("+" in body or "/" in body):
        return None  # two alphabets at once: not base64
    try:
        return base64.b64decode(body, altchars=altchars, validate=True)
    except (ValueError, binascii.Error):
        return None


def _is_private_key_der(data: bytes) -> bool:
    """The opening of a private key's binary form: OpenSSH's, or DER (PKCS#1 RSA/DSA,
    PKCS#8 plain or encrypted, SEC1 EC). Public keys and certificates open otherwise."""
    if data.startswith(b"openssh-key-v1\x00"):
        return True
    if len(data) < 16 or data[0] != 0x30:
        return False
    length = data[1]
    at = 2 + (length & 0x7F if length & 0x80 else 0)
    if length & 0x80 and not 1 <= length & 0x7F <= 3:
        return False
    rest = data[at:]
    return (
        rest.startswith((b"\x02\x01\x00\x02", b"\x02\x01\x00\x30", b"\x02\x01\x01\x30"))
        or rest.startswith(b"\x02\x01\x01\x04")
        or (rest.startswith(b"\x30") and _PBES2 in rest[:24])
    )


def _base64_candidates(text: str, depth: int = 0) -> list[tuple[int, int, int, str]]:
    """Secrets inside base64: a token or assignment encoded (named ``base64-<rule>``),
    and bare private key material (a PEM body without its armour, named
    ``private-key``). Decoded text that holds no finding is nothing: ordinary text,
    hashes and UUIDs encoded or not are not secrets."""
    found: list[tuple[int, int, int, str]] = []
    mask = text.encode("ascii", "replace").translate(_B64_MASK)  # one byte per character
    needle = b"A" * _B64_MIN
    pos = mask.find(needle)
    while pos != -1:
        start, end = pos, mask.find(b" ", pos)
        end = len(text) if end == -1 else end
        even = end - (end - start) % 2
        if text[start] in "0234567" and _HEX_TEXT.fullmatch(text, start, even):
            found.extend(_hex_finding(text, start, even, depth))  # hex is base64's subset
            pos = mask.find(needle, end)
            continue
        head = _B64_HEAD.match(text, start)
        if head is None:
            pos = mask.find(needle, end)  # not the base64 of text nor of a key
            continue
        key_like = head.lastgroup == "key"
        if text[end : end + 1] in ("\r", "\n", "\\", "="):  # wrapped over lines, or padded
            wrapped = _B64_RUN.match(text, start)  # always matches: 20+ base64 characters open here
            if wrapped is not None:
                end = wrapped.end()
        pos = mask.find(needle, end)
        run = text[start:end]
        if key_like:
            der = _b64decode(run[:32])
            if der is not None and _is_private_key_der(der):
                found.append((start, end, _PRIORITY["private-key"], "private-key"))
                continue
        if _HEX_OR_UUID.fullmatch(run) or not _ASCII_B64.match(run):
            continue
        data = _b64decode(run)
        if data is None:
            continue
        try:
            decoded = data.decode("utf-8")
        except UnicodeDecodeError as e:
            if e.start < len(data) - 3:
                continue
            decoded = data[: e.start].decode("utf-8")  # a character cut by the run's end
        if not decoded.replace("\n", "").replace("\t", "").replace("\r", "").isprintable():
            continue
        inner = _inner_candidates(decoded, depth)
        if inner:
            name = min(inner, key=lambda c: c[2])[3]
            found.append((start, end, len(_PRIORITY), f"base64-{name}"))
    return found


def _inner_candidates(decoded: str, depth: int) -> list[tuple[int, int, int, str]]:
    """The findings in a decoded run (base64, hex): the rules, and below the depth limit
    every disguise too."""
    if depth + 1 >= _MAX_DEPTH:
        return _candidates(decoded)
    return _all_candidates(decoded, depth + 1)


# A run of hex digits that could spell text: every byte printable ASCII (or a tab or a
# line break). Hashes and ids spell bytes above 0x7f within a few pairs.
_HEX_TEXT = re.compile(r"(?:[2-7][0-9a-fA-F]|0[9aAdD])+")


def _hex_finding(text: str, start: int, end: int, depth: int) -> list[tuple[int, int, int, str]]:
    """A secret spelled in hex (``676870…`` for ``ghp…``), named ``hex-<rule>``; the
    base64 pass hands over each run that spells printable ASCII."""
    inner = _inner_candidates(bytes.fromhex(text[start:end]).decode("ascii"), depth)
    if not inner:
        return []
    name = min(inner, key=lambda c: c[2])[3]
    return [(start, end, len(_PRIORITY), f"hex-{name}")]


def _all_candidates(text: str, depth: int = 0) -> list[tuple[int, int, int, str]]:
    """The rules over ``text`` as written and over every view of it (decoded escapes,
    NFKC without invisible characters and look-alike letters; spans mapped back), and
    over the base64 and hex in each."""
    found = _candidates(text) + _base64_candidates(text, depth)
    for body, lo, hi in _views(text):
        for start, end, priority, name in _candidates(body) + _base64_candidates(body, depth):
            found.append((lo[start], hi[end - 1], priority, name))
    return found


def _token_piece(piece: str, gap: str, hex_body: bool = False) -> bool:
    """A piece of a split token. After a space or a line break it must look machine-made:
    two of lower case, upper case and digits (or digits alone), and not a hex hash or UUID
    on its own; a word of one case ends the token (prose goes on after it). After a tab
    or a dash, which prose does not put inside a word, any piece will do (the joined form
    must still be a whole token of the family)."""
    if gap in ("\t", "-"):
        return bool(piece)
    if hex_body and piece.isalnum() and piece.isascii() and not piece.isupper():
        return True  # a hex family's body is hex: no hash to tell apart
    if len(piece) >= 8 and _HEX_OR_UUID.fullmatch(piece):
        return False
    if piece.isalpha() and piece[1:].islower():
        return False  # "The", "is": a word of prose after the token
    return _classes(piece) >= 2 or piece.isdigit()


def _rejoin(
    rule: _Rule,
    strict: re.Pattern[str],
    gaps: re.Pattern[str],
    m: re.Match[str],
    value: str,
    body: int,
) -> tuple[int, str] | None:
    """A token split by single separators: its pieces joined, and how far into ``value``
    it reaches. A piece that reads as a plain word ends it (prose after a token is not
    part of it); of the rest, the longest run of pieces that is a whole token of the
    rule's family wins."""
    pieces: list[tuple[int, str, str]] = []  # (end in value, piece, the gap before it)
    pos = 0
    before = ""
    for gap in gaps.finditer(value, body):
        pieces.append((gap.start(), value[pos : gap.start()], before))
        pos = gap.end()
        before = gap.group()
    pieces.append((len(value), value[pos:], before))
    kept = [pieces[0]]
    for piece in pieces[1:]:
        if not _token_piece(piece[1], piece[2], rule.hex_body):
            break
        kept.append(piece)
    for n in range(len(kept), 0, -1):
        joined = "".join(p for _e, p, _g in kept[:n])
        if len(joined) >= rule.min_len and strict.fullmatch(joined) and rule.check(m, joined):
            return kept[n - 1][0], joined
    return None


def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret in ``text``, in order.

    Overlapping candidates merge into one finding covering all of them, named
    by the most specific rule among them (``api_key: sk-proj-…`` is an
    ``openai-key``, and the whole value still goes).
    """
    if not isinstance(text, str) or not text:
        return []
    candidates = sorted(_all_candidates(text))
    findings: list[SecretFinding] = []
    i = 0
    while i < len(candidates):
        start, end, priority, name = candidates[i]
        i += 1
        while i < len(candidates) and candidates[i][0] < end:
            _s, other_end, other_priority, other_name = candidates[i]
            end = max(end, other_end)
            if other_priority < priority:
                priority, name = other_priority, other_name
            i += 1
        findings.append(SecretFinding(name, start, end, _preview(text[start:end])))
    return findings


_MAX_PASSES = 8


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<rule>]``; never raises.

    A replacement can make neighbours read differently (a marker glued to a
    token's tail), so redaction repeats until a scan finds nothing; each pass
    removes characters of the original text, so it ends. As a last resort a
    remaining finding swallows everything to the end of the text.
    """
    for _ in range(_MAX_PASSES):
        findings = find_secrets(text)
        if not findings:
            return text
        text = _replace(text, findings)
    findings = find_secrets(text)
    if findings:
        first = findings[0]
        text = text[: first.start] + f"[REDACTED:{first.rule}]"
    return text


def _replace(text: str, findings: list[SecretFinding]) -> str:
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.rule}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def ensure_no_secrets(text: str, what: str) -> None:
    """Raise ``SecretFoundError`` naming the rules (never the values) if ``text`` has a secret."""
    findings = find_secrets(text) if isinstance(text, str) else []
    if findings:
        raise SecretFoundError(what, findings)


# How much of each field's end and start is read when two fields are joined: more than
# any token family's length, so a scan of the join stays cheap.
_JOIN_WINDOW = 1024


def ensure_no_secrets_together(fields: list[tuple[str, str | None]]) -> None:
    """Refuse the fields of one call (a decision's text, why and rejected…) if any holds
    a secret, or if two of them joined end to start do: a key split over two fields is
    still a key. The refusal names the fields and the kind, never the value."""
    present = [(name, value) for name, value in fields if isinstance(value, str) and value]
    for name, value in present:
        ensure_no_secrets(value, name)
    for first_name, first in present:
        for second_name, second in present:
            if first_name == second_name:
                continue
            left = first[-_JOIN_WINDOW:]
            joined = left + second[:_JOIN_WINDOW]
            crossing = [f for f in find_secrets(joined) if f.start < len(left) < f.end]
            if crossing:
                raise SecretFoundError(f"{first_name} and {second_name}", crossing, together=True)
