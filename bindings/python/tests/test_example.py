"""The Python examples: examples/python_host/shape_output.py runs a command and prints
plugline's summary; examples/python_host/agent_loop.py prints the agent-loop transcript every
language's example must print."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "python_host" / "shape_output.py"
AGENT_LOOP = REPO_ROOT / "examples" / "python_host" / "agent_loop.py"


def run_example(home: Path, *command: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=str(REPO_ROOT / "bindings" / "python"))
    return subprocess.run([sys.executable, str(EXAMPLE), "--home", str(home), "--", *command],
                          env=environment, capture_output=True, text=True, timeout=60)


def test_long_output_is_summarized(home: Path, tmp_path: Path) -> None:
    # A script's output (a one-liner's, `python3 -c`, is the data it was run for: shown whole).
    script = tmp_path / "rows.py"
    script.write_text("for i in range(500): print('row', i)\n")
    result = run_example(home, sys.executable, str(script))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "python: exit 0, 500 lines"
    assert lines[1] == "row 0"
    assert any("498 lines like the ones around, but for their numbers, omitted" in line for line in lines)
    assert lines[-1].startswith(f"full output: {home / 'outputs'}")
    raw_path = Path(lines[-1].removeprefix("full output: "))
    expected = "".join(f"row {i}\n" for i in range(500)).encode()
    assert raw_path.read_bytes() == expected
    assert "builtin-generic: summary" in result.stderr


def test_exit_status_is_the_commands(home: Path) -> None:
    result = run_example(home, sys.executable, "-c", "print('short'); raise SystemExit(3)")
    assert result.returncode == 3
    # Shown as it is, after the line that states the outcome.
    assert result.stdout == "python: FAILED (exit 3)\nshort\n"


def test_agent_loop_prints_the_expected_transcript() -> None:
    environment = dict(os.environ, PYTHONPATH=str(REPO_ROOT / "bindings" / "python"))
    result = subprocess.run(
        ["bash", str(REPO_ROOT / "tests" / "examples" / "run_agent_loop.sh"), sys.executable,
         str(AGENT_LOOP)], env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "transcript as expected" in result.stdout
