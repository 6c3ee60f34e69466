"""The TypedDicts of plugline._types name exactly the keys the results have: a key the
library adds or drops shows up here."""

from __future__ import annotations

import hashlib
import json
import typing
from pathlib import Path

import plugline


def keys(cls: type) -> set[str]:
    return set(typing.get_type_hints(cls).keys())


def test_results_have_exactly_the_typed_keys(home: Path) -> None:
    home.mkdir(parents=True)
    www = home / "www"
    www.mkdir()
    plugin = "export default { meta: { name: 'x', version: '1', description: 'd', tier: 'community' }, match() { return { matched: false }; }, shape() { return { summary: '' }; } };\n"
    (www / "x.js").write_text(plugin)
    (www / "index.json").write_text(json.dumps({"plugins": [
        {"id": "x", "version": "1.0.0", "kind": "js-shaper", "url": "x.js",
         "sha256": hashlib.sha256(plugin.encode()).hexdigest(), "size": len(plugin)}]}))
    (home / "config.yaml").write_text(f"catalog:\n  url: file://{www}/index.json\n")
    with plugline.Host(home=home) as host:
        shaped = host.shape("seq 300", "\n".join(map(str, range(300))), 0)
        assert set(shaped) == keys(plugline.ShapeResult)
        decided = host.dispatch("pre_tool_call", {"tool": "t", "arguments": "{}"})
        assert set(decided) == keys(plugline.DispatchResult)
        for p in host.plugins():
            assert set(p) == keys(plugline.PluginInfo), p["id"]
        builtin = host.plugin_info("builtin-test")[0]
        assert set(builtin["stats"]) == keys(plugline.PluginStats)
        assert set(host.trigger("chat.params", {}, {})) == keys(plugline.TriggerResult)
        assert set(host.sync_catalogs()[0]) == keys(plugline.CatalogSyncReport)
        offer = host.available_plugins()
        assert set(offer) == keys(plugline.Availability)
        assert set(offer["plugins"][0]) == keys(plugline.AvailablePlugin)
        record = host.install_plugin("x")
        assert set(record) == keys(plugline.InstallRecord)
        installed = host.plugin_info("x")[0]["install"]
        assert set(installed) == keys(plugline.PluginInstall)
    assert typing.get_type_hints(plugline.Host.shape)["return"] is plugline.ShapeResult
    assert typing.get_type_hints(plugline.Host.dispatch)["return"] is plugline.DispatchResult
