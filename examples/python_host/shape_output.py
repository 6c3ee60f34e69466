#!/usr/bin/env python3
"""Runs a command, shapes its output with plugline, and prints what a model would read.

Usage (from the repository root, after building the library into build/):

    PLUGLINE_LIBRARY=build/lib/libplugline.so PYTHONPATH=bindings/python \\
        python3 examples/python_host/shape_output.py [--home DIR] [--shaper ID] -- COMMAND [ARG...]

    e.g.  ... shape_output.py -- seq 500

The summary goes to stdout; one line of statistics (shaper, tokens saved, where the raw
output is) goes to stderr. The exit status is the command's.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys

import plugline


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="plugline state directory (default: $PLUGLINE_HOME "
                                       "or ~/.plugline)")
    parser.add_argument("--shaper", help="force this shaper id instead of matching")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run")
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no command given")

    try:
        # stdout and stderr interleaved, as an agent's terminal tool sees them; kept as bytes.
        completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as error:
        print(f"shape_output: cannot run {command[0]}: {error}", file=sys.stderr)
        return 127

    try:
        with plugline.Host(home=options.home) as host:
            for problem in host.diagnostics():
                print(f"plugline: {problem}", file=sys.stderr)
            result = host.shape(shlex.join(command), completed.stdout,
                                exit_code=completed.returncode, shaper=options.shaper)
    except plugline.Error as error:
        print(f"shape_output: {error}", file=sys.stderr)
        return 2

    sys.stdout.write(result["summary"])
    if result["summary"] and not result["summary"].endswith("\n"):
        sys.stdout.write("\n")
    print(f"[{result['shaper'] or 'no shaper'}: {result['render_mode']}, "
          f"{result['tokens_raw']} → {result['tokens_summary']} tokens, "
          f"raw output: {result['raw_path'] or 'not stored'}]", file=sys.stderr)
    return completed.returncode


if __name__ == "__main__":
    sys.exit(main())
