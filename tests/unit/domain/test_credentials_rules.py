"""Credential masking rules: every shape, whole values, boundaries that do not depend on `_` or `-`,
plural names, command-line credentials, private key blocks of every kind, the process's own configured
secrets; and the code, placeholders and data identifiers that must come back unchanged."""

from __future__ import annotations

import time

import pytest

from summarizer.domain import secrets
from summarizer.domain.credential_shapes import SHAPES
from summarizer.domain.credentials import mask_configured, mask_credentials, mask_json, mask_message
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage

ANTHROPIC = "sk-ant-api03-" + "Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3iRy6TnQ" * 2 + "XYZWAA"
GITHUB = "ghp_Q7wErT9yUiOp1AsDfGhJkLzXcVbNm23456789"
GOOGLE = "AIzaSyD4k9Lm2Nq7Rt1Vw8Xz3Bc6Fg0Hj5Kp2Ls"

# One sample of every provider shape (generated characters in each provider's prefix, length and alphabet).
SAMPLES: dict[str, str] = {
    "sk-ant-": ANTHROPIC,
    "sk-": "sk-proj-Rk4mT9wQz2Lb7NcY1vHs8JdF3gXp6AeU0oKi5WrBn",
    "sk_": "sk_live_51Hx7Kq2Lm9Nz4Bv1Cw8Dy3Ef",
    "rk_": "rk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "whsec_": "whsec_Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0u",
    "AKIA": "AKIAZ7QWERTYUIOP9XQZ",
    "ASIA": "ASIAQ4PLMOKNIJBUHV12",
    "ABIA": "ABIAQ4PLMOKNIJBUHV12",
    "ACCA": "ACCAQ4PLMOKNIJBUHV12",
    "gh": GITHUB,
    "github_pat_": "github_pat_11ABCDEFG0123456789_abcdefghijKLMNOPqrstu",
    "gl": "glpat-Xy7Zq2Wv9Lm4Nb1Kc8PdQw3e",
    "GR1348941": "GR1348941Xy7Zq2Wv9Lm4Nb1Kc8Pd",
    "xox": "xoxb-2468013579-1357924680-AbCdEfGhIjKl",
    "xapp-": "xapp-1-A0123456789-1234567890123-abcdef",
    "hooks.slack.com/": "hooks.slack.com/services/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",
    "AIza": GOOGLE,
    "ya29.": "ya29.a0AfH6SMBx7Kq2Lm9Nz4Bv1Cw8Dy3Ef",
    "GOCSPX-": "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",
    "hf_": "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",
    "npm_": "npm_Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3i",
    "pypi-AgEIcHlwaS5vcmc": "pypi-AgEIcHlwaS5vcmc" + "Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3iRy6TnQ" * 2,
    "SG.": "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",
    "do": "dop_v1_" + "0123456789abcdef" * 4,
    "shp": "shpat_0123456789abcdef0123456789abcdef",
    "gsk_": "gsk_" + "Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3iRy6TnQ12345678ab",
    "xai-": "xai-" + "Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3iRy6TnQ" * 2,
    "dapi": "dapi0123456789abcdef0123456789abcdef",
    "SK": "SK0123456789abcdef0123456789abcdef",
    "AGE-SECRET-KEY-1": "AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58],
    "lin_api_": "lin_api_" + ("Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3i" * 2)[:40],
    "r8_": "r8_Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3iR",
    "PMAK-": "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
    "dp.pt.": "dp.pt." + ("Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3i" * 2)[:43],
}


def test_every_shape_has_a_sample() -> None:
    assert {shape.literal for shape in SHAPES} == set(SAMPLES)


@pytest.mark.parametrize("literal", sorted(SAMPLES))
def test_each_provider_shape_is_masked_in_prose(literal: str) -> None:
    key = SAMPLES[literal]
    masked = mask_credentials(f"the key is {key}, rotate it.")
    assert key not in masked
    assert masked.startswith("the key is [secret:")
    assert masked.endswith("], rotate it.")


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (f"**Key:** __{ANTHROPIC}__ done", "**Key:** __[secret:anthropic-key …ZWAA]__ done"),
        (f"see _{GITHUB}_ here", "see _[secret:github-token …6789]_ here"),
        (f"MY_KEY_{GITHUB}", "MY_KEY_[secret:github-token …6789]"),
        (f"{GOOGLE}_x", "[secret:google-api-key …p2Ls]_x"),
        (f"-{GITHUB}-", "-[secret:github-token …6789]-"),
    ],
)
def test_keys_beside_underscores_and_dashes_are_masked_and_the_neighbours_kept(
    text: str, masked: str
) -> None:
    assert mask_credentials(text) == masked


@pytest.mark.parametrize("delimiter", ["&", ";", ","])
def test_a_value_is_masked_whole_up_to_the_delimiter_that_ends_it(delimiter: str) -> None:
    secret = f"Tr0ub4dor{delimiter}3xQ9z"
    for text in (f"password={secret}", f"export DB_PASSWORD={secret} && run", f"password: {secret}\n"):
        masked = mask_credentials(text)
        assert "3xQ9z" not in masked.replace("…xQ9z", ""), masked
        assert "Tr0ub" not in masked


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (
            "https://example.com/cb?token=Zx9Yw8Vu7Ts6&x=1",
            "https://example.com/cb?token=[secret:token …7Ts6]&x=1",
        ),
        ("password=Hunt3r2x;user=ada", "password=[secret:password];user=ada"),
        ("connect(password=Hunt3r2xQ9)", "connect(password=[secret:password])"),
        ("the password is password=Hunt3r2xQ9.", "the password is password=[secret:password]."),
    ],
)
def test_a_query_a_following_assignment_or_trailing_punctuation_ends_a_value(text: str, masked: str) -> None:
    assert mask_credentials(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "SUMMARIZER_API_TOKENS=wr1te-tok3n-0123456789,sc0ped-tok3n-98765@team-a/",
        "REPLICA_PASSWORDS='Hunt3r2x,Tr0ub4dor9'",
        "SIGNING_KEYS=Zq8vLr2NtY5wKd9sFb1XcHm4",
        '{"API_TOKENS": "wr1te-tok3n-0123456789"}',
        "client_secrets: q8Zr2Lx7Vm4Nb1Kc",
    ],
)
def test_plural_secret_names_are_masked(text: str) -> None:
    masked = mask_credentials(text)
    assert "[secret:" in masked
    for part in ("wr1te", "sc0ped", "Hunt3r", "Tr0ub", "Zq8vLr", "q8Zr2"):
        assert part not in masked


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("curl -u deploy:S3cretPassw0rd https://ci.example.com", "S3cretPassw0rd"),
        ("curl --user 'deploy:S3cret Pass' https://x", "S3cret"),
        ("mysql -h db -u root -pS3cr3tXy shop", "S3cr3tXy"),
        ("mysqldump -u root -p'S3cr;3tXy' shop > dump.sql", "S3cr;3tXy"),
        ("mysqldump --password=S3cr3tXy shop", "S3cr3tXy"),
        ("vault login --password S3cr3tXy", "S3cr3tXy"),
        ("sshpass -p S3cr3tXy ssh ops@10.0.0.5", "S3cr3tXy"),
        ("sshpass -pS3cr3tXy ssh ops@10.0.0.5", "S3cr3tXy"),
        ("PGPASSWORD=S3cr3tXy psql -h db -U app", "S3cr3tXy"),
        ("redis-cli -h cache -a S3cr3tXy ping", "S3cr3tXy"),
        ("docker login -u ada -p S3cr3tXy registry.example.com", "S3cr3tXy"),
    ],
)
def test_command_line_credentials_are_masked(text: str, secret: str) -> None:
    masked = mask_credentials(text)
    assert secret not in masked, masked
    assert "[secret:" in masked


@pytest.mark.parametrize(
    "text",
    [
        "docker run -u 1000:1000 -p 8080:80 image",
        "mysql -u root -p shop",
        "sort -u names.txt",
        "psql --password mydb",
    ],
)
def test_command_lines_without_a_credential_are_left_alone(text: str) -> None:
    assert mask_credentials(text) is text


@pytest.mark.parametrize(
    "label",
    [
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "DSA PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ],
)
def test_private_key_blocks_of_every_kind_lose_their_body(label: str) -> None:
    body = "Version: GnuPG v2\n\nlQOYBGXq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3iRy6TnQ\n=Xq8v"
    text = f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n"
    masked = mask_credentials(text)
    assert "lQOYBGXq8vLr2NtY5wKd9sFb1" not in masked
    assert masked.startswith(f"-----BEGIN {label}-----\n[secret:private-key")
    assert masked.endswith(f"-----END {label}-----\n")


@pytest.mark.parametrize(
    "text",
    [
        "apiKey: apiKey!,",
        "const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY! });",
        'api_key = os.environ["ANTHROPIC_API_KEY"]',
        'export OPENAI_API_KEY="sk-..."',
        "OPENAI_API_KEY=sk-...",
        "password: ${DB_PASSWORD}",
        "TOKEN=$GITHUB_TOKEN",
        "api_key=<your-key>",
        "password=xxxx",
        'password="yourpassword"',
        "token: {{ secrets.TOKEN }}",
        "const dedupeKey = `thinking:${metadata.id}:${metadata.timestamp}`;",
        "const inputTokens = toNumber(usageRecord.input_tokens ?? usage.inputTokens);",
        "key: typing.Optional[typing.Union[Field, type]] = None,",
        "secret: credentials.additionalConfig?.awsSecretAccessKey,",
        "AWS_ACCESS_KEY_ID: 'AKIAXXXXXXXXXXXXXXXX'",
        "OPENAI_API_KEY: 'ollama'",
        "ANTHROPIC_API_KEY='proxy-handled'",
        '"secrets": "node scripts/validate-secrets.js"',
        "keys: `sk-[alphanumeric]{20,}`",
        "commit 9f8e7d6c5b4a3f2e1d0c9f8e7d6c5b4a3f2e1d0c",
        "key: 9f8e7d6c5b4a3f2e1d0c9f8e7d6c5b4a3f2e1d0c9f8e7d6c5b4a3f2e1d0c1234",
        "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "request_key: 123e4567-e89b-12d3-a456-426614174000",
        '"url":"https://a.com","name":"A","publisher":{"@id":"https://a.com/#org"}',
        '{"@context":"https://schema.org","url":"https://a.com","author":{"@id":"https://a.com/#me"}}',
        "max_tokens=1024 input_tokens: 120",
        "sorted(items, key=len)",
        "token = self.token",
    ],
)
def test_code_placeholders_and_data_identifiers_are_left_alone(text: str) -> None:
    assert mask_credentials(text) is text


def test_configured_values_are_masked_whatever_they_look_like() -> None:
    token = "plain-words-make-this-operator-token"
    secrets.register([token, "postgres"])
    text = f"a tool printed SUMMARIZER_API_TOKENS={token} and {token}; the database is postgres"
    masked = mask_credentials(text)
    assert token not in masked
    assert "[secret:configured]" in masked
    assert masked.endswith("the database is postgres")  # a plain word is not looked for in conversations
    assert mask_configured(token) == "[secret:configured]"
    assert mask_json({"env": {"X": token}}) == {"env": {"X": "[secret:configured]"}}
    raw = NewMessage(Kind.TOOL_RESULT, f"TOKEN {token} and {GITHUB}", tool_call_id="t")
    kept = mask_message(raw, configured_only=True)
    assert kept.content == f"TOKEN [secret:configured] and {GITHUB}"


def test_masking_the_new_rules_twice_changes_nothing() -> None:
    text = (
        f"password=Tr0ub4dor&3xQ9z __{ANTHROPIC}__ curl -u a:S3cretPassw0rd https://x "
        "mysql -pS3cr3tXy SIGNING_KEYS=Zq8vLr2NtY5wKd9sFb1XcHm4 sshpass -p S3cr3tXy ssh h"
    )
    once = mask_credentials(text)
    assert once != text
    assert mask_credentials(once) == once


@pytest.mark.parametrize(
    "unit",
    [
        "key=",
        "__sk-",
        "sshpass ",
        "mysql -p",
        "curl -u a:b ",
        "--password ",
        "token:'",
        'password="',
        "eyJ_",
        "eyJ.",
        "AIza_",
        "hooks.slack.com/",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----",
        'https://a.com","@',
    ],
    ids=repr,
)
def test_a_megabyte_of_text_built_against_the_new_rules_takes_well_under_a_second(unit: str) -> None:
    hostile = unit * (1_000_000 // len(unit))
    started = time.process_time()  # CPU time: the machine may be busy with other work
    mask_credentials(hostile)
    assert time.process_time() - started < 0.9
