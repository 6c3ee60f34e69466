#!/usr/bin/env python3
"""agent_loop: an agent's tool loop with plugline between the model and the shell.

A real agent gets its tool calls from a model; this one replays four scripted calls, so that
what plugline does at each step is plain to see:

    session_start          plugins see the session begin
    rm -rf build/          a native hook denies it
    python -c '...'        a native hook rewrites it to python3, then it runs
    printf '...sk-...'     it runs; a plugin redacts the key in post_tool_call
    seq 1 3000             it runs; the model reads a shaped summary, not 3,000 lines
    session_end

Usage (from the repository root, after building into build/):

    mkdir -p /tmp/agent-home/plugins
    cp -r examples/plugins/redact-secrets /tmp/agent-home/plugins/
    PLUGLINE_LIBRARY=build/lib/libplugline.so PYTHONPATH=bindings/python \\
        python3 examples/python_host/agent_loop.py /tmp/agent-home

The transcript goes to stdout; tests/examples/agent_loop.expected is what every language's
agent loop prints.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Optional

import plugline

# What the model asks for, one tool call per turn.
TOOL_CALLS = [
    "rm -rf build/",
    "python -c 'print(6 * 7)'",
    "printf 'OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl\\n'",
    "seq 1 3000",
]

SESSION = "ses_example"


# [native-hooks]
def guard(event: str, payload: dict[str, Any]) -> Optional[dict[str, Any]]:
    """Denies destructive commands before they run."""
    command = json.loads(payload["arguments"])["command"]
    if "rm -rf" in command:
        return {"deny": True, "reason": "rm -rf is not allowed in this workspace"}
    return None  # no opinion


def python3(event: str, payload: dict[str, Any]) -> Optional[dict[str, Any]]:
    """Rewrites `python ...` to `python3 ...` (this machine has no `python`)."""
    command = json.loads(payload["arguments"])["command"]
    if command.startswith("python "):
        return {"arguments": json.dumps({"command": "python3 " + command[len("python "):]})}
    return None
# [native-hooks]


def run_tool(host: plugline.Host, command: str) -> str:
    """One tool call: returns what the model reads."""
    print(f"model wants: {command}")
    # [pre-tool-call]
    decision = host.dispatch("pre_tool_call", {
        "session_id": SESSION,
        "tool": "bash",
        "arguments": json.dumps({"command": command}),
    })
    if decision["denied"]:
        print(f"  denied by {decision['denied_by']}: {decision['reason']}")
        return f"blocked: {decision['reason']}"
    command = json.loads(decision["arguments"] or "{}")["command"]  # possibly rewritten
    # [pre-tool-call]
    for step in decision["plugins"]:
        if step["action"] == "rewrite":
            print(f"  rewritten by {step['plugin']}: {command}")

    # stdout and stderr interleaved, as an agent's terminal tool sees them.
    ran = subprocess.run(["/bin/sh", "-c", command], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    output = ran.stdout.decode("utf-8", "replace")
    print(f"  ran: exit {ran.returncode}, {len(output.splitlines())} lines")

    # [post-tool-call]
    # post_tool_call first, so that a plugin's redaction reaches the summary and the stored
    # raw output alike; then shape what the plugins left.
    after = host.dispatch("post_tool_call", {
        "session_id": SESSION,
        "tool": "bash",
        "arguments": json.dumps({"command": command}),
        "result": output,
    })
    result = after["result"] if after["result"] is not None else output
    shaped = host.shape(command, result, exit_code=ran.returncode)
    # [post-tool-call]
    for step in after["plugins"]:
        if step["action"] == "replace":
            print(f"  redacted by {step['plugin']}")
    print(f"  model reads ({shaped['shaper']}, {shaped['render_mode']}, "
          f"{shaped['tokens_raw']} -> {shaped['tokens_summary']} tokens):")
    for line in shaped["summary"].splitlines():
        print(f"    {line}")
    return shaped["summary"]


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: agent_loop.py HOME", file=sys.stderr)
        return 2
    # [host]
    with plugline.Host(home=sys.argv[1]) as host:
        for problem in host.diagnostics():
            print(f"plugline: {problem}", file=sys.stderr)
        host.add_hook("guard", ["pre_tool_call"], guard, fail_closed=True)
        host.add_hook("python3", ["pre_tool_call"], python3)
        # [host]
        started = host.dispatch("session_start", {"session_id": SESSION})
        print(f"session_start: {len(started['plugins'])} hooks ran")
        for command in TOOL_CALLS:
            run_tool(host, command)
        ended = host.dispatch("session_end", {"session_id": SESSION})
        print(f"session_end: {len(ended['plugins'])} hooks ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
