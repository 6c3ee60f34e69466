"""Broken fail-closed plugins and project trust through the Python binding: real exec plugins in
a temporary home and project, real processes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import plugline

RM = {"session_id": "ses_1", "tool": "terminal", "arguments": json.dumps({"command": "rm -rf /"})}


def exec_plugin(directory: Path, name: str, body: str, hooks: str = "[pre_tool_call]",
                extra_yaml: str = "", mode: int = 0o755) -> Path:
    directory.mkdir(parents=True)
    (directory / "plugin.yaml").write_text(
        f"name: {name}\ncommand: ./run.sh\nhooks: {hooks}\n{extra_yaml}")
    script = directory / "run.sh"
    script.write_text(f"#!/bin/sh\ncat >/dev/null\n{body}\n")
    script.chmod(mode)
    return directory


def entry(host: plugline.Host, plugin_id: str) -> dict[str, Any]:
    found = [p for p in host.plugins() if p["id"] == plugin_id]
    assert found, host.plugins()
    return found[-1]


def test_a_broken_fail_closed_guard_denies_and_is_listed(home: Path) -> None:
    exec_plugin(home / "plugins" / "guard", "guard", "echo '{}'", extra_yaml="on_error: closed\n",
                mode=0o644)
    exec_plugin(home / "plugins" / "lenient", "lenient", "echo '{}'", mode=0o644)
    with plugline.Host(home=home) as host:
        result = host.dispatch("pre_tool_call", RM)
        observed = host.dispatch("session_start", {"session_id": "s"})
    assert result["denied"] is True
    assert result["denied_by"] == "guard"
    assert "plugin guard is broken and fails closed" in result["reason"]
    assert "not executable" in result["reason"]
    assert [b["plugin"] for b in result["broken"]] == ["guard", "lenient"]
    assert all("not executable" in b["reason"] for b in result["broken"])
    assert observed["denied"] is False
    assert len(observed["broken"]) == 2


def test_a_project_is_inert_until_trusted(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    marker = tmp_path / "ran"
    exec_plugin(project / ".plugline" / "plugins" / "p", "p", f"touch '{marker}'\necho '{{}}'")
    with plugline.Host(home=home, project_dir=project) as host:  # the store: nothing trusted
        assert host.dispatch("pre_tool_call", RM)["plugins"] == []
        assert entry(host, "p")["state"] == "untrusted"
        assert f"plugline trust {project.resolve()}" in entry(host, "p")["reason"]
        diagnostics = host.diagnostics()
    assert not marker.exists()
    assert len(diagnostics) == 1
    assert "is not trusted" in diagnostics[0]

    with plugline.Host(home=home, project_dir=project, project_trust=False) as host:
        assert host.dispatch("pre_tool_call", RM)["plugins"] == []
    assert not marker.exists()

    with plugline.Host(home=home, project_dir=project, project_trust=True) as host:
        assert [p["plugin"] for p in host.dispatch("pre_tool_call", RM)["plugins"]] == ["p"]
        assert entry(host, "p")["state"] == "enabled"
    assert marker.exists()

    with pytest.raises(TypeError):
        plugline.Host(home=home, project_dir=project, project_trust="yes")  # type: ignore[arg-type]


def cli() -> Path:
    """The plugline command line built beside the library under test."""
    library = os.environ.get("PLUGLINE_LIBRARY")
    if not library:
        pytest.skip("PLUGLINE_LIBRARY is not set")
    binary = Path(library).resolve().parent.parent / "bin" / "plugline"
    if not binary.exists():
        pytest.skip(f"no plugline command line at {binary}")
    return binary


def test_the_trust_store_applies_by_default(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    marker = tmp_path / "ran"
    exec_plugin(project / ".plugline" / "plugins" / "p", "p", f"touch '{marker}'\necho '{{}}'")
    subprocess.run([str(cli()), "trust", str(project)], check=True, capture_output=True,
                   env={**os.environ, "PLUGLINE_HOME": str(home)})
    with plugline.Host(home=home, project_dir=project) as host:
        assert [p["plugin"] for p in host.dispatch("pre_tool_call", RM)["plugins"]] == ["p"]
    assert marker.exists()
    # A changed file needs trusting again.
    marker.unlink()
    (project / ".plugline" / "plugins" / "p" / "run.sh").write_text("#!/bin/sh\necho '{}'\n")
    with plugline.Host(home=home, project_dir=project) as host:
        assert host.dispatch("pre_tool_call", RM)["plugins"] == []
        assert "changed since it was trusted" in entry(host, "p")["reason"]


def test_a_trusted_project_cannot_disable_a_protected_guard(home: Path, tmp_path: Path) -> None:
    exec_plugin(home / "plugins" / "guard", "guard", "echo '{\"deny\":true,\"reason\":\"no\"}'",
                extra_yaml="on_error: closed\n")
    project = tmp_path / "project"
    (project / ".plugline").mkdir(parents=True)
    (project / ".plugline" / "config.yaml").write_text(
        "plugins:\n  enabled: false\n  overrides:\n    guard: {enabled: false}\n")
    with plugline.Host(home=home, project_dir=project, project_trust=True) as host:
        result = host.dispatch("pre_tool_call", RM)
        guard = entry(host, "guard")
        diagnostics = host.diagnostics()
    assert result["denied_by"] == "guard"
    assert guard["protected"] is True
    assert any("a project cannot change a protected global plugin" in w for w in guard["warnings"])
    assert any("a project cannot change a protected global plugin" in d for d in diagnostics)
