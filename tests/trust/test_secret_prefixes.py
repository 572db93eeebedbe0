"""A separator inside a token family's prefix hides nothing: ``gh p_…``, ``gh-p_…``,
``g h p _ …``, ``sk- ant-…``, ``AK IA…``, ``xox b-…`` (a space, a tab, a dash, a dot, a
line break or an invisible mark) are each found as their family.

Every fake token is assembled here from pieces (none is a real credential), so this file
holds no string a secret scanner would flag.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memoir_tui.core.format.secrets import FAMILY_PREFIXES, RULES, find_secrets, redact
from tests.conftest import examples

MIXED = "q7Xk2Lm9Vt" + "R4wZp8NcYh" + "3JsGd6BfTu" + "1EaWn5HyKe"
MIXED = MIXED + MIXED[::-1]
UPPER = "Q3EGRTZ7VX" + "K2HW5N"
HEX = "3f9a1c7e" + "5b2d8046" + "a7c4e2f1" + "09b8d6c3"
BECH = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"  # age's bech32 alphabet

# A body each family's rule takes after its prefix.
BODIES = {
    "aws-access-key-id": UPPER,
    "gcp-api-key": MIXED[:35],
    "gcp-oauth-client-secret": MIXED[:28],
    "google-oauth-token": MIXED[:40],
    "github-pat": MIXED[:40],
    "github-token": MIXED[:36],
    "gitlab-token": MIXED[:24],
    "slack-token": "2048" + "19375562-" + "40962817" + "33457-" + MIXED[:24],
    "stripe-key": MIXED[:30],
    "stripe-webhook-secret": MIXED[:32],
    "anthropic-key": "api03-" + MIXED[:60],
    "openai-key": MIXED[:48],
    "npm-token": MIXED[:36],
    "huggingface-token": MIXED[:34],
    "pypi-token": MIXED[:60],
    "sendgrid-key": MIXED[:22] + "." + MIXED[22:65],
    "shopify-token": HEX,
    "heroku-api-key": "AA" + MIXED[:58],
    "digitalocean-token": HEX + HEX[::-1],
    "mailgun-key": "3ax6xnjp" + "29jd6fds" + "4gc373sg" + "vjxteol0",
    "age-secret-key": BECH + BECH[:26],
    "vault-token": MIXED[:90],
}

SEPARATORS = [" ", "\t", "-", ".", "\n", "\r\n", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
SEPARATORS += ["\u00ad", " - ", ". ", "\u200b "]

TOKENS = sorted(
    (rule, prefix + BODIES[rule])
    for rule, prefixes in FAMILY_PREFIXES.items()
    for prefix in prefixes
)
PREFIX_LENGTH = {token: len(prefix) for rule, ps in FAMILY_PREFIXES.items() for prefix in ps
                 for r, token in [(rule, prefix + BODIES[rule])]}  # fmt: skip


def test_every_prefixed_family_lists_its_prefixes():
    """A rule that skims for a literal prefix before a token body (its ``left`` boundary
    and a body that may be split) is a family, and its prefixes are listed; whatever is
    listed is a rule with such a boundary (SendGrid's ``SG.`` too, whose body is not split)."""
    prefixed = {
        rule.name
        for rule in RULES
        if rule.left and rule.key_prefix is None and any(g is not None for g in rule.gaps)
    }
    assert prefixed <= set(FAMILY_PREFIXES) == set(BODIES)
    assert set(FAMILY_PREFIXES) <= {rule.name for rule in RULES if rule.left}


@pytest.mark.parametrize(("rule", "token"), TOKENS, ids=[t[:8] for _r, t in TOKENS])
def test_each_listed_prefix_is_its_family_as_written(rule, token):
    assert [f.rule for f in find_secrets("we used " + token + " yesterday")] == [rule]


def _split(token: str, prefix_len: int, sep: str, cuts: list[int]) -> str:
    at = sorted({1 + c % (prefix_len - 1) for c in cuts}, reverse=True)
    for cut in at:
        token = token[:cut] + sep + token[cut:]
    return token


@settings(max_examples=examples(150, soak=4000))
@given(
    st.sampled_from(TOKENS),
    st.sampled_from(SEPARATORS),
    st.lists(st.integers(0, 63), min_size=1, max_size=4),
)
@example(("github-token", "ghp_" + BODIES["github-token"]), " ", [0, 1, 2])  # g h p _
@example(("anthropic-key", "sk-ant-" + BODIES["anthropic-key"]), " ", [2])  # sk- ant-
@example(("aws-access-key-id", "AKIA" + UPPER), " ", [1])  # AK IA
@example(("slack-token", "xoxb-" + BODIES["slack-token"]), " ", [2])  # xox b-
def test_a_separator_anywhere_in_a_prefix_is_read_through(token_of, sep, cuts):
    rule, token = token_of
    split = _split(token, PREFIX_LENGTH[token], sep, cuts)
    text = "we used " + split + " yesterday"
    found = find_secrets(text)
    assert [f.rule for f in found] == [rule], repr(split)
    redacted = redact(text)
    assert find_secrets(redacted) == []
    assert redacted.startswith("we used [REDACTED:") and redacted.endswith("] yesterday")
    assert BODIES[rule][-12:] not in redacted


@pytest.mark.parametrize("sep", SEPARATORS, ids=[repr(s) for s in SEPARATORS])
def test_each_separator_between_every_two_prefix_characters(sep):
    for rule, token in TOKENS:
        n = PREFIX_LENGTH[token]
        split = sep.join(token[:n]) + token[n:]
        assert [f.rule for f in find_secrets("we used " + split + " ok")] == [rule], repr(split)
