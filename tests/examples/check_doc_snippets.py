#!/usr/bin/env python3
"""Checks the code blocks of docs/embedding-*.md against the examples they come from.

    check_doc_snippets.py REPO

A code block preceded by

    <!-- snippet: examples/python_host/agent_loop.py [pre-tool-call] -->

must equal the region of that file between its two marker lines (`# [pre-tool-call]`,
`// [pre-tool-call]` or `/* [pre-tool-call] */`), dedented, marker lines left out. The
examples themselves are built and run by the tests, so such a block is known to work.

A block of code that is not taken from an example must still compile: Python is compiled
(top-level `await` allowed), JavaScript is checked with `node --check` as an ES module. C and
C++ blocks must come from an example. Shell, YAML, JSON and text blocks are not checked.

Prints one line per problem and exits 1 when there is any.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

MARKER = re.compile(r"^<!-- snippet: (\S+) \[([a-z0-9-]+)\] -->$")
FENCE = re.compile(r"^```(\S*)\s*$")


def region(path: Path, name: str) -> str:
    """The lines of `path` between its two `[name]` marker lines, dedented."""
    marker = re.compile(rf"^\s*(?:#|//|/\*)\s*\[{re.escape(name)}\]\s*(?:\*/)?\s*$")
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [i for i, line in enumerate(lines) if marker.match(line)]
    if len(found) != 2:
        raise ValueError(f"{path}: expected two [{name}] marker lines, found {len(found)}")
    return textwrap.dedent("\n".join(lines[found[0] + 1:found[1]])).strip("\n")


def code_blocks(doc: Path) -> list[tuple[int, str, str, str | None]]:
    """(line, language, code, 'file [region]' or None) of every fenced block of `doc`."""
    blocks = []
    lines = doc.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        previous = start - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        source = lines[previous].strip() if previous >= 0 else ""
        blocks.append((start + 1, fence.group(1), "\n".join(lines[start + 1:j]),
                       source if MARKER.match(source) else None))
        i = j + 1
    return blocks


def check_javascript(code: str) -> str | None:
    node = shutil.which("node")
    if node is None:
        return "node is not installed: cannot check JavaScript"
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", delete=False) as file:
        file.write(code + "\n")
    try:
        checked = subprocess.run([node, "--check", file.name], capture_output=True, text=True,
                                 timeout=60)
    finally:
        Path(file.name).unlink()
    if checked.returncode == 0:
        return None
    lines = checked.stderr.strip().splitlines()
    return next((line for line in lines if "Error" in line), lines[-1] if lines else "?")


def main(repo: Path) -> int:
    problems = []
    checked = 0
    for doc in sorted((repo / "docs").glob("embedding-*.md")):
        name = doc.relative_to(repo)
        for line, language, code, source in code_blocks(doc):
            where = f"{name}:{line}"
            if source is not None:
                match = MARKER.match(source)
                assert match
                try:
                    expected = region(repo / match.group(1), match.group(2))
                except (OSError, ValueError) as error:
                    problems.append(f"{where}: {error}")
                    continue
                if code.strip("\n") != expected:
                    problems.append(f"{where}: differs from {match.group(1)} "
                                    f"[{match.group(2)}]; copy the region again")
                checked += 1
            elif language in ("python", "py"):
                try:
                    compile(code, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
                except SyntaxError as error:
                    problems.append(f"{where}: Python does not compile: {error.msg} "
                                    f"(line {error.lineno} of the block)")
                checked += 1
            elif language in ("js", "javascript", "mjs"):
                error = check_javascript(code)
                if error is not None:
                    problems.append(f"{where}: JavaScript does not compile: {error}")
                checked += 1
            elif language in ("c", "cpp", "c++"):
                problems.append(f"{where}: a {language} block must come from an example "
                                "(<!-- snippet: FILE [REGION] --> before it)")
    for problem in problems:
        print(problem)
    print(f"doc snippets: {checked} code blocks checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
