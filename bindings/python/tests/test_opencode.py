"""OpenCode plugins through the Python binding: real JS files in a temporary home, run by
plugline's V8 — hooks by name, custom tools, ``client`` answered by Python, ``$`` commands,
and canonical events mapped onto OpenCode hooks."""

from __future__ import annotations

import gc
import json
import os
import threading
import weakref
from pathlib import Path
from typing import Any, Iterator

import pytest

import plugline

# Two plugins that mutate chat.params' output in turn (files load in name order).
PREFIX = """export default async () => ({
  "chat.params": async (input, output) => {
    output.order.push("a");
    output.temperature = input.temperature ?? 0.1;
  },
});
"""
SUFFIX = """export default {
  id: "suffix",
  server: async () => ({
    "chat.params": async (input, output) => { output.order.push("b"); output.topP = 0.5; },
  }),
};
"""
THROWS = """export default async () => ({
  "chat.params": async () => { throw new Error("params broke"); },
});
"""
TOOLS = """import { tool } from "@opencode-ai/plugin";
export default async () => ({
  tool: {
    add: tool({
      description: "Add two numbers",
      args: { a: tool.schema.number().describe("first"), b: tool.schema.number().default(1) },
      async execute(args, context) { return `${args.a + args.b} in ${context.directory}`; },
    }),
    read: tool({
      description: "Reads, better",
      args: { path: tool.schema.string() },
      async execute(args) { throw new Error(`cannot read ${args.path}`); },
    }),
  },
});
"""
CLIENT = """export default async ({ client }) => ({
  "experimental.text.complete": async (input, output) => {
    output.answer = await client.app.log({ body: { service: "p", level: "info", message: "hi" } });
    try { await client.session.abort(); } catch (e) { output.failure = e.message; }
  },
});
"""
SHELL = """export default async ({ $ }) => ({
  "experimental.text.complete": async (input, output) => {
    output.echoed = await $`printf %s ${input.x}`.text();
  },
});
"""
NO_ENV = """export const EnvProtection = async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "read" && output.args.filePath.includes(".env")) {
      throw new Error("Do not read .env files");
    }
  },
});
"""
CONTEXT = """let seen = null;
export default async ({ serverUrl }) => ({
  config: async (config) => { seen = config; },
  "experimental.text.complete": async (input, output) => {
    output.serverUrl = serverUrl ?? null;
    output.config = seen;
  },
});
"""
# An answer the pwned file would prove wrong: the value must reach printf as one argument.
HOSTILE = '$(touch {pwned}); `touch {pwned}` ; rm -rf / "q"'


def write_plugins(home: Path, **plugins: str) -> None:
    """Writes <home>/plugins/<name>.js for each name=source (underscores become dashes)."""
    directory = home / "plugins"
    directory.mkdir(parents=True, exist_ok=True)
    for name, source in plugins.items():
        (directory / f"{name.replace('_', '-')}.js").write_text(source)


def require_v8(host: plugline.Host) -> None:
    """Skips the test when the library was built without V8 (every JS plugin is then broken
    with that reason); otherwise checks that every OpenCode plugin loaded."""
    plugins = [p for p in host.plugins() if p["path"] and p["path"].endswith(".js")]
    assert plugins, "the test wrote no plugin"
    for plugin in plugins:
        if "without V8" in (plugin["reason"] or ""):
            pytest.skip("plugline was built with PLUGLINE_WITH_V8=OFF: no OpenCode plugins")
    for plugin in plugins:
        assert plugin["kind"] == "opencode", plugin
        assert plugin["state"] == "enabled", plugin


@pytest.fixture
def opened(home: Path) -> Iterator[Any]:
    """A function that opens a Host on `home`, checks V8, and closes it after the test."""
    hosts: list[plugline.Host] = []

    def open_host(**options: Any) -> plugline.Host:
        host = plugline.Host(home=home, **options)
        hosts.append(host)
        require_v8(host)
        return host

    yield open_host
    for host in hosts:
        host.close()


def test_trigger_mutates_output_across_plugins_in_order(home: Path, opened: Any) -> None:
    write_plugins(home, a_prefix=PREFIX, b_suffix=SUFFIX)
    host = opened()
    result = host.trigger("chat.params", {"temperature": 0.7},
                          {"order": ["host"], "temperature": 1, "topP": 1})
    assert result["name"] == "chat.params"
    assert result["output"] == {"order": ["host", "a", "b"], "temperature": 0.7, "topP": 0.5}
    assert result["errors"] == []
    assert [p["plugin"] for p in result["plugins"]] == ["a-prefix", "b-suffix"]
    assert all(p["ms"] >= 0 for p in result["plugins"])
    # JSON text is taken as it is, and a hook nobody has leaves the output alone.
    assert host.trigger("chat.params", "{}", '{"order": []}')["output"]["order"] == ["a", "b"]
    assert host.trigger("chat.headers", {}, {"headers": {"x": "1"}})["output"] == {
        "headers": {"x": "1"}}


def test_throwing_hook_lands_in_errors_and_the_others_run(home: Path, opened: Any) -> None:
    write_plugins(home, a_prefix=PREFIX, b_throws=THROWS, c_suffix=SUFFIX)
    host = opened()
    result = host.trigger("chat.params", {}, {"order": []})
    assert result["output"]["order"] == ["a", "b"]
    assert len(result["errors"]) == 1
    assert result["errors"][0]["plugin"] == "b-throws"
    assert "params broke" in result["errors"][0]["message"]


def test_trigger_refuses_what_is_not_a_json_object(home: Path, opened: Any) -> None:
    write_plugins(home, a_prefix=PREFIX)
    host = opened()
    with pytest.raises(plugline.InvalidArgumentError):
        host.trigger("chat.params", "[]", {})
    with pytest.raises(plugline.InvalidArgumentError):
        host.trigger("", {}, {})
    with pytest.raises(TypeError):
        host.trigger("chat.params", {}, 42)  # type: ignore[arg-type]


def test_tools_are_listed_with_json_schema_and_overrides(home: Path, opened: Any) -> None:
    write_plugins(home, math=TOOLS)
    host = opened()
    tools = {t["name"]: t for t in host.tools(["read", "bash"])["tools"]}
    assert sorted(tools) == ["add", "read"]
    add = tools["add"]
    assert add["description"] == "Add two numbers"
    assert add["plugin"] == "math"
    assert add["overrides_builtin"] is False
    assert add["parameters"]["type"] == "object"
    assert add["parameters"]["properties"]["a"] == {"type": "number", "description": "first"}
    assert tools["read"]["overrides_builtin"] is True
    # Without the host's tool names nothing overrides anything.
    assert not any(t["overrides_builtin"] for t in host.tools()["tools"])
    with pytest.raises(ValueError):
        host.tools(["read,bash"])
    with pytest.raises(TypeError):
        host.tools("read")  # type: ignore[arg-type]


def test_execute_tool_ok_bad_arguments_and_throwing(home: Path, opened: Any) -> None:
    write_plugins(home, math=TOOLS)
    host = opened()
    added = host.execute_tool("add", {"a": 2}, {"directory": "/w", "sessionID": "s"})
    assert added["ok"] is True
    assert added["output"] == "3 in /w"
    assert added["plugin"] == "math"
    bad = host.execute_tool("add", {"a": "two"})
    assert bad["ok"] is False
    assert "invalid arguments for add" in bad["error"]
    thrown = host.execute_tool("read", '{"path": "x"}')
    assert thrown["ok"] is False
    assert thrown["error"] == "cannot read x"
    with pytest.raises(plugline.NotFoundError):
        host.execute_tool("nope", {})
    with pytest.raises(plugline.InvalidArgumentError):
        host.execute_tool("add", "[1]")


def test_client_round_trip_and_a_raising_client(home: Path, opened: Any) -> None:
    calls: list[tuple[str, list[Any], int]] = []

    def client(path: str, args: list[Any]) -> Any:
        calls.append((path, args, threading.get_ident()))
        if path == "session.abort":
            raise RuntimeError("the server is down")
        return {"data": {"ok": True, "echo": args[0]["body"]["message"]}}

    write_plugins(home, client=CLIENT)
    host = opened(client=client)
    output = host.trigger("experimental.text.complete", {}, {})["output"]
    assert output["answer"] == {"data": {"ok": True, "echo": "hi"}}
    assert output["failure"] == "client.session.abort() failed: RuntimeError: the server is down"
    assert [(path, args) for path, args, _ in calls] == [
        ("app.log", [{"body": {"service": "p", "level": "info", "message": "hi"}}]),
        ("session.abort", []),
    ]
    # On the thread running the hook: the one that called trigger.
    assert {thread for _, _, thread in calls} == {threading.get_ident()}


def test_client_answers_that_cannot_be_json_reject(home: Path, opened: Any) -> None:
    write_plugins(home, client=CLIENT)
    host = opened(client=lambda path, args: {"not json": {1, 2}} if path == "session.abort" else None)
    output = host.trigger("experimental.text.complete", {}, {})["output"]
    assert output["answer"] is None
    assert output["failure"].startswith("client.session.abort() failed: TypeError: ")


def test_client_calling_back_into_its_host_is_refused(home: Path, opened: Any) -> None:
    holder: dict[str, plugline.Host] = {}

    def client(path: str, args: list[Any]) -> Any:
        return holder["host"].tools() if path == "session.abort" else "logged"

    write_plugins(home, client=CLIENT)
    host = holder["host"] = opened(client=client)
    output = host.trigger("experimental.text.complete", {}, {})["output"]
    assert output["failure"].startswith("client.session.abort() failed: InvalidStateError: ")
    assert "own host" in output["failure"]
    assert host.trigger("experimental.text.complete", {}, {})["errors"] == []  # still fine


def test_without_a_client_calls_reject_with_no_client_callback(home: Path, opened: Any) -> None:
    write_plugins(home, client=CLIENT)
    host = opened()
    result = host.trigger("experimental.text.complete", {}, {})
    # client.app.log is not caught by the plugin: its rejection fails the hook.
    assert len(result["errors"]) == 1
    assert "no client callback" in result["errors"][0]["message"]


def test_client_is_kept_alive_by_the_host(home: Path, opened: Any) -> None:
    class Client:
        def __call__(self, path: str, args: list[Any]) -> Any:
            return {"kept": True}

    write_plugins(home, client=CLIENT)
    client = Client()
    alive = weakref.ref(client)
    host = opened(client=client)
    del client
    gc.collect()
    assert alive() is not None
    assert host.trigger("experimental.text.complete", {}, {})["output"]["answer"] == {
        "kept": True}
    host.close()
    gc.collect()
    assert alive() is None


def test_server_url_and_plugin_config_reach_plugins(home: Path, opened: Any) -> None:
    write_plugins(home, context=CONTEXT)
    host = opened(server_url="http://127.0.0.1:4096", plugin_config={"model": "x"})
    output = host.trigger("experimental.text.complete", {}, {})["output"]
    assert output == {"serverUrl": "http://127.0.0.1:4096/", "config": {"model": "x"}}


def test_bad_opencode_options_are_refused(home: Path) -> None:
    with pytest.raises(TypeError):
        plugline.Host(home=home, client="not callable")  # type: ignore[arg-type]
    with pytest.raises(plugline.InvalidArgumentError):
        plugline.Host(home=home, plugin_config="[1]")
    with pytest.raises(TypeError):
        plugline.Host(home=home, plugin_config=[1])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        plugline.Host(home=home, server_url="http://x\0y")


def test_shell_interpolation_is_one_argument(home: Path, tmp_path: Path, opened: Any) -> None:
    pwned = tmp_path / "pwned"
    hostile = HOSTILE.format(pwned=pwned)
    write_plugins(home, shell=SHELL)
    host = opened()
    result = host.trigger("experimental.text.complete", {"x": hostile}, {})
    assert result["errors"] == []
    assert result["output"]["echoed"] == hostile
    assert not os.path.exists(pwned)


def test_dispatch_pre_tool_call_to_a_throwing_opencode_plugin_denies(home: Path,
                                                                     opened: Any) -> None:
    write_plugins(home, env_protection=NO_ENV)
    host = opened()
    denied = host.dispatch("pre_tool_call", {
        "session_id": "ses_1", "call_id": "c1", "tool": "read",
        "arguments": json.dumps({"filePath": "/work/.env"})})
    assert denied["denied"] is True
    assert denied["denied_by"] == "env-protection"
    assert denied["reason"] == "Do not read .env files"
    allowed = host.dispatch("pre_tool_call", {
        "session_id": "ses_1", "tool": "read",
        "arguments": json.dumps({"filePath": "/work/main.c"})})
    assert allowed["denied"] is False


def test_trigger_on_a_closed_host_raises(home: Path) -> None:
    host = plugline.Host(home=home)
    host.close()
    with pytest.raises(plugline.InvalidStateError):
        host.trigger("chat.params", {}, {})
    with pytest.raises(plugline.InvalidStateError):
        host.tools()
    with pytest.raises(plugline.InvalidStateError):
        host.execute_tool("add", {})


def dispose_logger(log_file: Path) -> str:
    """A plugin whose dispose hook asks the client for a line and appends it to log_file."""
    return """export default async ({ client, $ }) => ({
  dispose: async () => {
    let line;
    try { line = await client.app.agents(); } catch (e) { line = e.message; }
    await $`printf '%s\\n' ${line} >> ${LOG}`;
  },
});
""".replace("LOG", json.dumps(str(log_file)))


def test_close_runs_dispose_hooks_with_the_client(home: Path, tmp_path: Path,
                                                  opened: Any) -> None:
    log_file = tmp_path / "dispose.log"
    write_plugins(home, bye=dispose_logger(log_file))
    host = opened(client=lambda path, args: f"bye from {path}")
    host.close()
    assert log_file.read_text() == "bye from app.agents\n"


def test_client_runs_on_the_thread_that_triggers(home: Path, opened: Any) -> None:
    threads: list[int] = []

    def client(path: str, args: list[Any]) -> Any:
        threads.append(threading.get_ident())
        return None

    write_plugins(home, client=CLIENT)
    host = opened(client=client)
    worker_ids: list[int] = []

    def work() -> None:
        worker_ids.append(threading.get_ident())
        host.trigger("experimental.text.complete", {}, {})

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    assert threads and set(threads) == set(worker_ids)


def test_plugins_awaiting_the_client_while_loading_load_on_the_calling_thread(
        home: Path, opened: Any) -> None:
    loading = """export default async ({ client }) => {
  const answer = await client.app.log({ body: { service: "NAME" } });
  return { "chat.params": async (input, output) => { output.NAME = answer; } };
};
"""
    write_plugins(home, a=loading.replace("NAME", "a"), b=loading.replace("NAME", "b"))
    threads: list[str] = []

    def client(path: str, args: list[Any]) -> Any:
        threads.append(threading.current_thread().name)
        return True

    host = opened(client=client)
    listed = {p["id"]: p for p in host.plugins() if p["id"] in ("a", "b")}
    assert [(listed[i]["state"], listed[i]["kind"]) for i in ("a", "b")] == [("enabled", "opencode")] * 2
    assert threads == [threading.current_thread().name] * 2
    assert host.trigger("chat.params", {}, {})["output"] == {"a": True, "b": True}


def test_keyboard_interrupt_in_the_client_is_re_raised(home: Path, opened: Any) -> None:
    def client(path: str, args: list[Any]) -> Any:
        if path == "session.abort":
            raise KeyboardInterrupt
        return "logged"

    write_plugins(home, client=CLIENT)
    host = opened(client=client)
    with pytest.raises(KeyboardInterrupt):
        host.trigger("experimental.text.complete", {}, {})
    # Re-raised once: the next call on the host is clean.
    assert host.trigger("chat.params", {}, {"x": 1})["output"] == {"x": 1}


def test_client_answer_plugline_refuses_rejects(home: Path, opened: Any) -> None:
    write_plugins(home, client=CLIENT)
    host = opened(client=lambda path, args: "\ud800" if path == "session.abort" else "ok")
    output = host.trigger("experimental.text.complete", {}, {})["output"]
    assert output["answer"] == "ok"
    assert output["failure"] == ("client.session.abort() failed: ValueError: plugline refused the "
                                 "client's answer as JSON")


# What published OpenCode plugins do: Node's built-in modules, process, Buffer.
NODE_PLUGIN = """import fs from "node:fs";
import os from "os";
import { execFileSync } from "child_process";
export default async () => ({
  "experimental.text.complete": async (input, output) => {
    output.pid = process.pid;
    output.platform = os.platform();
    output.b64 = Buffer.from("hi").toString("base64");
    output.exists = fs.existsSync(input.path);
    output.child = execFileSync("echo", ["child"]).toString().trim();
  },
});
"""


def test_a_plugin_that_needs_node_runs_in_node_beside_python(home: Path, opened: Any) -> None:
    write_plugins(home, needs_node=NODE_PLUGIN)
    host = opened()
    (entry,) = [p for p in host.plugins() if p["id"] == "needs-node"]
    assert entry["runtime"] == "node"
    result = host.trigger("experimental.text.complete", {"path": str(home)}, {})
    output = result["output"]
    assert output["platform"] == "linux"
    assert output["b64"] == "aGk="
    assert output["exists"] is True
    assert output["child"] == "child"
    # Its own process: a plugin that calls process.exit() cannot end Python.
    assert output["pid"] != os.getpid()


def test_runtime_sandboxed_keeps_node_modules_out(home: Path) -> None:
    write_plugins(home, needs_node=NODE_PLUGIN)
    (home / "config.yaml").write_text("plugins:\n  js: {runtime: sandboxed}\n")
    with plugline.Host(home=home) as host:
        (entry,) = [p for p in host.plugins() if p["id"] == "needs-node"]
        if "without V8" in (entry["reason"] or ""):
            pytest.skip("plugline was built with PLUGLINE_WITH_V8=OFF")
        assert entry["state"] == "broken"
        assert "cannot import 'node:fs'" in entry["reason"]


V2_EXAMPLE = """import { define } from "@opencode-ai/plugin/v2/promise"
export const Plugin = define({
  id: "example",
  setup: async (ctx) => {
    await ctx.catalog.transform((catalog) => {
      catalog.provider.update("example", (provider) => { provider.name = "Example" })
    })
  },
})
"""


def test_a_v2_plugin_transforms_the_catalog_by_name(home: Path, opened: Any) -> None:
    write_plugins(home, example=V2_EXAMPLE)
    host = opened()
    assert "catalog.transform" in host.plugins()[-1]["events"]
    result = host.trigger("catalog.transform", {"providers": {"other": {"provider": {"id": "other"},
                                                                          "models": {}}}}, {})
    assert result["errors"] == []
    providers = result["output"]["providers"]
    assert providers["example"]["provider"]["name"] == "Example"
    assert providers["other"] == {"provider": {"id": "other"}, "models": {}}
