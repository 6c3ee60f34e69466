#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target from the repository's real material.

    make_seeds.py <source-dir> <out-dir>

<out-dir>/<target>/ gets one file per seed (named by content hash, so reruns are stable):
  exec_manifest  every plugin.yaml in tests/ and examples/, YAML blocks of docs/ with `command:`
  config         YAML blocks of docs/ with `plugins:`/`outputs:`/`stats:`, and the config
                 texts of tests/core/config_test.cc
  hook_payload   each canonical event with payloads from docs/ and the dispatcher tests
  hook_answer    JSON objects of docs/ and tests/core/dispatcher_test.cc with answer fields
  shaper         every fixture of tests/fixtures/ (output, command, exit code, its family's
                 shaper), each also offered to every other shaper
  terminal       every fixture's output
  pipeline       every fixture's first 16 KiB (exit code, a budget, command), also with each
                 line prefixed as a CI log prints it, and two fixtures as a script echoing
                 their commands (set -x) prints them
  tokens         every fixture's first 16 KiB, with an encoding and a budget byte
  output_window  every fixture's first 4 KiB, repeated past the smallest window
  node_resolve   package.json files of the repository (node_modules included where npm put
                 them) and the package.json texts of tests/core/node_resolve_test.cc, each with
                 a few specifiers
  capi           dispatch, shape and trigger calls built from the above
  server_frames  the hook payloads above as frames, several to a stream, cut at a few sizes
Outputs longer than MAX_BYTES are cut: the fuzzers mutate small inputs faster, and a shaper's
rules show on the first 64 KiB as on the whole. The corpus is generated, never committed.
"""
import hashlib
import json
import os
import re
import sys

MAX_BYTES = 64 * 1024

# builtin::MakeBuiltinShapers() order; the shaper target's first byte picks one.
SHAPERS = ["test", "typescript", "eslint", "build", "git-diff", "search", "logs", "generic"]
EVENTS = ["session_start", "session_end", "turn_end", "user_prompt", "pre_tool_call",
          "post_tool_call", "tool_definition", "shell_env", "pre_compact", "custom_event"]
SKIP_DIRS = {".git", "build", "build-nov8", "build-san", "build-tsan"}


def walk(root, top):
    for base, dirs, files in os.walk(os.path.join(root, top)):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            yield os.path.join(base, name)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def fenced_blocks(text, lang):
    return re.findall(r"```" + lang + r"\n(.*?)```", text, re.S)


def raw_strings(text):
    """The contents of the C++ raw string literals R"(...)" of a test file."""
    return re.findall(r'R"\((.*?)\)"', text, re.S)


class Corpus:
    def __init__(self, out):
        self.out = out
        self.counts = {}

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode()
        data = data[:MAX_BYTES]
        folder = os.path.join(self.out, target)
        os.makedirs(folder, exist_ok=True)
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        self.counts[target] = self.counts.get(target, 0) + 1


def json_objects(texts):
    for text in texts:
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def main():
    src, out = sys.argv[1], sys.argv[2]
    corpus = Corpus(out)
    docs = {p: read(p).decode("utf-8", "replace")
            for p in walk(src, "docs") if p.endswith(".md")}
    docs["README.md"] = read(os.path.join(src, "README.md")).decode("utf-8", "replace")

    # --- exec_manifest ------------------------------------------------------------------
    for top in ("tests", "examples"):
        for path in walk(src, top):
            if os.path.basename(path) == "plugin.yaml":
                corpus.add("exec_manifest", read(path))
    for text in docs.values():
        for block in fenced_blocks(text, "yaml"):
            if re.search(r"^command:", block, re.M):
                corpus.add("exec_manifest", block)

    # --- config -------------------------------------------------------------------------
    for text in docs.values():
        for block in fenced_blocks(text, "yaml"):
            if re.search(r"^(plugins|outputs|stats):", block, re.M):
                corpus.add("config", block)
    config_test = read(os.path.join(src, "tests/core/config_test.cc")).decode()
    for block in raw_strings(config_test):
        corpus.add("config", block)
    for literal in re.findall(r'"((?:plugins|outputs|stats):(?:[^"\\]|\\.)*)"', config_test):
        corpus.add("config", literal.encode().decode("unicode_escape"))

    # --- hook_payload / hook_answer -----------------------------------------------------
    texts = []
    for text in docs.values():
        texts += fenced_blocks(text, "json")
    dispatcher_test = read(os.path.join(src, "tests/core/dispatcher_test.cc")).decode()
    texts += raw_strings(dispatcher_test)
    payloads, answers = [], []
    for value in json_objects(texts):
        if {"deny", "reason", "notice", "result", "arguments"} & set(value) and "event" not in value:
            answers.append(value)
        else:
            payloads.append(value)
    payloads.append({"session_id": "ses_1", "platform": "cli", "tool": "terminal",
                     "arguments": json.dumps({"command": "rm -rf build"})})
    payloads.append({"tool": "terminal", "arguments": "{}", "result": "ok\n"})
    answers += [{}, {"deny": True, "reason": "no"}, {"arguments": json.dumps({"command": "ls"})},
                {"result": "shortened", "notice": "n"}, {"deny": False, "reason": "",
                                                          "arguments": "", "result": "",
                                                          "notice": ""}]
    for event in EVENTS:
        for payload in payloads:
            corpus.add("hook_payload", event + "\n" + json.dumps(payload))
    for answer in answers:
        corpus.add("hook_answer", json.dumps(answer))

    # --- shaper / terminal ----------------------------------------------------------------
    fixtures = []
    for path in walk(src, "tests/fixtures"):
        if not path.endswith(".out"):
            continue
        meta_path = path[:-4] + ".json"
        if not os.path.exists(meta_path):
            continue
        meta = json.loads(read(meta_path))
        output = read(path)
        exit_code = meta.get("exit_code")
        exit_byte = 255 if not isinstance(exit_code, int) or not 0 <= exit_code < 255 else exit_code
        fixtures.append((meta.get("family", "generic"), meta.get("command", ""), exit_byte, output))
        corpus.add("terminal", output)
        corpus.add("tokens", bytes([len(fixtures) % 2, len(fixtures) % 64]) + output[:16384])
        # Repeated 8 * 16 + 1 times: a 4 KiB pattern is 516 KiB, past the 64 KiB window.
        corpus.add("output_window", bytes([8, len(fixtures) % 256]) + output[:4096])
    for n, (family, command, exit_byte, output) in enumerate(fixtures):
        head = output[:16384]
        corpus.add("pipeline", bytes([exit_byte, n % 256]) + command.encode() + b"\n" + head)
        ci_log = b"".join(b"build\tRun tests\t2026-12-06T01:18:38.1234567Z " + line
                          for line in head.splitlines(keepends=True))
        corpus.add("pipeline", bytes([exit_byte, 0]) + b"gh run view 1 --log\n" + ci_log[:16384])
        other = fixtures[(n * 7 + 3) % len(fixtures)]
        script = (b"+ " + command.encode() + b"\n" + output[:8000] + b"\n+ " + other[1].encode() +
                  b"\n" + other[3][:8000])
        corpus.add("pipeline", bytes([other[2], 250]) + b"./ci.sh\n" + script)
    for family, command, exit_byte, output in fixtures:
        own = SHAPERS.index(family) if family in SHAPERS else SHAPERS.index("generic")
        for index in range(len(SHAPERS)):
            # Every shaper gets each fixture, its own family's in full and the others' cut short.
            data = bytes([index, exit_byte]) + command.encode() + b"\n" + output
            corpus.add("shaper", data if index == own else data[:4096])

    # --- node_resolve ---------------------------------------------------------------------
    packages = []
    for path in walk(src, "."):
        if os.path.basename(path) == "package.json" and "/build" not in path:
            packages.append(read(path))
    node_resolve_test = read(os.path.join(src, "tests/core/node_resolve_test.cc")).decode()
    for block in raw_strings(node_resolve_test):
        try:
            if isinstance(json.loads(block), dict):
                packages.append(block.encode())
        except ValueError:
            pass
    packages += [
        b'{"name":"pkg","exports":{".":{"import":"./lib/b.mjs","default":"./index.js"},'
        b'"./feature/*":"./lib/*.js","./data":null},"imports":{"#a":"./lib/a.js",'
        b'"#dep":"other","#star/*":"./lib/*"}}',
        b'{"name":"pkg","type":"module","main":"./index.js","module":"./lib/b.mjs"}',
        b'{"name":"pkg","exports":["./lib/d.ts","./index.js"]}',
    ]
    specifiers = [b"pkg", b"pkg/lib/a.js", b"pkg/feature/a", b"#a", b"#dep", b"#star/b.mjs",
                  b"other", b"other/o", b"pkg/data"]
    for package in packages:
        for specifier in specifiers:
            corpus.add("node_resolve", specifier + b"\n" + package)

    # --- capi -------------------------------------------------------------------------------
    for event in EVENTS:
        for answer in answers[:6]:
            corpus.add("capi", b"\x00" + event.encode() + b"\n" + json.dumps(answer).encode() +
                       b"\n" + json.dumps(payloads[-2]).encode())
    for family, command, exit_byte, output in fixtures[::4]:
        corpus.add("capi", b"\x01" + bytes([exit_byte]) + b"\n" + command.encode() + b"\n" +
                   output[:8192])
        corpus.add("capi", b"\x01" + bytes([exit_byte]) + b"builtin-" + family.encode() + b"\n" +
                   command.encode() + b"\n" + output[:8192])
    for name in ("tool.execute.before", "shell.env", "chat.params", "event"):
        corpus.add("capi", b"\x02" + name.encode() + b'\n{"tool":"bash"}\n{"args":{}}')
    corpus.add("capi", b'\x03bash\n{"sessionID":"s"}\n{"command":"ls"}')
    corpus.add("capi", b"\x04bash,read,edit")

    # --- server_frames --------------------------------------------------------------------
    def frame(body):
        return len(body).to_bytes(4, "big") + body
    bodies = [json.dumps(p).encode() for p in payloads[:40]]
    for i in range(0, len(bodies), 4):
        stream = b"".join(frame(b) for b in bodies[i:i + 4])
        for chunk in (0, 3, 64, 255):
            corpus.add("server_frames", bytes([chunk]) + stream)
    corpus.add("server_frames", b"\x07" + frame(b"{}") + b"\xff\xff\xff\xff")

    for target in sorted(corpus.counts):
        count = len(os.listdir(os.path.join(out, target)))
        print(f"seeds: {target}: {count} inputs")


if __name__ == "__main__":
    main()
