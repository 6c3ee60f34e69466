#!/usr/bin/env python3
"""Checks that docs/faults.md and the tests agree.

Every row of every table in docs/faults.md names, in its last column, the test (or tests)
that prove it: a file path in backquotes followed by a test name in double quotes,
e.g. `tests/faults/js_plugins_test.cc` "a JS shaper whose ...". This script fails when
  - a row names no test,
  - a named file does not exist, or does not define a test with that name
    (C++: TEST_CASE("name" (the name may start on the next line, or be split into adjacent
    literals); Python: def name(;
    JS: test('name' or test("name", escapes such as \\' read as what they stand for;
    shell: the name appears in the script),
  - a test case of tests/faults/*.cc is named by no row (the table must cover the family
    files completely).

Usage: check_table.py REPO_ROOT
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REFERENCE = re.compile(r"`([^`]+)`((?:\s*\"[^\"]+\")+)")
NAME = re.compile(r"\"([^\"]+)\"")


# A doctest name may be split into adjacent literals ("a " "b"), as long lines are.
CC_TEST_LITERALS = re.compile(r'TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
CC_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def cc_tests(text: str) -> list[str]:
    return ["".join(unescape(part) for part in CC_LITERAL.findall(literals))
            for literals in CC_TEST_LITERALS.findall(text)]

JS_TEST = re.compile(r"""\btest\(\s*(['"])((?:\\.|(?!\1).)*)\1""")


def unescape(literal: str) -> str:
    return re.sub(r"\\(.)", r"\1", literal)


def defines(path: Path, name: str) -> bool:
    text = path.read_text(encoding="utf-8")
    suffix = path.suffix
    if suffix in (".cc", ".c", ".cpp"):
        return name in cc_tests(text)
    if suffix == ".py":
        return re.search(rf"^\s*def {re.escape(name)}\(", text, re.MULTILINE) is not None
    if suffix in (".js", ".mjs"):
        return name in (unescape(m[1]) for m in JS_TEST.findall(text))
    return name in text


def main() -> int:
    root = Path(sys.argv[1]).resolve()
    table = root / "docs" / "faults.md"
    problems: list[str] = []
    named: set[tuple[str, str]] = set()
    rows = 0
    for number, line in enumerate(table.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells and cells[0].lower().startswith("fault"):
            continue  # a header row
        rows += 1
        references = REFERENCE.findall(cells[-1])
        if not references:
            problems.append(f"docs/faults.md:{number}: the row names no test: {cells[0]}")
            continue
        for file, names in references:
            path = root / file
            if not path.is_file():
                problems.append(f"docs/faults.md:{number}: no such test file: {file}")
                continue
            for name in NAME.findall(names):
                named.add((file, name))
                if not defines(path, name):
                    problems.append(f"docs/faults.md:{number}: {file} has no test named \"{name}\"")
    for path in sorted((root / "tests" / "faults").glob("*.cc")):
        file = path.relative_to(root).as_posix()
        for name in cc_tests(path.read_text(encoding="utf-8")):
            if (file, name) not in named:
                problems.append(f"{file}: test \"{name}\" is in no row of docs/faults.md")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"docs/faults.md: {rows} rows, {len(named)} tests named, {len(problems)} problems")
    return 1 if problems or rows == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
