"""Managing plugins from Python: on and off, and a real catalog on file:// — sync with
progress, available, install with its checksum checked, info, remove."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import plugline

SHAPER = """export default {
  meta: { name: "terra", version: "1.0.0", description: "terraform plans", tier: "community" },
  match(c) { return { matched: c.startsWith("terraform"), confidence: 0.9 }; },
  shape() { return { summary: "planned" }; },
};
"""


def catalog(home: Path, sha256: str | None = None) -> None:
    www = home / "www"
    www.mkdir(parents=True)
    (www / "terra.js").write_text(SHAPER)
    digest = sha256 or hashlib.sha256(SHAPER.encode()).hexdigest()
    (www / "index.json").write_text(json.dumps({"catalog": 1, "plugins": [
        {"id": "terra", "version": "1.0.0", "kind": "js-shaper", "url": "terra.js",
         "sha256": digest, "size": len(SHAPER.encode())}]}))
    (home / "config.yaml").write_text(f"catalog:\n  url: file://{www}/index.json\n")


def test_set_plugin_enabled_turns_a_builtin_off_and_on(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    with plugline.Host(home=home) as host:
        host.set_plugin_enabled("builtin-git-diff", False)
        assert host.plugin_info("builtin-git-diff")[0]["state"] == "disabled"
        assert json.loads((home / "plugins.json").read_text())["plugins"]["builtin-git-diff"]["enabled"] is False
        host.set_plugin_enabled("builtin-git-diff", True)
        assert host.plugin_info("builtin-git-diff")[0]["state"] == "enabled"
        with pytest.raises(plugline.NotFoundError, match="builtin-git-diff"):
            host.plugin_info("builtin-git-dif")
        with pytest.raises(plugline.NotFoundError):
            host.set_plugin_enabled("nothing", False)


def test_catalog_install_verified_then_remove(home: Path) -> None:
    catalog(home)
    seen: list[tuple[str, int, int]] = []
    with plugline.Host(home=home) as host:
        reports = host.sync_catalogs(lambda url, received, total: seen.append((url, received, total)))
        assert reports[0]["ok"] is True, reports[0]["error"]
        assert reports[0]["plugins"] == 1
        assert seen and seen[0][0].startswith("file://")
        offer = host.available_plugins()
        assert [p["id"] for p in offer["plugins"]] == ["terra"]
        assert offer["plugins"][0]["installed_version"] is None

        record = host.install_plugin("terra")
        assert record["verified"] is True
        assert record["sha256"] == hashlib.sha256(SHAPER.encode()).hexdigest()
        assert (home / "plugins" / "terra.js").read_text() == SHAPER
        info = host.plugin_info("terra")[0]
        assert info["state"] == "enabled"
        assert info["install"]["verified"] is True
        with pytest.raises(plugline.NotFoundError):
            host.install_plugin("terra", "9.9.9")

        with pytest.raises(plugline.InvalidStateError, match="--disable builtin-test"):
            host.remove_plugin("builtin-test")
        assert host.remove_plugin("terra")["id"] == "terra"
        assert not (home / "plugins" / "terra.js").exists()
        assert all(p["id"] != "terra" for p in host.plugins())


def test_a_checksum_mismatch_installs_nothing(home: Path) -> None:
    catalog(home, sha256="a" * 64)
    with plugline.Host(home=home) as host:
        with pytest.raises(plugline.DataLossError, match="checksum mismatch: expected sha256 a{64}, got"):
            host.install_plugin("terra")
        assert not (home / "plugins" / "terra.js").exists()
        # A progress callback that raises: the exception reaches the caller.
        with pytest.raises(RuntimeError, match="stop"):
            host.sync_catalogs(lambda *_: (_ for _ in ()).throw(RuntimeError("stop")))


def test_async_sync_and_install_run_in_a_worker_thread(home: Path) -> None:
    import asyncio
    import threading

    catalog(home)
    threads: set[str] = set()

    def progress(url: str, received: int, total: int) -> None:
        threads.add(threading.current_thread().name)

    async def main() -> None:
        async with plugline.Host(home=home) as host:
            reports = await host.async_catalogs(progress)
            assert reports[0]["ok"] is True, reports[0]["error"]
            record = await host.ainstall_plugin("terra", progress=progress)
            assert record["verified"] is True
            assert (home / "plugins" / "terra.js").read_text() == SHAPER
            with pytest.raises(plugline.NotFoundError):
                await host.ainstall_plugin("terra", "9.9.9")

    asyncio.run(main())
    assert threads and threading.main_thread().name not in threads
