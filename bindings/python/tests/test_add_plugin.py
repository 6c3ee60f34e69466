"""OpenCode plugins written in Python (``Host.add_plugin``): hooks by OpenCode's names and tools,
reached with the same meaning as an OpenCode plugin file's — a raise in tool.execute.before
denies, changed args rewrite, a changed output replaces the result, session events reach
``event``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import plugline


def tool_call(command: str) -> dict[str, Any]:
    return {"session_id": "s1", "call_id": "c1", "tool": "terminal",
            "arguments": json.dumps({"command": command})}


def guard_hooks(seen: list[Any]) -> dict[str, Any]:
    def before(input: dict[str, Any], output: dict[str, Any]) -> None:  # noqa: A002
        seen.append(input)
        command = output["args"]["command"]
        if command.startswith("rm -rf"):
            raise PermissionError("rm -rf is not for agents")
        if command.startswith("python "):
            output["args"]["command"] = "python3 " + command[len("python "):]

    def after(input: dict[str, Any], output: dict[str, Any]) -> None:  # noqa: A002
        output["output"] = output["output"].replace("hunter2", "[redacted]")

    def event(input: dict[str, Any], output: dict[str, Any]) -> None:  # noqa: A002
        seen.append(input["event"]["type"])

    return {"tool.execute.before": before, "tool.execute.after": after, "event": event}


def test_a_python_plugin_denies_rewrites_redacts_and_sees_events(home: Path) -> None:
    seen: list[Any] = []
    with plugline.Host(home=home) as host:
        host.add_plugin("guard", guard_hooks(seen))
        denied = host.dispatch("pre_tool_call", tool_call("rm -rf /"))
        assert denied["denied"] and denied["denied_by"] == "guard"
        assert denied["reason"] == "rm -rf is not for agents"
        assert seen[-1] == {"tool": "bash", "sessionID": "s1", "callID": "c1"}
        rewritten = host.dispatch("pre_tool_call", tool_call("python app.py"))
        assert not rewritten["denied"]
        assert json.loads(rewritten["arguments"]) == {"command": "python3 app.py"}
        shown = host.dispatch("post_tool_call",
                              {"tool": "read", "arguments": "{}", "result": "pw hunter2"})
        assert shown["result"] == "pw [redacted]"
        host.dispatch("session_end", {"session_id": "s1"})
        assert seen[-1] == "session.deleted"
        listed = [p for p in host.plugins() if p["id"] == "guard"]
        assert [(p["kind"], p["source"], p["state"]) for p in listed] == [("opencode", "host", "enabled")]
        host.remove_added_plugin("guard")
        assert not host.dispatch("pre_tool_call", tool_call("rm -rf /"))["denied"]
        with pytest.raises(plugline.NotFoundError):
            host.remove_added_plugin("guard")


def test_tools_and_named_triggers(home: Path) -> None:
    def words(args: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        return {"output": str(len(args["text"].split())), "title": context.get("sessionID", "")}

    def broken(args: dict[str, Any], context: dict[str, Any]) -> str:
        raise ValueError("the index is gone")

    def env(input: dict[str, Any], output: dict[str, Any]) -> None:  # noqa: A002
        output["env"]["FROM_PYTHON"] = "1"

    with plugline.Host(home=home) as host:
        host.add_plugin("helper", {"shell.env": env}, tools={
            "word_count": plugline.PluginTool(words, "Counts words", {
                "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            "search": plugline.PluginTool(broken, "Searches"),
        })
        assert host.trigger("shell.env", {}, {"env": {}})["output"] == {"env": {"FROM_PYTHON": "1"}}
        tools = {t["name"]: t for t in host.tools(["bash"])["tools"]}
        assert set(tools) == {"word_count", "search"}
        assert tools["word_count"]["parameters"]["required"] == ["text"]
        assert tools["word_count"]["plugin"] == "helper"
        counted = host.execute_tool("word_count", {"text": "one two three"}, {"sessionID": "s9"})
        assert (counted["ok"], counted["output"], counted["title"]) == (True, "3", "s9")
        failed = host.execute_tool("search", {})
        assert (failed["ok"], failed["error"]) == (False, "the index is gone")


def test_async_hooks_under_the_a_methods_and_a_failure_under_the_sync_ones(home: Path) -> None:
    async def before(input: dict[str, Any], output: dict[str, Any]) -> None:  # noqa: A002
        await asyncio.sleep(0.01)
        raise RuntimeError("async says no")

    async def main() -> None:
        async with plugline.Host(home=home) as host:
            host.add_plugin("async-guard", {"tool.execute.before": before})
            denied = await host.adispatch("pre_tool_call", tool_call("ls"))
            assert denied["denied"] and denied["reason"] == "async says no"
            # A synchronous dispatch cannot await it: the plugin fails, and is skipped.
            skipped = host.dispatch("pre_tool_call", tool_call("ls"))
            assert not skipped["denied"]
            assert skipped["skipped"][0]["plugin"] == "async-guard"
            assert "a* methods" in skipped["skipped"][0]["detail"]
            # Failing closed, the same failure denies.
            host.add_plugin("strict", {"tool.execute.before": before}, fail_closed=True)
            host.remove_added_plugin("async-guard")
            assert host.dispatch("pre_tool_call", tool_call("ls"))["denied_by"] == "strict"

    asyncio.run(main())


def test_bad_arguments_and_taken_ids(home: Path) -> None:
    with plugline.Host(home=home) as host:
        with pytest.raises(TypeError):
            host.add_plugin("p", {"event": "not callable"})  # type: ignore[dict-item]
        with pytest.raises(TypeError):
            host.add_plugin("p", tools={"t": lambda a, c: ""})  # type: ignore[dict-item]
        host.add_hook("taken", ["pre_tool_call"], lambda event, payload: None)
        with pytest.raises(plugline.AlreadyExistsError):
            host.add_plugin("taken", {})
        with pytest.raises(plugline.InvalidArgumentError):
            host.add_plugin("", {})
