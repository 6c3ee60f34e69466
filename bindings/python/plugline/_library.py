"""Finding and loading libplugline, and describing its C ABI to ctypes.

Nothing outside this module touches ctypes function declarations; the rest of the package
calls through :func:`lib`. The prototypes below mirror ``capi/include/plugline/plugline.h``
exactly; the header is the only interface this binding uses.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

#: The PLUGLINE_ABI_VERSION this binding was written for.
ABI_VERSION = 1

#: PLUGLINE_EXIT_CODE_UNKNOWN: the exit code passed when it is not known.
EXIT_CODE_UNKNOWN = -2147483647 - 1

#: The environment variable naming the library file to load (a full path).
LIBRARY_ENV = "PLUGLINE_LIBRARY"

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

if sys.platform == "darwin":
    _FILE_NAMES = ("libplugline.1.dylib", "libplugline.dylib")
elif sys.platform == "win32":
    _FILE_NAMES = ("plugline.dll",)
else:
    _FILE_NAMES = ("libplugline.so.1", "libplugline.so")


class plugline_shape_options(ctypes.Structure):  # noqa: N801 - the C name, on purpose
    """``struct plugline_shape_options``; ``struct_size`` must be ``ctypes.sizeof`` of it."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("shaper", ctypes.c_char_p),
        ("max_tokens", ctypes.c_uint64),
    ]


#: ``plugline_shape_options.max_tokens`` for a shaping with no token budget.
NO_TOKEN_BUDGET = 2**64 - 1


class plugline_hook_options(ctypes.Structure):  # noqa: N801 - the C name, on purpose
    """``struct plugline_hook_options``; ``struct_size`` must be ``ctypes.sizeof`` of it."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("id", ctypes.c_char_p),
        ("events", ctypes.c_char_p),
        ("fail_closed", ctypes.c_int),
    ]


class plugline_opencode_plugin_options(ctypes.Structure):  # noqa: N801 - the C name
    """``struct plugline_opencode_plugin_options``; ``struct_size`` is ``ctypes.sizeof`` of it."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("id", ctypes.c_char_p),
        ("hooks", ctypes.c_char_p),
        ("tools", ctypes.c_char_p),
        ("fail_closed", ctypes.c_int),
    ]


#: ``plugline_token_count_fn``: uint64_t (*)(const char *text, size_t len, void *user_data).
#: ``text`` is declared as a void pointer so that ctypes does not stop it at a NUL byte.
TOKEN_COUNT_FN = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t,
                                  ctypes.c_void_p)

#: ``plugline_hook_fn``: int (*)(const char *event, const char *payload_json, size_t payload_len,
#: plugline_hook_answer *answer, void *user_data). ``payload_json`` is declared as a void
#: pointer so that ctypes hands over the address and the length decides what is read.
HOOK_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                           ctypes.c_void_p, ctypes.c_void_p)

#: ``plugline_client_fn``: int (*)(const char *path, const char *args_json, size_t args_len,
#: plugline_reply *reply, void *user_data). ``args_json`` is a void pointer, as above.
CLIENT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                             ctypes.c_void_p, ctypes.c_void_p)

#: ``plugline_named_hook_fn``: int (*)(const char *name, const char *input_json, size_t
#: input_len, const char *output_json, size_t output_len, plugline_reply *reply, void
#: *user_data); and ``plugline_tool_fn``, of the same shape (name, args, context). The JSON
#: texts are void pointers, as above.
NAMED_HOOK_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                                 ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                 ctypes.c_void_p)
TOOL_FN = NAMED_HOOK_FN

#: ``plugline_progress_fn``: void (*)(void *user_data, const char *url, uint64_t received,
#: uint64_t total).
PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64,
                               ctypes.c_uint64)

#: The ``user_data_free`` callback type; ``USER_DATA_FREE_FN()`` is a NULL one.
USER_DATA_FREE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_c_int = ctypes.c_int
_c_size_t = ctypes.c_size_t
_c_void_p = ctypes.c_void_p
_c_char_p = ctypes.c_char_p
_out_buffer = ctypes.POINTER(ctypes.c_void_p)
_out_size = ctypes.POINTER(ctypes.c_size_t)

# name: (restype, argtypes). plugline_status is an int-sized enum: declared as c_int.
_PROTOTYPES = {
    "plugline_status_str": (_c_char_p, [_c_int]),
    "plugline_last_error_message": (_c_char_p, []),
    "plugline_version_major": (_c_int, []),
    "plugline_version_minor": (_c_int, []),
    "plugline_version_patch": (_c_int, []),
    "plugline_version_string": (_c_char_p, []),
    "plugline_abi_version": (_c_int, []),
    "plugline_free": (None, [_c_void_p]),
    "plugline_config_new": (_c_int, [_out_buffer]),
    "plugline_config_free": (None, [_c_void_p]),
    "plugline_config_set_home": (_c_int, [_c_void_p, _c_char_p]),
    "plugline_config_set_project_dir": (_c_int, [_c_void_p, _c_char_p]),
    "plugline_config_set_project_trust": (_c_int, [_c_void_p, _c_int]),
    "plugline_config_set_store_outputs": (_c_int, [_c_void_p, _c_int]),
    "plugline_config_set_record_stats": (_c_int, [_c_void_p, _c_int]),
    "plugline_config_set_token_counter": (
        _c_int, [_c_void_p, TOKEN_COUNT_FN, _c_void_p, USER_DATA_FREE_FN]),
    "plugline_host_new": (_c_int, [_out_buffer, _c_void_p]),
    "plugline_host_free": (None, [_c_void_p]),
    "plugline_host_diagnostics": (_c_int, [_out_buffer, _out_size, _c_void_p]),
    "plugline_host_stats": (_c_int, [_out_buffer, _out_size, _c_void_p]),
    "plugline_host_plugins": (_c_int, [_out_buffer, _out_size, _c_void_p]),
    "plugline_host_reload": (_c_int, [_c_void_p]),
    "plugline_plugins_list": (_c_int, [_out_buffer, _out_size, _c_void_p]),
    "plugline_plugins_info": (_c_int, [_out_buffer, _out_size, _c_void_p, _c_char_p]),
    "plugline_plugins_enable": (_c_int, [_c_void_p, _c_char_p]),
    "plugline_plugins_disable": (_c_int, [_c_void_p, _c_char_p]),
    "plugline_plugins_sync": (_c_int, [_out_buffer, _out_size, _c_void_p, PROGRESS_FN, _c_void_p]),
    "plugline_plugins_available": (_c_int, [_out_buffer, _out_size, _c_void_p]),
    "plugline_plugins_install": (
        _c_int, [_out_buffer, _out_size, _c_void_p, _c_char_p, _c_char_p, PROGRESS_FN, _c_void_p]),
    "plugline_plugins_remove": (_c_int, [_out_buffer, _out_size, _c_void_p, _c_char_p]),
    "plugline_host_shape": (
        _c_int, [_out_buffer, _out_size, _c_void_p, _c_char_p, _c_size_t, _c_char_p, _c_size_t,
                 _c_int, ctypes.POINTER(plugline_shape_options)]),
    "plugline_host_dispatch": (
        _c_int, [_out_buffer, _out_size, _c_void_p, _c_char_p, _c_char_p, _c_size_t]),
    "plugline_hook_answer_set": (_c_int, [_c_void_p, _c_char_p, _c_size_t]),
    "plugline_hook_answer_fail": (_c_int, [_c_void_p, _c_char_p]),
    "plugline_host_add_hook": (
        _c_int, [_c_void_p, ctypes.POINTER(plugline_hook_options), HOOK_FN, _c_void_p,
                 USER_DATA_FREE_FN]),
    "plugline_host_remove_hook": (_c_int, [_c_void_p, _c_char_p]),
    "plugline_host_add_opencode_plugin": (
        _c_int, [_c_void_p, ctypes.POINTER(plugline_opencode_plugin_options), NAMED_HOOK_FN,
                 TOOL_FN, _c_void_p, USER_DATA_FREE_FN]),
    "plugline_host_remove_opencode_plugin": (_c_int, [_c_void_p, _c_char_p]),
    "plugline_host_trigger": (
        _c_int, [_out_buffer, _out_size, _c_void_p, _c_char_p, _c_char_p, _c_size_t, _c_char_p,
                 _c_size_t]),
    "plugline_host_tools": (_c_int, [_out_buffer, _out_size, _c_void_p, _c_char_p]),
    "plugline_host_execute_tool": (
        _c_int, [_out_buffer, _out_size, _c_void_p, _c_char_p, _c_char_p, _c_size_t, _c_char_p,
                 _c_size_t]),
    "plugline_reply_set": (_c_int, [_c_void_p, _c_char_p, _c_size_t]),
    "plugline_config_set_client": (
        _c_int, [_c_void_p, CLIENT_FN, _c_void_p, USER_DATA_FREE_FN]),
    "plugline_config_set_server_url": (_c_int, [_c_void_p, _c_char_p]),
    "plugline_config_set_plugin_config": (_c_int, [_c_void_p, _c_char_p]),
    "plugline_js_call": (
        _c_int, [_out_buffer, _out_size, _c_char_p, _c_char_p, _c_char_p, _c_size_t,
                 ctypes.c_uint32]),
}


def _candidates() -> list[tuple[str, str]]:
    """Where to look, in order, as (how it was found, what to pass to dlopen)."""
    explicit = os.environ.get(LIBRARY_ENV)
    if explicit:
        # An explicit choice is the only candidate: silently loading another copy would hide
        # the mistake.
        # Made absolute so that the V8 backend, found next to the library, is still found
        # after the process changes directory.
        return [(f"${LIBRARY_ENV}", os.path.abspath(explicit))]
    candidates = [("next to the package", os.path.join(_PACKAGE_DIR, name))
                  for name in _FILE_NAMES]
    found = ctypes.util.find_library("plugline")
    if found:
        candidates.append(('ctypes.util.find_library("plugline")', found))
    candidates.append(("the dynamic loader's search path", _FILE_NAMES[0]))
    return candidates


def _declare(library: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in _PROTOTYPES.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes


def check_abi(library: ctypes.CDLL, path: str) -> None:
    """Raises ImportError unless ``library`` speaks the ABI this binding was written for."""
    found = library.plugline_abi_version()
    if found != ABI_VERSION:
        raise ImportError(
            f"plugline: {path} has C ABI version {found}, but this Python binding was written "
            f"for ABI version {ABI_VERSION}; install a matching libplugline or binding "
            f"(set ${LIBRARY_ENV} to choose the library file)")


def _load() -> tuple[ctypes.CDLL, str]:
    tried = []
    for how, path in _candidates():
        is_file_path = os.sep in path
        if is_file_path and not os.path.exists(path):
            tried.append(f"{path} ({how}: no such file)")
            continue
        try:
            library = ctypes.CDLL(path)
        except OSError as error:
            tried.append(f"{path} ({how}: {error})")
            continue
        try:
            _declare(library)
        except AttributeError as error:
            tried.append(f"{path} ({how}: not libplugline: {error})")
            continue
        check_abi(library, path)
        return library, path
    raise ImportError(
        "plugline: cannot load the plugline shared library; tried: " + "; ".join(tried)
        + f". Set ${LIBRARY_ENV} to the full path of libplugline.so, or put the library "
        "on the loader's search path (LD_LIBRARY_PATH).")


_library, _library_path = _load()


def lib() -> ctypes.CDLL:
    """The loaded library, with every function of the C ABI declared."""
    return _library


def library_path() -> str:
    """The file (or soname) the library was loaded from."""
    return _library_path
