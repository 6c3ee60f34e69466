"""JS shaper plugins through the Python binding: listed, run, broken ones explained."""

from __future__ import annotations

from pathlib import Path

import pytest

import plugline

SHAPER = """export default {
  meta: { name: "deploys", version: "2.0.0", description: "deploy logs", tier: "community" },
  match(command) {
    return command.startsWith("deploy") ? { matched: true, confidence: 0.9 } : { matched: false };
  },
  shape(output, ctx) {
    const failed = output.split("\\n").filter((l) => l.includes("FAILED"));
    return { summary: `deploy: ${failed.length} failed of ${ctx.outputLines}\\n${failed.join("\\n")}` };
  },
};
"""


def deploy_output() -> str:
    lines = [f"service-{i} {'FAILED' if i % 25 == 0 else 'ok'}" for i in range(1, 101)]
    return "\n".join(lines) + "\n"


def test_plugins_lists_builtins_and_a_dropped_in_js_shaper(home: Path) -> None:
    (home / "plugins").mkdir(parents=True)
    (home / "plugins" / "deploys.js").write_text(SHAPER)
    (home / "plugins" / "broken.js").write_text("export default {\n  meta: ,\n};\n")
    with plugline.Host(home=home) as host:
        plugins = {p["id"]: p for p in host.plugins()}
        assert plugins["builtin-test"]["kind"] == "builtin-shaper"
        assert plugins["builtin-test"]["state"] == "enabled"
        broken = plugins["broken"]
        assert broken["kind"] == "js-shaper"
        if "without V8" in (broken["reason"] or ""):
            pytest.skip("plugline was built with PLUGLINE_WITH_V8=OFF")
        assert broken["state"] == "broken"
        assert "broken.js:2" in broken["reason"]
        deploys = plugins["deploys"]
        assert deploys["state"] == "enabled"
        assert deploys["version"] == "2.0.0"
        assert deploys["path"] == str(home / "plugins" / "deploys.js")

        result = host.shape("deploy --all", deploy_output(), exit_code=1)
        assert result["shaper"] == "deploys"
        assert result["summary"].startswith(
            "deploy: 4 failed of 100\nservice-25 FAILED\nservice-50 FAILED\n")
        assert result["skipped"] == []


def test_reload_picks_up_a_new_plugin(home: Path) -> None:
    with plugline.Host(home=home) as host:
        assert host.shape("deploy --all", deploy_output())["shaper"] != "deploys"
        (home / "plugins").mkdir(parents=True)
        (home / "plugins" / "deploys.js").write_text(SHAPER)
        host.reload()
        state = {p["id"]: p["state"] for p in host.plugins()}
        if state.get("deploys") is None:
            pytest.skip("plugline was built with PLUGLINE_WITH_V8=OFF")
        assert state["deploys"] == "enabled"
        assert host.shape("deploy --all", deploy_output())["shaper"] == "deploys"
