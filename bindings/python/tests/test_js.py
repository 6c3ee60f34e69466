"""plugline.js_call over the experimental plugline_js_call: a real V8 isolate."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import plugline


@pytest.fixture
def module(tmp_path: Path) -> Path:
    """An ES module with a relative import, in a directory of its own."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "math.mjs").write_text(
        "export function sum(values) {\n"
        "  return values.reduce((a, b) => a + b, 0);\n"
        "}\n")
    path = tmp_path / "plugin.mjs"
    path.write_text(
        "import { sum } from './lib/math.mjs';\n"
        "export default {\n"
        "  total(...values) { return sum(values); },\n"
        "  async describe(name, options) {\n"
        "    return { greeting: `hello ${name}`, keys: Object.keys(options), self: this.tag };\n"
        "  },\n"
        "  nothing() {},\n"
        "  fail(reason) {\n"
        "    throw new Error(`refused: ${reason}`);\n"
        "  },\n"
        "  spin() { for (;;) {} },\n"
        "  tag: 'plugin',\n"
        "};\n")
    return path


@pytest.fixture(autouse=True)
def v8_available(tmp_path: Path) -> None:
    probe = tmp_path / "probe.mjs"
    probe.write_text("export default () => 1;\n")
    try:
        plugline.js_call(probe)
    except plugline.UnavailableError as error:
        if "without V8" in error.message:
            pytest.skip("plugline was built with PLUGLINE_WITH_V8=OFF")
        raise


def test_call_with_relative_import(module: Path) -> None:
    assert plugline.js_call(module, "total", [1, 2, 3, 4]) == 10


def test_promise_is_awaited_and_result_parsed(module: Path) -> None:
    result = plugline.js_call(str(module), "describe", ("wörld", {"a": 1, "b": [None]}))
    assert result == {"greeting": "hello wörld", "keys": ["a", "b"], "self": "plugin"}


def test_undefined_becomes_none(module: Path) -> None:
    assert plugline.js_call(module, "nothing") is None


def test_default_export_function(tmp_path: Path) -> None:
    path = tmp_path / "default.mjs"
    path.write_text("export default (a, b) => ({ product: a * b });\n")
    assert plugline.js_call(path, None, [6, 7]) == {"product": 42}
    assert plugline.js_call(path, "", [2, 3]) == {"product": 6}


def test_relative_module_path(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(module.parent)
    assert plugline.js_call("plugin.mjs", "total", [5, 5]) == 10


def test_throw_raises_plugin_error_with_file_and_line(module: Path) -> None:
    with pytest.raises(plugline.Error) as caught:
        plugline.js_call(module, "fail", ["no way"])
    error = caught.value
    assert isinstance(error, plugline.PluginError)
    assert error.name == "PLUGLINE_EPLUGIN"
    assert "refused: no way" in error.message
    assert f"{module}:9" in error.message  # the line of the throw


def test_syntax_error_raises_plugin_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.mjs"
    path.write_text("export default {\n  oops(: 1\n};\n")
    with pytest.raises(plugline.PluginError) as caught:
        plugline.js_call(path, "oops")
    assert f"{path}:2" in caught.value.message


def test_infinite_loop_times_out(module: Path) -> None:
    started = time.monotonic()
    with pytest.raises(plugline.Error) as caught:
        plugline.js_call(module, "spin", timeout_ms=200)
    elapsed = time.monotonic() - started
    assert caught.value.name == "PLUGLINE_ETIMEOUT"
    assert isinstance(caught.value, plugline.TimeoutExpiredError)
    # The message names the budget the caller gave.
    assert "spin() exceeded its time budget of 200ms" in caught.value.message
    assert 0.15 < elapsed < 3


def test_missing_function_and_file_are_not_found(module: Path, tmp_path: Path) -> None:
    with pytest.raises(plugline.NotFoundError) as caught:
        plugline.js_call(module, "absent")
    assert "absent" in caught.value.message
    with pytest.raises(plugline.NotFoundError):
        plugline.js_call(tmp_path / "missing.mjs", "total")


def test_arguments_are_validated_before_the_call(module: Path) -> None:
    with pytest.raises(TypeError):
        plugline.js_call(module, "total", "123")  # a str is not an argument list
    with pytest.raises(ValueError):
        plugline.js_call(module, "total", [float("nan")])
    with pytest.raises(TypeError):
        plugline.js_call(module, "total", [object()])
    with pytest.raises(ValueError):
        plugline.js_call(module, "total", [], timeout_ms=-1)
    with pytest.raises(ValueError):
        plugline.js_call(module, "total", [], timeout_ms=2**32)


def test_timeout_bounds_the_module_top_level_too(tmp_path: Path) -> None:
    path = tmp_path / "stuck.mjs"
    path.write_text("for (;;) {}\nexport default () => 1;\n")
    started = time.monotonic()
    with pytest.raises(plugline.TimeoutExpiredError) as caught:
        plugline.js_call(path, timeout_ms=200)
    assert "200ms" in caught.value.message
    assert time.monotonic() - started < 3


def test_calls_from_several_threads(module: Path) -> None:
    results: dict[int, object] = {}

    def work(worker: int) -> None:
        try:
            results[worker] = plugline.js_call(module, "total", [worker, 100])
        except BaseException as error:  # reported below, in the main thread
            results[worker] = error

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {worker: worker + 100 for worker in range(6)}


def test_a_shaper_allocation_v8_cannot_stop_leaves_the_python_host_alive(home: Path) -> None:
    """`new Array(1e8).fill(1.5)` in match() used to end the Python process (V8's fatal OOM)."""
    plugins = home / "plugins"
    plugins.mkdir(parents=True)
    (home / "config.yaml").write_text("plugins:\n  js:\n    heap_limit_mb: 32\n")
    (plugins / "fill.js").write_text(
        "export default {\n"
        "  meta: { name: 'fill', version: '1.0.0', description: 'd', tier: 'community' },\n"
        "  match() { return { matched: new Array(1e8).fill(1.5).length > 0, confidence: 1 }; },\n"
        "  shape() { return { summary: 'never' }; },\n"
        "};\n")
    with plugline.Host(home=home) as host:
        first = host.shape("make", b"built\n", exit_code=0)
        assert first["summary"] == "built\n"
        [skipped] = [s for s in first["skipped"] if s["plugin"] == "fill"]
        assert skipped["detail"].startswith(
            "call to match() ran out of memory in a way V8 cannot stop in process")
        # The host goes on; the plugin stays out of this process, saying why.
        second = host.shape("make", b"built again\n", exit_code=0)
        assert second["summary"] == "built again\n"
        assert [s["detail"] for s in second["skipped"] if s["plugin"] == "fill"] == [
            skipped["detail"]]
