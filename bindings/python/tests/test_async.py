"""The asyncio API: ``a*`` methods that run the C call in a worker thread, and ``async def``
native hooks and clients awaited on the caller's event loop. Real exec plugins (processes) and
real OpenCode plugins in a temporary home."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any, Optional

import pytest

import plugline

from test_hooks import exec_plugin


def tool_call(command: str) -> dict[str, Any]:
    return {"session_id": "ses_1", "tool": "terminal", "arguments": json.dumps({"command": command})}


def test_async_hooks_deny_rewrite_and_redact(home: Path) -> None:
    async def main() -> None:
        async with plugline.Host(home=home) as host:
            async def guard(event: str, payload: dict[str, Any]) -> Optional[dict[str, Any]]:
                await asyncio.sleep(0.01)
                command = json.loads(payload["arguments"])["command"]
                if "rm -rf" in command:
                    return {"deny": True, "reason": "no rm -rf (async)"}
                return {"arguments": json.dumps({"command": command + " --dry-run"})}

            async def redact(event: str, payload: dict[str, Any]) -> dict[str, Any]:
                return {"result": payload["result"].replace("hunter2", "[redacted]")}

            host.add_hook("guard", ["pre_tool_call"], guard, fail_closed=True)
            host.add_hook("redact", ["post_tool_call"], redact)

            denied = await host.adispatch("pre_tool_call", tool_call("rm -rf /"))
            assert denied["denied"] and denied["denied_by"] == "guard"
            assert denied["reason"] == "no rm -rf (async)"
            rewritten = await host.adispatch("pre_tool_call", tool_call("make"))
            assert not rewritten["denied"]
            assert json.loads(rewritten["arguments"] or "{}")["command"] == "make --dry-run"
            redacted = await host.adispatch(
                "post_tool_call", {**tool_call("env"), "result": "PASSWORD=hunter2"})
            assert redacted["result"] == "PASSWORD=[redacted]"
        assert host.closed

    asyncio.run(main())


def test_sync_dispatch_cannot_await_an_async_hook(host: plugline.Host) -> None:
    async def guard(event: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"deny": True}

    host.add_hook("guard", ["pre_tool_call"], guard, fail_closed=True)
    result = host.dispatch("pre_tool_call", tool_call("ls"))
    assert result["denied"]  # a failure of a fail-closed hook, never "no opinion"
    assert "TypeError: the hook returned an awaitable" in (result["reason"] or "")
    assert "adispatch" in (result["reason"] or "")


def test_async_hook_that_raises_or_hangs_fails(home: Path) -> None:
    async def main() -> None:
        async with plugline.Host(home=home) as host:
            async def raises(event: str, payload: dict[str, Any]) -> None:
                raise RuntimeError("lookup failed")

            async def hangs(event: str, payload: dict[str, Any]) -> None:
                await asyncio.Event().wait()

            host.add_hook("raises", ["pre_tool_call"], raises)
            host.add_hook("hangs", ["pre_tool_call"], hangs, timeout=0.1)
            result = await host.adispatch("pre_tool_call", tool_call("ls"))
            assert not result["denied"]
            assert [(s["plugin"], s["detail"]) for s in result["skipped"]] == [
                ("raises", "RuntimeError: lookup failed"),
                ("hangs", "TimeoutError: the hook did not answer within 0.1 s"),
            ]

    asyncio.run(main())


def test_adispatch_leaves_the_event_loop_free(home: Path) -> None:
    exec_plugin(home, "slow", "sleep 0.3\necho '{\"notice\":\"slept\"}'")

    async def main() -> None:
        async with plugline.Host(home=home) as host:
            ticks = 0

            async def tick() -> None:
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.01)
                    ticks += 1

            ticker = asyncio.create_task(tick())
            result = await host.adispatch("pre_tool_call", tool_call("ls"))
            ticker.cancel()
            assert result["notices"] == [{"plugin": "slow", "text": "slept"}]
            assert ticks > 0, "the event loop did not run while the plugin slept"

    asyncio.run(main())


def test_ashape_matches_shape(host: plugline.Host) -> None:
    output = b"".join(b"line %d\n" % i for i in range(1, 401))
    shaped = asyncio.run(host.ashape("seq 1 400", output, 0))
    direct = host.shape("seq 1 400", output, 0)
    # The same summary but for its last line, which names each call's own stored raw file.
    assert shaped["summary"].splitlines()[:-1] == direct["summary"].splitlines()[:-1]
    assert shaped["summary"].splitlines()[-1].startswith("full output: ")
    assert shaped["shaper"] == direct["shaper"]
    assert shaped["tokens_raw"] == direct["tokens_raw"]


def test_async_methods_raise_the_same_errors(host: plugline.Host) -> None:
    with pytest.raises(plugline.InvalidArgumentError):
        asyncio.run(host.adispatch("", {}))
    with pytest.raises(plugline.NotFoundError):
        asyncio.run(host.aexecute_tool("nope", {}))
    with pytest.raises(ValueError):
        host.add_hook("h", "*", lambda event, payload: None, timeout=0)
    asyncio.run(host.aclose())
    with pytest.raises(plugline.InvalidStateError):
        asyncio.run(host.adispatch("pre_tool_call", tool_call("ls")))


CLIENT_PLUGIN = """import { tool } from "@opencode-ai/plugin";
export default async ({ client }) => {
  const greeting = await client.app.log({ body: { service: "p", level: "info", message: "loading" } });
  return {
    "chat.params": async (input, output) => {
      output.greeting = greeting;
      output.agents = await client.app.agents();
      try { await client.session.abort(); } catch (e) { output.failure = e.message; }
    },
    tool: {
      whoami: tool({
        description: "Asks the host",
        args: {},
        async execute() { return JSON.stringify(await client.app.agents()); },
      }),
    },
  };
};
"""


def test_async_client_answers_opencode_plugins(home: Path) -> None:
    (home / "plugins").mkdir(parents=True)
    (home / "plugins" / "asks.js").write_text(CLIENT_PLUGIN)
    calls: list[tuple[str, str]] = []

    async def client(path: str, args: list[Any]) -> Any:
        calls.append((path, threading.current_thread().name))
        await asyncio.sleep(0.005)
        if path == "session.abort":
            raise RuntimeError("not now")
        return [{"name": "build"}] if path == "app.agents" else True

    async def main() -> None:
        async with plugline.Host(home=home, client=client, client_timeout=2) as host:
            plugins = await host.aplugins()
            asks = next(p for p in plugins if p["id"] == "asks")
            if "without V8" in (asks.get("reason") or ""):
                pytest.skip("plugline was built with PLUGLINE_WITH_V8=OFF")
            assert asks["state"] == "enabled", asks
            result = await host.atrigger("chat.params", {}, {})
            assert result["errors"] == []
            assert result["output"] == {
                "greeting": True,
                "agents": [{"name": "build"}],
                "failure": "client.session.abort() failed: RuntimeError: not now",
            }
            tools = await host.atools(["bash"])
            assert [t["name"] for t in tools["tools"]] == ["whoami"]
            ran = await host.aexecute_tool("whoami", {})
            assert ran["ok"], ran["error"]
            assert json.loads(ran["output"]) == [{"name": "build"}]

            # Synchronously the same client cannot be awaited: the call rejects, saying so.
            sync = host.trigger("chat.params", {}, {})
            assert len(sync["errors"]) == 1
            assert "a synchronous call cannot await it" in sync["errors"][0]["message"]

    asyncio.run(main())
    # Every coroutine ran on the event loop's thread, the main thread here.
    assert [path for path, _ in calls] == ["app.log", "app.agents", "session.abort",
                                           "app.agents"]
    assert {thread for _, thread in calls} == {threading.main_thread().name}


def test_areload_picks_up_a_new_plugin(home: Path) -> None:
    async def main() -> None:
        async with plugline.Host(home=home) as host:
            assert (await host.adispatch("pre_tool_call", tool_call("ls")))["notices"] == []
            exec_plugin(home, "late", "echo '{\"notice\":\"here\"}'")
            await host.areload()
            result = await host.adispatch("pre_tool_call", tool_call("ls"))
            assert result["notices"] == [{"plugin": "late", "text": "here"}]

    asyncio.run(main())
