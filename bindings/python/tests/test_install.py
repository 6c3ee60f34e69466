"""The package installs from the tree with pip, offline, and works from where it was installed:
``pip install --no-index --no-build-isolation ./bindings/python`` (setuptools and wheel from
Debian), then a fresh interpreter that sees only the installed copy."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

SCRIPT = r'''
import asyncio, json, pathlib, pydoc, sys
import plugline
where = pathlib.Path(plugline.__file__).parent
assert str(where).startswith(sys.argv[1]), where
assert (where / "py.typed").is_file()
doc = pydoc.render_doc(plugline.Host.adispatch, renderer=pydoc.plaintext)
assert "worker thread" in doc, doc

async def main():
    async with plugline.Host(home=sys.argv[2]) as host:
        async def guard(event, payload):
            return {"deny": True, "reason": "installed and async"}
        host.add_hook("guard", ["pre_tool_call"], guard)
        decision = await host.adispatch("pre_tool_call", {"tool": "t", "arguments": "{}"})
        shaped = host.shape("seq 1 300", "".join(f"{i}\n" for i in range(1, 301)), 0)
        return decision, shaped

decision, shaped = asyncio.run(main())
print(json.dumps({"reason": decision["reason"], "shaper": shaped["shaper"],
                  "version": plugline.version()}))
'''


def test_pip_installs_the_tree_offline_and_it_works(tmp_path: Path) -> None:
    source = tmp_path / "source"
    # A copy, so that the build's scratch files (build/, *.egg-info) stay out of the tree.
    shutil.copytree(REPO_ROOT / "bindings" / "python", source,
                    ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    site = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--no-build-isolation",
         "--no-cache-dir", "--disable-pip-version-check", "--target", str(site), str(source)],
        capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (site / "plugline" / "py.typed").is_file()
    assert (site / "plugline-0.1.0.dist-info").is_dir()

    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)  # the installed copy only, not the tree
    ran = subprocess.run([sys.executable, "-c", SCRIPT, str(site), str(tmp_path / "home")],
                         capture_output=True, text=True, timeout=120, env=env,
                         cwd=str(tmp_path))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    result = ran.stdout.strip().splitlines()[-1]
    assert '"reason": "installed and async"' in result
    assert '"shaper": "builtin-generic"' in result
