"""Hook dispatch through the Python binding: exec plugins in a temporary home (real processes),
native hooks written in Python (real ctypes callbacks), and how the two compose."""

from __future__ import annotations

import gc
import json
import textwrap
import threading
import weakref
from pathlib import Path
from typing import Any, Optional

import pytest

import plugline

from test_library import run_python


def exec_plugin(home: Path, name: str, body: str, hooks: str = "[pre_tool_call]",
                extra_yaml: str = "") -> Path:
    """A /bin/sh exec plugin in <home>/plugins/<name>/: reads the payload into $PAYLOAD, then
    runs `body`, whose stdout is the answer."""
    directory = home / "plugins" / name
    directory.mkdir(parents=True)
    (directory / "plugin.yaml").write_text(
        f"name: {name}\ncommand: ./run.sh\nhooks: {hooks}\n{extra_yaml}")
    script = directory / "run.sh"
    script.write_text(f"#!/bin/sh\nPAYLOAD=$(cat)\n{body}\n")
    script.chmod(0o755)
    return directory


def tool_call(command: str) -> dict[str, Any]:
    return {"session_id": "ses_1", "tool": "terminal",
            "arguments": json.dumps({"command": command})}


def command_of(result: dict[str, Any]) -> str:
    return json.loads(result["arguments"])["command"]


# An exec plugin that denies `rm -rf` and has no opinion on anything else.
NO_RM = """case "$PAYLOAD" in
  *'rm -rf'*) echo '{"deny":true,"reason":"no rm -rf here"}' ;;
  *) echo '{}' ;;
esac"""


def test_exec_plugin_denies(home: Path) -> None:
    exec_plugin(home, "no-rm", NO_RM)
    with plugline.Host(home=home) as host:
        denied = host.dispatch("pre_tool_call", tool_call("rm -rf /"))
        allowed = host.dispatch("pre_tool_call", json.dumps(tool_call("ls")))
    assert denied["event"] == "pre_tool_call"
    assert denied["denied"] is True
    assert denied["denied_by"] == "no-rm"
    assert denied["reason"] == "no rm -rf here"
    assert [p["plugin"] for p in denied["plugins"]] == ["no-rm"]
    assert denied["plugins"][0]["action"] == "deny"
    assert denied["plugins"][0]["ms"] > 0
    assert allowed["denied"] is False
    assert allowed["denied_by"] is None and allowed["reason"] is None
    assert command_of(allowed) == "ls"
    assert allowed["skipped"] == []


def test_native_hook_rewrites_arguments(host: plugline.Host) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []

    def no_color(event: str, payload: dict[str, Any]) -> Optional[dict[str, Any]]:
        calls.append((event, payload))
        arguments = json.loads(payload["arguments"])
        arguments["command"] += " --color=never"
        return {"arguments": json.dumps(arguments)}

    host.add_hook("no-color", ["pre_tool_call"], no_color)
    result = host.dispatch("pre_tool_call", tool_call("git log"))
    assert result["denied"] is False
    assert command_of(result) == "git log --color=never"
    assert result["plugins"][0]["plugin"] == "no-color"
    assert result["plugins"][0]["action"] == "rewrite"
    assert len(calls) == 1
    event, payload = calls[0]
    assert event == "pre_tool_call"
    assert payload["event"] == "pre_tool_call"
    assert payload["session_id"] == "ses_1"  # other fields pass through
    assert payload["tool"] == "terminal"


def test_exec_plugin_runs_first_then_native_hook(home: Path) -> None:
    answer = {"arguments": json.dumps({"command": "make --from-exec"}), "notice": "exec ran"}
    exec_plugin(home, "tagger", f"echo '{json.dumps(answer)}'")
    seen: list[str] = []

    def native(event: str, payload: dict[str, Any]) -> dict[str, Any]:
        command = json.loads(payload["arguments"])["command"]
        seen.append(command)
        return {"arguments": json.dumps({"command": command + " --native"}),
                "notice": "native ran"}

    with plugline.Host(home=home) as host:
        host.add_hook("native", "*", native)  # added before the dispatch, still runs after
        result = host.dispatch("pre_tool_call", tool_call("make"))
    assert seen == ["make --from-exec"]  # the native hook saw the plugin's rewrite
    assert command_of(result) == "make --from-exec --native"
    assert [p["plugin"] for p in result["plugins"]] == ["tagger", "native"]
    assert [(n["plugin"], n["text"]) for n in result["notices"]] == [
        ("tagger", "exec ran"), ("native", "native ran")]


def test_exec_deny_ends_the_chain_before_native_hooks(home: Path) -> None:
    exec_plugin(home, "no-rm", NO_RM)
    calls: list[str] = []
    with plugline.Host(home=home) as host:
        host.add_hook("audit", "*", lambda event, payload: calls.append(event))
        result = host.dispatch("pre_tool_call", tool_call("rm -rf /tmp/x"))
    assert result["denied_by"] == "no-rm"
    assert calls == []


def test_raising_hook_is_skipped_and_the_chain_goes_on(host: plugline.Host) -> None:
    def broken(event: str, payload: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("policy service unreachable")

    host.add_hook("a-broken", ["pre_tool_call"], broken)
    host.add_hook("b-after", ["pre_tool_call"], lambda event, payload: {"notice": "b ran"})
    result = host.dispatch("pre_tool_call", tool_call("ls"))
    assert result["denied"] is False
    assert len(result["skipped"]) == 1
    skipped = result["skipped"][0]
    assert skipped["plugin"] == "a-broken"
    assert skipped["detail"] == "RuntimeError: policy service unreachable"
    assert [p["action"] for p in result["plugins"]] == ["skipped", "notice"]
    assert result["notices"] == [{"plugin": "b-after", "text": "b ran"}]
    # The host is fine afterwards.
    assert host.dispatch("turn_end", {})["skipped"] == []


def test_fail_closed_hook_that_raises_denies(host: plugline.Host) -> None:
    def broken(event: str, payload: dict[str, Any]) -> None:
        raise ValueError("cannot decide")

    host.add_hook("guard", ["pre_tool_call"], broken, fail_closed=True)
    host.add_hook("never", ["pre_tool_call"], lambda event, payload: {"notice": "ran"})
    result = host.dispatch("pre_tool_call", tool_call("ls"))
    assert result["denied"] is True
    assert result["denied_by"] == "guard"
    assert "ValueError: cannot decide" in result["reason"]
    assert result["notices"] == []  # the deny ended the chain


@pytest.mark.parametrize("answer, detail", [
    (42, "TypeError: the hook returned int, not a dict or None"),
    ([{"deny": True}], "TypeError: the hook returned list, not a dict or None"),
    ({"notice": float("nan")}, "ValueError"),
    ({"notice": object()}, "TypeError"),
])
def test_answer_that_is_not_a_json_object_fails_the_hook(host: plugline.Host, answer: object,
                                                        detail: str) -> None:
    host.add_hook("odd", "*", lambda event, payload: answer)
    result = host.dispatch("pre_tool_call", tool_call("ls"))
    assert result["denied"] is False
    assert [s["plugin"] for s in result["skipped"]] == ["odd"]
    assert result["skipped"][0]["detail"].startswith(detail)


def test_answer_the_library_refuses_fails_the_hook(host: plugline.Host) -> None:
    host.add_hook("odd", "*", lambda event, payload: {"deny": "yes please"})
    result = host.dispatch("pre_tool_call", tool_call("ls"))
    assert result["denied"] is False
    assert [s["plugin"] for s in result["skipped"]] == ["odd"]
    assert "deny" in result["skipped"][0]["detail"]


def test_unknown_answer_keys_and_near_miss_events_are_warnings(host: plugline.Host) -> None:
    host.add_hook("typo", "*", lambda event, payload: {"denied": True, "notice": "checked"})
    result = host.dispatch("pre_tool_call", tool_call("rm -rf /"))
    assert result["denied"] is False  # a guessed key is never acted on, but it is reported
    assert result["warnings"] == [
        {"plugin": "typo", "text": 'unknown answer key "denied" ignored (did you mean "deny"?)'}]
    misspelt = host.dispatch("pre_tool_cal", tool_call("ls"))
    assert misspelt["warnings"][0]["plugin"] is None
    assert 'did you mean "pre_tool_call"?' in misspelt["warnings"][0]["text"]


def test_events_select_what_a_hook_sees(host: plugline.Host) -> None:
    seen: list[tuple[str, str]] = []
    host.add_hook("pre-only", ["pre_tool_call"], lambda e, p: seen.append(("pre-only", e)))
    host.add_hook("two", ["session_start", "turn_end"], lambda e, p: seen.append(("two", e)))
    host.add_hook("all", "*", lambda e, p: seen.append(("all", e)))
    host.add_hook("none", [], lambda e, p: seen.append(("none", e)))
    host.dispatch("pre_tool_call", tool_call("ls"))
    host.dispatch("turn_end", {"session_id": "ses_1"})
    host.dispatch("my_custom_event", {})
    assert seen == [("pre-only", "pre_tool_call"), ("all", "pre_tool_call"),
                    ("two", "turn_end"), ("all", "turn_end"), ("all", "my_custom_event")]


def test_remove_hook(host: plugline.Host) -> None:
    calls: list[str] = []
    host.add_hook("counter", "*", lambda event, payload: calls.append(event))
    with pytest.raises(plugline.AlreadyExistsError):
        host.add_hook("counter", "*", lambda event, payload: None)
    host.dispatch("turn_end", {})
    host.remove_hook("counter")
    result = host.dispatch("turn_end", {})
    assert calls == ["turn_end"]
    assert result["plugins"] == []
    with pytest.raises(plugline.NotFoundError):
        host.remove_hook("counter")
    host.add_hook("counter", "*", lambda event, payload: None)  # the id is free again
    assert [p["plugin"] for p in host.dispatch("turn_end", {})["plugins"]] == ["counter"]


def test_bad_arguments_raise(host: plugline.Host) -> None:
    for payload in ("[1, 2]", "{oops", b"\xff", "", '"a string"'):
        with pytest.raises(plugline.InvalidArgumentError):
            host.dispatch("pre_tool_call", payload)
    with pytest.raises(plugline.InvalidArgumentError):
        host.dispatch("", {})
    with pytest.raises(TypeError):
        host.dispatch("pre_tool_call", [1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        host.dispatch("pre_tool_call", {"x": float("inf")})
    with pytest.raises(ValueError):
        host.dispatch("pre\0tool_call", {})
    with pytest.raises(plugline.InvalidArgumentError):
        host.add_hook("", "*", lambda event, payload: None)
    with pytest.raises(TypeError):
        host.add_hook("x", "*", "not callable")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        host.add_hook("x", ["pre_tool_call,post_tool_call"], lambda event, payload: None)
    with pytest.raises(TypeError):
        host.add_hook("x", 7, lambda event, payload: None)  # type: ignore[arg-type]
    assert host.plugins() == [p for p in host.plugins() if p["kind"] != "native-hook"]


def test_plugins_lists_exec_and_native_hooks(home: Path) -> None:
    exec_plugin(home, "no-rm", NO_RM, hooks="[pre_tool_call, post_tool_call]")
    with plugline.Host(home=home) as host:
        host.add_hook("guard", ["pre_tool_call", "turn_end"], lambda event, payload: None)
        plugins = {p["id"]: p for p in host.plugins()}
        assert plugins["guard"]["kind"] == "native-hook"
        assert plugins["guard"]["state"] == "enabled"
        assert plugins["guard"]["source"] == "host"
        assert plugins["guard"]["events"] == ["pre_tool_call", "turn_end"]
        assert plugins["no-rm"]["kind"] == "exec-hook"
        assert plugins["no-rm"]["state"] == "enabled"
        assert plugins["no-rm"]["events"] == ["pre_tool_call", "post_tool_call"]
        assert plugins["no-rm"]["path"] == str(home / "plugins" / "no-rm")
        host.remove_hook("guard")
        assert "guard" not in {p["id"] for p in host.plugins()}


class Hook:
    def __call__(self, event: str, payload: dict[str, Any]) -> None:
        return None


def test_hook_function_is_kept_alive_until_removed(host: plugline.Host) -> None:
    function = Hook()
    reference = weakref.ref(function)
    host.add_hook("kept", "*", function)
    del function
    gc.collect()
    assert reference() is not None
    assert host.dispatch("turn_end", {})["plugins"][0]["plugin"] == "kept"
    host.remove_hook("kept")
    assert reference() is None  # at once: no call is running, no reference cycle holds it


def test_hook_function_is_released_by_close(home: Path) -> None:
    function = Hook()
    reference = weakref.ref(function)
    host = plugline.Host(home=home)
    host.add_hook("kept", "*", function)
    del function
    host.close()
    assert reference() is None


def test_host_dropped_without_close_releases_its_hooks(home: Path) -> None:
    function = Hook()
    reference = weakref.ref(function)
    host = plugline.Host(home=home)
    host.add_hook("kept", "*", function)
    host.dispatch("turn_end", {})
    del host, function
    gc.collect()
    assert reference() is None


def test_hook_removed_during_a_dispatch_lives_until_it_returns(host: plugline.Host) -> None:
    entered, release = threading.Event(), threading.Event()

    class Slow:
        def __call__(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
            entered.set()
            assert release.wait(10)
            return {"notice": "slow done"}

    function = Slow()
    reference = weakref.ref(function)
    host.add_hook("slow", "*", function)
    del function
    results: list[dict[str, Any]] = []
    thread = threading.Thread(target=lambda: results.append(host.dispatch("turn_end", {})))
    thread.start()
    assert entered.wait(10)
    host.remove_hook("slow")  # the running dispatch still holds the hook
    gc.collect()
    assert reference() is not None
    release.set()
    thread.join(10)
    gc.collect()
    assert reference() is None
    assert results[0]["notices"] == [{"plugin": "slow", "text": "slow done"}]
    assert host.dispatch("turn_end", {})["plugins"] == []


def test_hook_calling_its_own_host_is_refused(host: plugline.Host, tmp_path: Path) -> None:
    other = plugline.Host(home=tmp_path / "other")

    def reentrant(event: str, payload: dict[str, Any]) -> dict[str, Any]:
        if event == "turn_end":
            host.plugins()
        elif event == "session_end":
            host.close()
        # Another host may be used from inside a hook.
        return {"notice": str(len(other.plugins()))}

    host.add_hook("reentrant", "*", reentrant)
    result = host.dispatch("turn_end", {})
    assert result["skipped"][0]["detail"].startswith("InvalidStateError: ")
    assert "own host" in result["skipped"][0]["detail"]
    result = host.dispatch("session_end", {})
    assert "Host.close() called from inside" in result["skipped"][0]["detail"]
    assert not host.closed
    assert host.dispatch("user_prompt", {})["notices"][0]["text"] == str(len(other.plugins()))
    other.close()


def test_hooks_run_on_every_dispatching_thread(host: plugline.Host) -> None:
    lock = threading.Lock()
    seen: set[tuple[str, str]] = set()

    def record(event: str, payload: dict[str, Any]) -> dict[str, Any]:
        with lock:
            seen.add((threading.current_thread().name, payload["n"].split("-")[0]))
        return {"notice": payload["n"]}

    host.add_hook("record", "*", record)
    answers: dict[str, list[str]] = {}

    def work(n: int) -> None:
        answers[str(n)] = [host.dispatch("turn_end", {"n": f"{n}-{i}"})["notices"][0]["text"]
                           for i in range(20)]

    workers = [threading.Thread(target=work, args=(n,), name=str(n)) for n in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert seen == {(str(n), str(n)) for n in range(4)}  # each on its own dispatching thread
    assert answers == {str(n): [f"{n}-{i}" for i in range(20)] for n in range(4)}


def test_keyboard_interrupt_in_hook_is_raised_after_the_call(host: plugline.Host) -> None:
    calls: list[str] = []

    def interrupted(event: str, payload: dict[str, Any]) -> None:
        calls.append(event)
        if len(calls) == 1:
            raise KeyboardInterrupt

    host.add_hook("interrupted", "*", interrupted)
    with pytest.raises(KeyboardInterrupt):
        host.dispatch("turn_end", {})
    assert host.dispatch("turn_end", {})["skipped"] == []


def test_raising_hook_does_not_crash_the_process(home: Path) -> None:
    """No exception reaches ctypes (which would print "Exception ignored")."""
    code = textwrap.dedent(f"""
        import plugline
        host = plugline.Host(home={str(home)!r})
        host.add_hook("zero", "*", lambda event, payload: 1 // 0)
        result = host.dispatch("pre_tool_call", {{"arguments": "{{}}"}})
        print(result["skipped"][0]["detail"])
        print("alive")
    """)
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["ZeroDivisionError: integer division or modulo by zero",
                                          "alive"]
    assert "Exception ignored" not in result.stderr
