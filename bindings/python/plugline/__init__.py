"""plugline for Python: output shaping and plugins for AI-agent hosts, over plugline's C ABI.

Pure Python over ctypes: this package loads libplugline (``$PLUGLINE_LIBRARY``, a copy next
to this package, ``ctypes.util.find_library("plugline")``, then ``libplugline.so.1``) and
checks at import that the library speaks C ABI version :data:`ABI_VERSION`; if it cannot
find a suitable library, importing raises ImportError saying what it tried.

Example::

    import plugline

    with plugline.Host(home="/tmp/plugline-home") as host:
        result = host.shape("make", output_bytes, exit_code=0)
    print(result["summary"])

Every failure of the library raises :class:`plugline.Error` (or a subclass, one per status
code) with ``.status``, ``.name`` and ``.message``.

Thread safety: the module functions may be called from any thread, and a :class:`Host` may
be used from several threads at once.
"""

from __future__ import annotations

from . import _library
from ._errors import (
    AlreadyExistsError,
    CancelledError,
    DataLossError,
    Error,
    InternalError,
    InvalidArgumentError,
    InvalidStateError,
    NotFoundError,
    PermissionDeniedError,
    PluginError,
    ResourceExhaustedError,
    Status,
    TimeoutExpiredError,
    UnavailableError,
    status_name,
)
from ._host import Host, PluginTool, TokenCounterWarning
from ._js import js_call
from ._types import (Availability, AvailablePlugin, CatalogSyncReport, DispatchResult,
                     InstallRecord, PluginInfo, PluginInstall, PluginStats, ShapeResult,
                     TriggerResult)

__all__ = [
    "ABI_VERSION",
    "AlreadyExistsError",
    "Availability",
    "AvailablePlugin",
    "CancelledError",
    "CatalogSyncReport",
    "DataLossError",
    "DispatchResult",
    "EXIT_CODE_UNKNOWN",
    "Error",
    "Host",
    "InstallRecord",
    "InternalError",
    "InvalidArgumentError",
    "InvalidStateError",
    "NotFoundError",
    "PermissionDeniedError",
    "PluginError",
    "PluginInfo",
    "PluginInstall",
    "PluginStats",
    "PluginTool",
    "ResourceExhaustedError",
    "ShapeResult",
    "Status",
    "TimeoutExpiredError",
    "TokenCounterWarning",
    "TriggerResult",
    "UnavailableError",
    "abi_version",
    "js_call",
    "library_path",
    "status_name",
    "version",
    "version_info",
]

#: The version of this binding.
__version__ = "0.1.0"

#: The C ABI version this binding was written for (PLUGLINE_ABI_VERSION).
ABI_VERSION = _library.ABI_VERSION

#: What :meth:`Host.shape` passes for ``exit_code=None`` (PLUGLINE_EXIT_CODE_UNKNOWN).
EXIT_CODE_UNKNOWN = _library.EXIT_CODE_UNKNOWN


def version() -> str:
    """The loaded library's version, ``"0.1.0"`` (``plugline_version_string``)."""
    return _library.lib().plugline_version_string().decode("ascii")


def version_info() -> tuple[int, int, int]:
    """The loaded library's version as (major, minor, patch)."""
    lib = _library.lib()
    return (lib.plugline_version_major(), lib.plugline_version_minor(),
            lib.plugline_version_patch())


def abi_version() -> int:
    """The C ABI version of the loaded library (``plugline_abi_version``); equal to
    :data:`ABI_VERSION`, or the import would have failed."""
    return _library.lib().plugline_abi_version()


def library_path() -> str:
    """The file the library was loaded from (or the soname, when the loader found it)."""
    return _library.library_path()
