#!/usr/bin/env python3
"""Reads a post_tool_call payload, answers {"result": ...} with secrets masked, or {} when the
result holds none. Keeps a short prefix of each key so the model can still tell which key it
was ("sk-abcd1234…")."""
import json
import re
import sys

PATTERNS = [
    # OpenAI / Anthropic style keys: keep "sk-" plus 8 characters, as in the Antares protocol's example.
    (re.compile(r"\b(sk-(?:ant-|proj-)?[A-Za-z0-9]{8})[A-Za-z0-9_\-]{8,}"), r"\1…"),
    # GitHub tokens.
    (re.compile(r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{4})[A-Za-z0-9]{20,}"), r"\1…"),
    (re.compile(r"\b(github_pat_[A-Za-z0-9]{4})[A-Za-z0-9_]{20,}"), r"\1…"),
    # AWS access key ids, Slack tokens.
    (re.compile(r"\b(AKIA[0-9A-Z]{4})[0-9A-Z]{12}\b"), r"\1…"),
    (re.compile(r"\b(xox[abprs]-[A-Za-z0-9]{4})[A-Za-z0-9\-]{10,}"), r"\1…"),
    # Authorization headers.
    (re.compile(r"(?i)\b(authorization:\s*bearer\s+)[A-Za-z0-9._\-+/=]{8,}"), r"\1…"),
    # PEM private keys, whole block.
    (re.compile(r"-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----"),
     r"-----BEGIN \1PRIVATE KEY----- … (redacted) -----END \1PRIVATE KEY-----"),
]


def main() -> None:
    payload = json.load(sys.stdin)
    result = payload.get("result") or ""
    cleaned = result
    for pattern, replacement in PATTERNS:
        cleaned = pattern.sub(replacement, cleaned)
    print(json.dumps({"result": cleaned} if cleaned != result else {}))


if __name__ == "__main__":
    main()
