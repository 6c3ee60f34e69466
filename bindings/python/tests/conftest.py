"""Shared fixtures. The tests load the library named by $PLUGLINE_LIBRARY (see README.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest

import plugline

REPO_ROOT = Path(__file__).resolve().parents[3]
HEADER = REPO_ROOT / "capi" / "include" / "plugline" / "plugline.h"


def header_text() -> str:
    return HEADER.read_text(encoding="utf-8")


def header_define(name: str) -> str:
    """The replacement text of a #define in the public header."""
    match = re.search(rf"^#define {name}\s+(.+?)\s*$", header_text(), re.MULTILINE)
    assert match, f"{name} not found in {HEADER}"
    return match.group(1)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fresh PLUGLINE_HOME for one test (not created: plugline must create what it needs)."""
    return tmp_path / "home"


@pytest.fixture
def host(home: Path) -> Iterator[plugline.Host]:
    with plugline.Host(home=home) as opened:
        yield opened


def numbered_lines(count: int) -> bytes:
    return b"".join(b"line %d of the output\n" % i for i in range(1, count + 1))
