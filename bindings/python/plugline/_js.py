"""plugline.js_call: the experimental entry point that runs one ES module function."""

from __future__ import annotations

import json
import operator
from collections import abc
from typing import Any, Optional, Sequence

from . import _library
from ._errors import call_for_buffer
from ._host import StrPath, _encode_path

_UINT32_LIMIT = 1 << 32


def js_call(module_path: StrPath, function: Optional[str] = None, args: Sequence[Any] = (),
            timeout_ms: int = 0) -> Any:
    """Loads an ES module and calls a function of its default export (experimental).

    The module at ``module_path`` (a relative path is taken from the current directory) is
    loaded in a fresh V8 isolate; imports relative to its directory work. ``function`` names a
    function of the default export, called with the default export as ``this``; None or ""
    calls the default export itself. ``args`` are serialized with :func:`json.dumps` into a
    JSON array, and a returned promise is awaited. The result comes back through
    :func:`json.loads` (``undefined`` becomes None).

    Args:
        module_path: the module file.
        function: the export's function to call, or None for the default export itself.
        args: the arguments, JSON-serializable (NaN and infinities are refused).
        timeout_ms: the time budget of the call, 0 < timeout_ms < 2**32; 0 means the
            library's default, 5000 ms.

    Raises:
        plugline.PluginError: the module threw or did not load; the message has the
            exception and its file:line.
        plugline.TimeoutExpiredError: the budget ran out (the isolate was terminated).
        plugline.NotFoundError: no such file, or no such function.
        plugline.UnavailableError: plugline was built without V8 or cannot load its backend.
        plugline.ResourceExhaustedError: the module hit its heap limit.
        TypeError, ValueError: ``args`` is not a sequence or not JSON-serializable.

    This entry point is outside the C ABI's stability promise. It may be called from several
    threads at once: each call has its own isolate.
    """
    path = _encode_path(module_path, "module_path")
    function_bytes = None
    if function is not None:
        if not isinstance(function, str):
            raise TypeError(f"plugline: function must be str, not {type(function).__name__}")
        function_bytes = function.encode("utf-8")
        if b"\0" in function_bytes:
            raise ValueError("plugline: function contains a NUL character")
    if isinstance(args, (str, bytes, bytearray)) or not isinstance(args, abc.Sequence):
        raise TypeError(f"plugline: args must be a sequence of arguments (a list or tuple), "
                        f"not {type(args).__name__}")
    args_json = json.dumps(list(args), allow_nan=False).encode("ascii")
    timeout = operator.index(timeout_ms)
    if not 0 <= timeout < _UINT32_LIMIT:
        raise ValueError(f"plugline: timeout_ms {timeout} is outside 0..2**32-1")
    data = call_for_buffer(_library.lib().plugline_js_call, path, function_bytes, args_json,
                           len(args_json), timeout)
    return json.loads(data)
