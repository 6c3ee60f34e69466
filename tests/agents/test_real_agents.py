"""The real coding agents, installed from npm at pinned versions, with `plugline hook --agent`
as their hook command (OpenCode: plugline's OpenCode plugin, which runs it), driven offline by
a scripted model on 127.0.0.1 (fake_model.py).

What each test proves is read from what the model received: the tool results in the requests
the agent sent to the fake model.

Run by scripts/test-all.sh inside `unshare -n` (as root), so that nothing can leave the
machine; the agents are installed there first (PLUGLINE_AGENTS_DIR). Environment:
  PLUGLINE_BINARY      the plugline to test (default: build/bin/plugline)
  PLUGLINE_AGENTS_DIR  where the agents' npm packages are installed (required)
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PLUGLINE = os.environ.get("PLUGLINE_BINARY", str(REPO / "build" / "bin" / "plugline"))
AGENTS_DIR = Path(os.environ.get("PLUGLINE_AGENTS_DIR", "/nonexistent"))

CLAUDE = AGENTS_DIR / "node_modules/@anthropic-ai/claude-code-linux-x64/claude"
CODEX = AGENTS_DIR / "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
GEMINI = AGENTS_DIR / "node_modules/@google/gemini-cli/bundle/gemini.js"
OPENCODE = AGENTS_DIR / "node_modules/opencode-linux-x64/bin/opencode"
COPILOT = AGENTS_DIR / "node_modules/@github/copilot-linux-x64/copilot"


def test_nothing_can_leave_the_machine():
    """As root the tests run in a network namespace that has only loopback."""
    if os.geteuid() != 0:
        pytest.skip("not root: no network namespace (run by scripts/test-all.sh as root)")
    # /proc/net/dev is this network namespace's (sysfs may still show the machine's).
    lines = Path("/proc/net/dev").read_text().splitlines()[2:]
    interfaces = sorted(line.split(":")[0].strip() for line in lines)
    assert interfaces == ["lo"], interfaces


class Scratch:
    """A scratch HOME, project and PLUGLINE_HOME, and the fake model."""

    def __init__(self, commands):
        self.root = Path(tempfile.mkdtemp(prefix="plugline-agent-"))
        self.home = self.root / "home"
        self.project = self.root / "proj"
        self.plhome = self.root / "plhome"
        for d in (self.home, self.project, self.plhome / "plugins"):
            d.mkdir(parents=True)
        self.log = self.root / "requests.jsonl"
        port_file = self.root / "port"
        args = [sys.executable, str(HERE / "fake_model.py"), "--port-file", str(port_file),
                "--log", str(self.log)]
        for command in commands:
            args += ["--command", command]
        self.fake = subprocess.Popen(args)
        deadline = time.time() + 10
        while not port_file.exists():
            assert time.time() < deadline, "the fake model did not start"
            time.sleep(0.02)
        self.port = int(port_file.read_text())

    def close(self):
        self.fake.send_signal(signal.SIGINT)
        self.fake.wait(timeout=10)
        subprocess.run([PLUGLINE, "server", "stop"], env=self.env(), capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)

    def env(self, extra=None):
        env = {"PATH": os.environ["PATH"], "HOME": str(self.home), "LANG": "C.UTF-8",
               "PLUGLINE_HOME": str(self.plhome), "TMPDIR": str(self.root)}
        env.update(extra or {})
        return env

    def exec_plugin(self, name, hooks, script):
        d = self.plhome / "plugins" / name
        d.mkdir(parents=True)
        (d / "plugin.yaml").write_text(f"name: {name}\ncommand: ./run.sh\nhooks: [{', '.join(hooks)}]\n")
        (d / "run.sh").write_text("#!/bin/sh\n" + script)
        (d / "run.sh").chmod(0o755)

    def js_plugin(self, name, source):
        (self.plhome / "plugins" / f"{name}.js").write_text(source)

    def requests(self):
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]


@pytest.fixture
def scratch_factory():
    made = []

    def make(commands):
        s = Scratch(commands)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


# --- the agents -------------------------------------------------------------------------------

def install(s, agent, extra_env=None, project=False):
    """`plugline install --agent X`, as a user would: the agent's hook settings in s.home (or
    the project's)."""
    run = subprocess.run([PLUGLINE, "install", "--agent", agent] + (["--project"] if project else []),
                         cwd=s.project, env=s.env(extra_env), capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert "added plugline's" in run.stdout, run.stdout


def run_claude(s, prompt="go"):
    assert CLAUDE.exists(), f"Claude Code is not installed in {AGENTS_DIR} (scripts/test-all.sh installs it)"
    # The user's own rule lets Bash run without asking: then plugline may wrap shell commands
    # (a wrapped call is an approved one). install merges its hooks into this file.
    (s.home / ".claude").mkdir(exist_ok=True)
    (s.home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    install(s, "claude-code")
    env = s.env({
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{s.port}", "ANTHROPIC_API_KEY": "sk-ant-test",
        "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})
    return subprocess.run([str(CLAUDE), "-p", prompt, "--allowedTools", "Bash"], cwd=s.project,
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)


def run_codex(s, prompt="go"):
    assert CODEX.exists(), f"Codex CLI is not installed in {AGENTS_DIR} (scripts/test-all.sh installs it)"
    codex_home = s.home / ".codex"
    codex_home.mkdir(exist_ok=True)
    install(s, "codex", {"CODEX_HOME": str(codex_home)})
    (codex_home / "config.toml").write_text(f"""model = "gpt-5.1-codex"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{s.port}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0
[analytics]
enabled = false
""")
    env = s.env({"CODEX_HOME": str(codex_home), "FAKE_API_KEY": "sk-test"})
    # --dangerously-bypass-hook-trust: Codex skips hooks nobody trusted in its /hooks view.
    return subprocess.run([str(CODEX), "exec", "--skip-git-repo-check",
                           "--dangerously-bypass-hook-trust", "--color", "never", prompt],
                          cwd=s.project, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120)


def run_gemini(s, prompt="go"):
    assert GEMINI.exists(), f"Gemini CLI is not installed in {AGENTS_DIR} (scripts/test-all.sh installs it)"
    (s.home / ".gemini").mkdir(exist_ok=True)
    (s.home / ".gemini" / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False}}))
    install(s, "gemini")
    # Gemini CLI can replace a tool's output only as an error: plugline wraps shell commands
    # there when the user asks for it.
    (s.plhome / "config.yaml").write_text("adapters:\n  gemini:\n    shaping: wrap\n")
    env = s.env({"GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{s.port}", "GEMINI_API_KEY": "fake-key"})
    return subprocess.run(["node", str(GEMINI), "-p", prompt, "--yolo", "-m", "gemini-2.5-flash"],
                          cwd=s.project, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120)


def run_opencode(s, prompt="go"):
    assert OPENCODE.exists(), f"OpenCode is not installed in {AGENTS_DIR} (scripts/test-all.sh installs it)"
    xdg = {"XDG_CONFIG_HOME": str(s.home / ".config"), "XDG_DATA_HOME": str(s.home / ".local/share"),
           "XDG_CACHE_HOME": str(s.home / ".cache"), "XDG_STATE_HOME": str(s.home / ".local/state")}
    # plugline's OpenCode plugin, in your own plugin folder (~/.config/opencode/plugins).
    install(s, "opencode", xdg)
    (s.project / "opencode.json").write_text(json.dumps({
        "model": "fake/fake-model", "small_model": "fake/fake-model", "autoupdate": False,
        "share": "disabled", "permission": {"bash": "allow", "edit": "allow", "webfetch": "deny"},
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                              "options": {"baseURL": f"http://127.0.0.1:{s.port}/v1", "apiKey": "sk-test"},
                              "models": {"fake-model": {"name": "Fake", "tool_call": True,
                                                        "limit": {"context": 100000, "output": 4096}}}}}}))
    # Offline, OpenCode's own npm install of @opencode-ai/plugin would retry for 70 s: fail at once.
    env = s.env(dict(xdg, OPENCODE_DISABLE_AUTOUPDATE="1", OPENCODE_DISABLE_MODELS_FETCH="1",
                     OPENCODE_DISABLE_DEFAULT_PLUGINS="1", OPENCODE_DISABLE_LSP_DOWNLOAD="1",
                     OPENCODE_DISABLE_SHARE="1", npm_config_offline="true",
                     npm_config_fetch_retries="0"))
    return subprocess.run([str(OPENCODE), "run", prompt], cwd=s.project, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def run_copilot(s, prompt="go", shaping="wrap"):
    assert COPILOT.exists(), f"Copilot CLI is not installed in {AGENTS_DIR} (scripts/test-all.sh installs it)"
    install(s, "copilot")
    # Copilot CLI hands hooks only a preview of a long output (it saves the whole of it in a file
    # of its own): with its tools allowed (--allow-all-tools), plugline wraps shell commands.
    if shaping:
        (s.plhome / "config.yaml").write_text(f"adapters:\n  copilot:\n    shaping: {shaping}\n")
    # Its own model provider (BYOK, OpenAI chat completions) and offline mode: no GitHub sign-in,
    # nothing sent to GitHub.
    env = s.env({"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{s.port}/v1",
                 "COPILOT_PROVIDER_API_KEY": "sk-test", "COPILOT_MODEL": "gpt-5.4"})
    return subprocess.run([str(COPILOT), "-p", prompt, "--allow-all-tools", "--allow-all-paths"], cwd=s.project, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


RUN = {"claude-code": run_claude, "codex": run_codex, "gemini": run_gemini, "opencode": run_opencode,
       "copilot": run_copilot}


def tool_results(agent, requests):
    """Every tool result the model received, as (text, is_error), in order, once each."""
    seen = []
    for request in requests:
        body = request["body"]
        found = []
        if agent == "claude-code":
            for message in body.get("messages", []):
                content = message.get("content")
                for block in content if isinstance(content, list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        text = block.get("content")
                        if isinstance(text, list):
                            text = "".join(part.get("text", "") for part in text)
                        found.append((text, bool(block.get("is_error"))))
        elif agent in ("opencode", "copilot"):
            for message in body.get("messages", []):
                if isinstance(message, dict) and message.get("role") == "tool":
                    text = message.get("content")
                    if isinstance(text, list):
                        text = "".join(part.get("text", "") for part in text if isinstance(part, dict))
                    found.append((text, False))
        elif agent == "gemini":
            for content in body.get("contents", []):
                for part in content.get("parts", []) if isinstance(content, dict) else []:
                    response = part.get("functionResponse") if isinstance(part, dict) else None
                    if isinstance(response, dict):
                        answer = response.get("response", {})
                        if "error" in answer:
                            found.append((answer["error"], True))
                        else:
                            found.append((answer.get("output"), False))
        else:
            for item in body.get("input", []) if isinstance(body.get("input"), list) else []:
                if isinstance(item, dict) and item.get("type") == "function_call_output":
                    found.append((item.get("output"), False))
        if len(found) > len(seen):
            seen = found
    return seen


def everything_the_model_read(requests):
    return "\n".join(json.dumps(r["body"]) for r in requests)


AGENTS = ["claude-code", "codex", "gemini", "opencode", "copilot"]

GUARD = """case "$(cat)" in
  *'rm -rf'*) echo '{"deny":true,"reason":"no rm -rf here, use trash"}' ;;
  *) echo '{}' ;;
esac
"""


@pytest.mark.parametrize("agent", AGENTS)
def test_a_guard_plugin_denies_rm_rf_and_the_model_gets_the_reason(agent, scratch_factory):
    s = scratch_factory(["rm -rf build"])
    s.exec_plugin("no-rm", ["pre_tool_call"], GUARD)
    (s.project / "build").mkdir()
    (s.project / "build" / "keep.txt").write_text("still here")
    run = RUN[agent](s)
    assert run.returncode == 0, run.stderr
    results = tool_results(agent, s.requests())
    assert len(results) == 1, s.requests()
    assert "no rm -rf here, use trash" in results[0][0]
    assert (s.project / "build" / "keep.txt").read_text() == "still here"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_rewrite_plugin_rewrite_is_what_runs(agent, scratch_factory):
    s = scratch_factory(["echo ORIGINAL"])
    # An OpenCode plugin, unchanged: it sees the shell tool as `bash`.
    s.js_plugin("rewrite", """export default async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "bash" && output.args.command === "echo ORIGINAL") output.args.command = "echo REWRITTEN";
  },
});
""")
    run = RUN[agent](s)
    assert run.returncode == 0, run.stderr
    results = tool_results(agent, s.requests())
    assert len(results) == 1, s.requests()
    assert "REWRITTEN" in results[0][0]
    assert "ORIGINAL" not in results[0][0]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_redaction_plugin_result_is_what_the_model_sees(agent, scratch_factory):
    s = scratch_factory(["echo ticket=SECRET-TOKEN-123"])
    s.exec_plugin("redact", ["post_tool_call"], """python3 -c '
import json, sys
p = json.load(sys.stdin)
r = p.get("result") or ""
print(json.dumps({"result": r.replace("SECRET-TOKEN-123", "[redacted]")} if "SECRET-TOKEN-123" in r else {}))
'
""")
    run = RUN[agent](s)
    assert run.returncode == 0, run.stderr
    results = tool_results(agent, s.requests())
    assert len(results) == 1, s.requests()
    assert "ticket=[redacted]" in results[0][0]
    # The output never reached the model (only the command it asked for holds the token).
    assert all("SECRET-TOKEN-123" not in text for text, _ in tool_results(agent, s.requests()))


PYTEST_PROJECT = {
    "test_prices.py": """import pytest

@pytest.mark.parametrize("n", range(300))
def test_price_is_positive(n):
    assert n + 1 > 0

def test_discount_is_capped():
    assert min(0.5, 0.7) == 0.7

@pytest.mark.parametrize("tier,want", [(10, 5), (50, 10)])
def test_tier_discount(tier, want):
    assert tier // 10 == want
""",
}


def write_pytest_project(s, failing=True):
    for name, text in PYTEST_PROJECT.items():
        if not failing:
            text = text.replace("== 0.7", "== 0.5").replace("== want", "== tier // 10")
        (s.project / name).write_text(text)


PYTEST = "/usr/bin/python3 -m pytest -v -p no:cacheprovider"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_failing_pytest_run_reaches_the_model_as_plugline_summary(agent, scratch_factory):
    # plugline wraps the command (`plugline run --`): Claude Code sends a failing command to
    # PostToolUseFailure, whose output no hook can replace, and Codex hands hooks a long
    # output already cut in the middle.
    s = scratch_factory([PYTEST])
    write_pytest_project(s)
    run = RUN[agent](s)
    assert run.returncode == 0, run.stderr
    results = tool_results(agent, s.requests())
    assert len(results) == 1, s.requests()
    text = results[0][0]
    # plugline's summary, outcome first: every failing test, with its parameters and where it
    # failed; the passing ones collapsed; the raw output's path. (Claude Code puts its own
    # "Exit code 1" line first, Codex its chunk header.)
    assert "pytest: FAILED — 3 failed, 300 passed" in text[:400], text[:500]
    assert results[0][1] == (agent == "claude-code")  # Claude Code marks a failed call an error
    for kept in ["test_discount_is_capped", "test_tier_discount[10-5]", "test_tier_discount[50-10]",
                 "test_prices.py:8", "test_prices.py:12", "assert (50 // 10) == 10"]:
        assert kept in text, (kept, text)
    assert "test_price_is_positive[150] PASSED" not in text
    assert str(s.plhome / "outputs") in text
    assert len(text) < 4000


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_failing_run_after_cd_reaches_the_model_as_plugline_summary(agent, scratch_factory):
    # `cd sub && pytest`: the cd stays in the agent's shell, the rest is wrapped (before, a
    # command with a cd was not wrapped at all, and Claude Code's model read the raw failure).
    s = scratch_factory([f"cd sub && {PYTEST}"])
    (s.project / "sub").mkdir()
    for name, text in PYTEST_PROJECT.items():
        (s.project / "sub" / name).write_text(text)
    run = RUN[agent](s)
    assert run.returncode == 0, run.stderr
    results = tool_results(agent, s.requests())
    assert len(results) == 1, s.requests()
    text = results[0][0]
    assert "pytest: FAILED — 3 failed, 300 passed" in text[:400], text[:500]
    assert "test_tier_discount[50-10]" in text
    assert "test_price_is_positive[150] PASSED" not in text
    assert str(s.plhome / "outputs") in text
    # plugline ran it (wrapped), in sub: the whole output is on disk, not the agent's cut of it.
    texts = [p.read_text() for p in (s.plhome / "outputs").glob("*.log")]
    assert len(texts) == 1
    assert "test_price_is_positive[150] PASSED" in texts[0]
    assert "truncated output" not in texts[0]


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_script_of_two_commands_reaches_the_model_as_each_one_shaped(agent, scratch_factory):
    # A check script with `set -x`: the compiler's error and the test run's failures, each
    # summarized by its own shaper under the command the script echoed.
    s = scratch_factory(["bash ./ci.sh"])
    (s.project / "ci.sh").write_text(
        f"set -x\ngcc -Wall -c util.c -o /dev/null\n{PYTEST}\n")
    (s.project / "util.c").write_text("int scale(int n) {\n  return n * factor;\n}\n")
    write_pytest_project(s)
    run = RUN[agent](s)
    assert run.returncode == 0, run.stderr
    results = tool_results(agent, s.requests())
    assert len(results) == 1, s.requests()
    text = results[0][0]
    assert "bash: FAILED (exit 1) — 2 commands, each shaped below" in text[:400], text[:500]
    assert "+ gcc -Wall -c util.c -o /dev/null" in text
    assert "util.c:2:14: error:" in text and "factor" in text, text
    assert "pytest: FAILED — 3 failed, 300 passed" in text, text
    assert "test_tier_discount[50-10]" in text
    assert "test_price_is_positive[150] PASSED" not in text
    assert len(text) < 4000


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_test_run_read_through_tail_reaches_the_model_with_its_failures(agent, scratch_factory):
    # `pytest -v 2>&1 | tail -20`: the output begins inside the failures, their title and the
    # first failure's heading cut off; the failures left in it reach the model with where they
    # failed (before, the model read the short summary's list and the `E` lines alone). The
    # summary is no shorter than these 20 lines, so the model reads them as they are, after the
    # line that says the run failed: the status the agent's shell reports is tail's 0.
    s = scratch_factory([f"{PYTEST} 2>&1 | tail -20"])
    write_pytest_project(s)
    run = RUN[agent](s)
    assert run.returncode == 0, run.stderr
    results = tool_results(agent, s.requests())
    assert len(results) == 1, s.requests()
    text = results[0][0]
    assert "3 failed, 300 passed" in text, text
    assert "test_prices.py:12: AssertionError" in text, text
    assert "E       assert (10 // 10) == 5" in text and "E       assert (50 // 10) == 10" in text
    assert "pytest: FAILED — 3 failed, 300 passed" in text, text
    assert text.index("pytest: FAILED") < text.index("E       assert"), text


@pytest.mark.parametrize("agent", AGENTS)
def test_a_long_passing_run_reaches_the_model_as_plugline_summary(agent, scratch_factory):
    s = scratch_factory([PYTEST])
    write_pytest_project(s, failing=False)
    run = RUN[agent](s)
    assert run.returncode == 0, run.stderr
    results = tool_results(agent, s.requests())
    assert len(results) == 1, s.requests()
    text, is_error = results[0]
    assert not is_error
    assert "303 passed" in text, text[:500]
    assert "test_price_is_positive[150] PASSED" not in text
    assert str(s.plhome / "outputs") in text
    assert len(text) < 2000
    # plugline ran the command (wrapped): the raw output on disk is the whole of it, for Codex
    # too, which hands hooks a long output already cut in the middle.
    texts = [p.read_text() for p in (s.plhome / "outputs").glob("*.log")]
    assert len(texts) == 1
    assert "test_price_is_positive[150] PASSED" in texts[0]
    assert "truncated output" not in texts[0]


@pytest.mark.parametrize("agent", AGENTS)
def test_session_and_prompt_events_reach_plugins(agent, scratch_factory):
    s = scratch_factory(["echo hi"])
    events = s.root / "events.txt"
    s.exec_plugin("recorder", ["session_start", "user_prompt", "turn_end", "pre_tool_call"],
                  f"""python3 -c '
import json, sys
p = json.load(sys.stdin)
with open("{events}", "a") as f:
    f.write(p["event"] + " " + p.get("agent_event", "") + " " + (p.get("prompt") or "") + "\\n")
print("{{}}")
'
""")
    run = RUN[agent](s, prompt="go and say hi")
    assert run.returncode == 0, run.stderr
    lines = events.read_text().splitlines()
    kinds = [line.split(" ")[0] for line in lines]
    assert "session_start" in kinds, lines
    assert "user_prompt" in kinds, lines
    assert "pre_tool_call" in kinds, lines
    assert "turn_end" in kinds, lines
    assert any(line.startswith("user_prompt") and "go and say hi" in line for line in lines), lines



def test_copilot_a_long_output_it_handed_over_as_a_preview_is_left_as_it_gave_it(scratch_factory):
    """Copilot CLI gives hooks only the first 500 characters of a long output, with the file it
    saved the whole of it in: replacing that with a summary of the preview would lose the file,
    so plugline leaves it as it is (wrapping, above, shapes the whole output)."""
    s = scratch_factory(["seq 1 20000"])
    run = run_copilot(s, shaping=None)  # Copilot's default: replace, no wrapping
    assert run.returncode == 0, run.stderr
    results = tool_results("copilot", s.requests())
    assert len(results) == 1, s.requests()
    text = results[0][0]
    assert text.startswith("Output too large to read at once"), text[:300]
    assert "Saved to: " in text
    assert "omitted" not in text
