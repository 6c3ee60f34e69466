"""The shapes of what a :class:`plugline.Host` returns, for type checkers and readers.

They are ``TypedDict`` classes: at run time every result is a plain ``dict`` decoded from the
C ABI's JSON, so ``result["summary"]`` works as before, and a type checker knows each key and
its type. Every key listed is always present (``None`` where the JSON has null).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict


class SkippedShaper(TypedDict):
    plugin: str
    why: str  # "match() failed" | "match() timed out"
    detail: str


class ShapeResult(TypedDict):
    """What :meth:`Host.shape` returns (docs/shaping.md)."""
    summary: str
    render_mode: str  # "summary" | "raw"
    shaper: str
    confidence: float
    raw_path: Optional[str]
    raw_bytes: int
    raw_lines: int
    raw_stored_bytes: int
    shaped_bytes: int
    tokens_raw: int
    tokens_summary: int
    tokens_saved: int  # negative when the summary was larger than the output
    token_counter: str  # "o200k_base" | "cl100k_base" | "estimate" | "host"
    max_tokens: int
    budget_lines_left_out: int
    secrets_masked: bool  # the output held secrets, masked in the summary and the raw file
    fallback: Optional[str]
    skipped: List[SkippedShaper]


class Notice(TypedDict):
    plugin: str
    text: str


class SkippedHook(TypedDict):
    plugin: str
    why: str
    detail: str


class HookRecord(TypedDict):
    plugin: str
    action: str
    ms: float


class DispatchWarning(TypedDict):
    plugin: Optional[str]
    text: str


class BrokenPlugin(TypedDict):
    plugin: str
    reason: str


class DispatchResult(TypedDict):
    """What :meth:`Host.dispatch` returns (docs/hooks.md)."""
    event: str
    denied: bool
    denied_by: Optional[str]
    reason: Optional[str]
    arguments: Optional[str]
    result: Optional[str]
    notices: List[Notice]
    skipped: List[SkippedHook]
    plugins: List[HookRecord]
    warnings: List[DispatchWarning]
    broken: List[BrokenPlugin]


class PluginStats(TypedDict):
    match_count: int
    shape_count: int
    fail_count: int
    tokens_saved: int
    average_shape_ms: float


class PluginInstall(TypedDict):
    """Where a plugin installed from a catalog came from (docs/managing-plugins.md)."""
    version: str
    catalog: str
    url: str
    sha256: str
    size: int
    verified: bool
    signed: bool
    installed_at: str
    author: str
    homepage: str
    isolation: str
    path: str


class PluginInfo(TypedDict):
    """One plugin of :meth:`Host.plugins` (docs/managing-plugins.md, "--json")."""
    id: str
    kind: str  # "builtin-shaper" | "js-shaper" | "exec-hook" | "opencode" | "native-hook"
    tier: Optional[str]
    state: str  # "enabled" | "disabled" | "broken" | "shadowed" | "untrusted"
    reason: Optional[str]
    path: Optional[str]
    source: str
    runtime: Optional[str]  # a loaded JS plugin's: "node" | "sandboxed"
    version: Optional[str]
    description: Optional[str]
    events: List[str]
    warnings: List[str]
    protected: bool
    install: Optional[PluginInstall]
    stats: Optional[PluginStats]


class InstallRecord(TypedDict):
    """What :meth:`Host.install_plugin` and :meth:`Host.remove_plugin` return."""
    id: str
    previous_version: Optional[str]
    version: str
    catalog: str
    url: str
    sha256: str
    size: int
    verified: bool
    signed: bool
    installed_at: str
    author: str
    homepage: str
    isolation: str
    path: str


class CatalogSyncReport(TypedDict):
    url: str
    ok: bool
    error: Optional[str]
    not_modified: bool
    plugins: int
    signature_verified: bool
    skipped: List[str]


class AvailablePlugin(TypedDict):
    id: str
    name: str
    version: str
    tier: str
    kind: str
    description: str
    author: str
    homepage: str
    catalog: str
    installed_version: Optional[str]
    update_available: bool


class Availability(TypedDict):
    catalogs: List[Dict[str, Any]]
    plugins: List[AvailablePlugin]


class TriggerError(TypedDict):
    plugin: str
    message: str


class TriggerResult(TypedDict):
    """What :meth:`Host.trigger` returns."""
    name: str
    output: Dict[str, Any]
    errors: List[TriggerError]
    plugins: List[Dict[str, Any]]
