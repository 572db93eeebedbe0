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
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from memoir_tui.core.errors import MemoirError

__all__ = [
    "RULES",
    "SecretFinding",
    "SecretFoundError",
    "ensure_no_secrets",
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

    def __init__(self, what: str, findings: list[SecretFinding]) -> None:
        self.what = what
        self.findings = tuple(findings)
        self.rules = tuple(dict.fromkeys(f.rule for f in findings))
        kinds = ", ".join(self.rules)
        super().__init__(
            f"{what} looks like it contains a secret ({kinds}); memoir will not store it. "
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


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_WORDISH = _ALNUM + "_-"


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


def _rule(name: str, patterns: str | tuple[str, ...], min_len: int, check: Check, **kw) -> _Rule:
    if isinstance(patterns, str):
        patterns = (patterns,)
    return _Rule(name, tuple(re.compile(p) for p in patterns), min_len, check, **kw)


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
        r"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
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
    _rule("gcp-api-key", r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])", 39, _always, left=_WORDISH),
    _rule(
        "gcp-oauth-client-secret",
        r"GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])",
        35,
        _tail_random(7),
        left=_WORDISH,
    ),
    _rule("google-oauth-token", r"ya29\.[A-Za-z0-9_-]{30,}", 35, _tail_random(5), left=_WORDISH),
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
        r"github_pat_[A-Za-z0-9_]{30,255}(?![A-Za-z0-9_])",
        41,
        _tail_random(11),
        left=_ALNUM,
    ),
    _rule(
        "github-token",
        r"gh[pousr]_[A-Za-z0-9]{30,255}(?![A-Za-z0-9])",
        34,
        _tail_random(4),
        left=_ALNUM,
    ),
    _rule(
        "gitlab-token",
        r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_.-]{20,}",
        25,
        lambda _m, v: _random_token(v.split("-", 1)[1]),
        left=_ALNUM,
    ),
    _rule(
        "slack-token",
        (r"xox[abposre]-[A-Za-z0-9-]{10,}", r"xapp-[A-Za-z0-9-]{10,}"),
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
        (r"sk_(?:live|test)_[A-Za-z0-9]{16,}", r"rk_(?:live|test)_[A-Za-z0-9]{16,}"),
        24,
        _tail_random(8),
        left=_ALNUM,
    ),
    _rule("stripe-webhook-secret", r"whsec_[A-Za-z0-9+/=]{24,}", 30, _tail_random(6), left=_ALNUM),
    _rule("anthropic-key", r"sk-ant-[A-Za-z0-9_-]{20,}", 27, _tail_random(7), left=_ALNUM),
    _rule(
        "openai-key",
        r"sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,}",
        23,
        lambda _m, v: _random_token(v[3:]) and any(c.isdigit() for c in v),
        left=_ALNUM,
    ),
    _rule("npm-token", r"npm_[A-Za-z0-9]{30,}(?![A-Za-z0-9])", 34, _tail_random(4), left=_ALNUM),
    _rule(
        "huggingface-token", r"hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])", 33, _tail_random(3), left=_ALNUM
    ),
    _rule("pypi-token", r"pypi-AgE[A-Za-z0-9_-]{50,}", 58, _always, left=_ALNUM),
    _rule(
        "sendgrid-key",
        r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
        36,
        _tail_random(3),
        left=_ALNUM,
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
        for pattern in rule.patterns:
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
                if len(value) < rule.min_len or _ONLY_MARKERS.match(value):
                    continue
                if rule.check(m, value):
                    found.append((start, end, _PRIORITY[rule.name], rule.name))
    return found


def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret in ``text``, in order.

    Overlapping candidates merge into one finding covering all of them, named
    by the most specific rule among them (``api_key: sk-proj-…`` is an
    ``openai-key``, and the whole value still goes).
    """
    if not isinstance(text, str) or not text:
        return []
    candidates = sorted(_candidates(text))
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
