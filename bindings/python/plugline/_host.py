"""plugline.Host: a plugline host handle, and the token-counter bridge."""

from __future__ import annotations

import contextlib
import ctypes
import json
import operator
import os
import threading
import warnings
from typing import Any, Callable, Iterator, Optional, Union

from . import _library
from ._errors import InvalidStateError, Status, call_for_buffer, check

StrPath = Union[str, "os.PathLike[str]", bytes]
TokenCounter = Callable[[str], int]

_UINT64_LIMIT = 1 << 64
_INT32_MIN = -(1 << 31)
_INT32_MAX = (1 << 31) - 1


class TokenCounterWarning(RuntimeWarning):
    """The host's token counter raised or returned something that is not a token count.

    plugline was given an estimate instead (about one token per four bytes, rounded up) and
    the shaping call went on. The exception is in :attr:`exception`.
    """

    def __init__(self, exception: BaseException) -> None:
        super().__init__(
            f"plugline: the token counter failed ({exception!r}); "
            "used an estimate of one token per 4 bytes instead")
        self.exception = exception


class _TokenCounterBridge:
    """Wraps a Python callable as a ``plugline_token_count_fn``.

    A Python exception must never unwind through C, so the callback catches everything,
    returns an estimate, and records the exception for the thread that is shaping (the library
    calls the counter on that thread, inside plugline_host_shape). :meth:`take_failures` hands
    the records to that thread once the C call has returned.
    """

    def __init__(self, function: TokenCounter) -> None:
        local = threading.local()

        def count(text: Optional[int], length: int, _user_data: Optional[int]) -> int:
            data = b""
            try:
                if text and length:
                    data = ctypes.string_at(text, length)
                # The raw output may be any bytes; the counter is given text, so bytes that
                # are not UTF-8 become U+FFFD.
                answer = function(data.decode("utf-8", "replace"))
                if isinstance(answer, bool):
                    raise TypeError("the token counter returned a bool, not an int")
                answer = operator.index(answer)
                if not 0 <= answer < _UINT64_LIMIT:
                    raise ValueError(f"the token counter returned {answer}, outside 0..2**64-1")
                return answer
            except BaseException as exception:  # noqa: B902 - nothing may unwind into C
                failures = getattr(local, "failures", None)
                if failures is None:
                    failures = local.failures = []
                failures.append(exception)
                return (len(data) + 3) // 4

        self._local = local
        # The library holds only the raw function pointer: the owner of this bridge (the
        # Host) keeps it alive until the library no longer uses it. A closure rather than a
        # bound method, so that no reference cycle delays releasing the counter.
        self.c_function = _library.TOKEN_COUNT_FN(count)

    def take_failures(self) -> list[BaseException]:
        """The exceptions recorded on this thread since the last call, oldest first."""
        failures = getattr(self._local, "failures", None) or []
        self._local.failures = []
        return failures


def _encode_path(path: StrPath, what: str) -> bytes:
    encoded = os.fsencode(path)
    if b"\0" in encoded:
        raise ValueError(f"plugline: {what} contains a NUL byte")
    return encoded


def _encode_command(command: Union[str, bytes]) -> bytes:
    if isinstance(command, str):
        # 'surrogatepass' turns a lone surrogate into bytes that are not UTF-8, so the library
        # itself rejects such a command, with PLUGLINE_EINVALID, like any other non-UTF-8 one.
        return command.encode("utf-8", "surrogatepass")
    if isinstance(command, (bytes, bytearray, memoryview)):
        return bytes(command)
    raise TypeError(f"plugline: command must be str or bytes, not {type(command).__name__}")


def _encode_output(output: Union[str, bytes]) -> bytes:
    if isinstance(output, str):
        # Text decoded with errors='surrogateescape' (as os.fsdecode and subprocess can do)
        # comes back to the bytes it was read from.
        return output.encode("utf-8", "surrogateescape")
    if isinstance(output, (bytes, bytearray, memoryview)):
        return bytes(output)
    raise TypeError(f"plugline: output must be str or bytes, not {type(output).__name__}")


class Host:
    """A plugline host: configuration, the raw-output store and the shapers.

    Args:
        home: the state directory (``config.yaml``, ``plugins/``, ``outputs/``). None: the
            library's default, ``$PLUGLINE_HOME`` or else ``~/.plugline``.
        project_dir: a project directory whose ``.plugline/`` adds configuration and
            plugins. None: no project.
        store_outputs: True (default) stores every raw output under ``<home>/outputs`` and
            lets summaries point at it. False: the host keeps raw outputs itself; nothing is
            elided and ``raw_path`` is None.
        token_counter: ``callable(text: str) -> int`` counting tokens the way the host's
            model does. None: plugline's estimate. It is called from inside :meth:`shape`,
            on the calling thread, and must not call into this host. If it raises or returns
            something other than a non-negative int, the count falls back to an estimate
            (bytes / 4), the shape call goes on, and :meth:`shape` issues a
            :class:`TokenCounterWarning` carrying the exception (a ``KeyboardInterrupt`` or
            ``SystemExit`` is re-raised instead, once the C call has returned).

    Raises:
        plugline.Error: the library refused (e.g. ``InvalidStateError`` when no home
            directory can be found). Problems in configuration files do not raise: see
            :meth:`diagnostics`.

    Thread safety: a Host may be used from several threads at once; the library does the
    locking, and the GIL is released while it works. :meth:`close` waits for calls running in
    other threads to return. A Host is also a context manager that closes it on exit.
    """

    def __init__(self, home: Optional[StrPath] = None, project_dir: Optional[StrPath] = None,
                 store_outputs: bool = True,
                 token_counter: Optional[TokenCounter] = None,
                 record_stats: bool = True) -> None:
        self._handle: Optional[int] = None  # first, so that __del__ works if we fail below
        self._free = _library.lib().plugline_host_free
        self._cond = threading.Condition()
        self._closed = False
        self._active: dict[int, int] = {}  # thread id -> calls it is running on this host
        self._counter: Optional[_TokenCounterBridge] = None

        home_bytes = None if home is None else _encode_path(home, "home")
        project_bytes = None if project_dir is None else _encode_path(project_dir, "project_dir")
        if token_counter is not None and not callable(token_counter):
            raise TypeError("plugline: token_counter must be callable(str) -> int")
        counter = None if token_counter is None else _TokenCounterBridge(token_counter)

        lib = _library.lib()
        config = ctypes.c_void_p()
        check(lib.plugline_config_new(ctypes.byref(config)))
        try:
            if home_bytes is not None:
                check(lib.plugline_config_set_home(config, home_bytes))
            if project_bytes is not None:
                check(lib.plugline_config_set_project_dir(config, project_bytes))
            check(lib.plugline_config_set_store_outputs(config, 1 if store_outputs else 0))
            check(lib.plugline_config_set_record_stats(config, 1 if record_stats else 0))
            if counter is not None:
                # No user_data: the bridge object itself outlives the host (see close()).
                check(lib.plugline_config_set_token_counter(
                    config, counter.c_function, None, _library.USER_DATA_FREE_FN()))
            handle = ctypes.c_void_p()
            check(lib.plugline_host_new(ctypes.byref(handle), config))
        finally:
            lib.plugline_config_free(config)
        self._counter = counter
        self._handle = handle.value

    # -- lifetime ---------------------------------------------------------------------------

    def close(self) -> None:
        """Releases the host. Idempotent. Calls running in other threads are waited for; any
        call made afterwards raises :class:`plugline.InvalidStateError`."""
        thread = threading.get_ident()
        with self._cond:
            if self._handle is None:
                return
            if thread in self._active:
                raise InvalidStateError(
                    Status.ESTATE,
                    "Host.close() called from inside a call on the same host (from the token "
                    "counter?)")
            self._closed = True
            while self._active:
                self._cond.wait()
            if self._handle is None:  # another thread's close() finished first
                return
            handle, self._handle = self._handle, None
        self._free(handle)
        # The library no longer holds the function pointer: the callback may go.
        self._counter = None

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has been called."""
        return self._closed or self._handle is None

    def __enter__(self) -> Host:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        # No call can be running: each one holds a reference to this object. Touches nothing
        # but its own attributes, so it is safe during interpreter shutdown.
        handle = getattr(self, "_handle", None)
        if handle is not None:
            self._handle = None
            self._free(handle)

    def __repr__(self) -> str:
        return f"<plugline.Host {'closed' if self.closed else 'open'}>"

    @contextlib.contextmanager
    def _use(self) -> Iterator[int]:
        """Holds the handle open for one call; raises if the host is closed."""
        thread = threading.get_ident()
        with self._cond:
            if self._closed or self._handle is None:
                raise InvalidStateError(Status.ESTATE, "the Host is closed")
            handle = self._handle
            self._active[thread] = self._active.get(thread, 0) + 1
        try:
            yield handle
        finally:
            with self._cond:
                self._active[thread] -= 1
                if not self._active[thread]:
                    del self._active[thread]
                if not self._active:
                    self._cond.notify_all()

    # -- calls ------------------------------------------------------------------------------

    def diagnostics(self) -> list[str]:
        """Problems found while opening the host (a malformed or unreadable config file, an
        unknown key), one message each, each naming the file. Empty when there were none."""
        lib = _library.lib()
        with self._use() as handle:
            data = call_for_buffer(lib.plugline_host_diagnostics, handle)
        return json.loads(data)

    def stats(self) -> dict[str, Any]:
        """Per-shaper statistics of this host's state directory (docs/stats.md): for each
        shaper ``match_count``, ``shape_count``, ``fail_count``, ``tokens_saved`` (negative
        when its summaries were larger than the raw output), ``shape_ms_total`` and
        ``average_shape_ms``, plus a ``daily`` time series. Counts come from every process
        that used the same home."""
        lib = _library.lib()
        with self._use() as handle:
            data = call_for_buffer(lib.plugline_host_stats, handle)
        return json.loads(data)

    def plugins(self) -> list[dict[str, Any]]:
        """Every shaper this host can use — built-ins and the plugins in its plugin
        directories — as dicts with ``id``, ``kind`` ("builtin-shaper", "js-shaper"),
        ``tier``, ``state`` ("enabled", "disabled", "broken", "shadowed"), ``reason`` (why it
        is not enabled, e.g. a syntax error with file and line), ``path``, ``source``,
        ``version`` and ``description``. Loads plugins not loaded yet."""
        lib = _library.lib()
        with self._use() as handle:
            data = call_for_buffer(lib.plugline_host_plugins, handle)
        return json.loads(data)["plugins"]

    def reload(self) -> None:
        """Re-reads configuration and rescans plugin directories: new and changed plugins
        load on next use, unchanged ones stay loaded."""
        lib = _library.lib()
        with self._use() as handle:
            check(lib.plugline_host_reload(handle))

    def shape(self, command: Union[str, bytes], output: Union[str, bytes],
              exit_code: Optional[int] = None, shaper: Optional[str] = None) -> dict[str, Any]:
        """Shapes one command's output into what the model should read.

        Args:
            command: the command line as the agent ran it. Must be UTF-8: bytes that are not,
                or a str with a lone surrogate, are rejected with
                :class:`plugline.InvalidArgumentError` (PLUGLINE_EINVALID).
            output: everything it printed, stdout and stderr interleaved. bytes are passed as
                they are (NUL bytes and invalid UTF-8 included) and stored byte for byte; a
                str is encoded UTF-8 with ``errors='surrogateescape'``.
            exit_code: its exit code; None when unknown (killed, still running).
            shaper: a shaper id (``"builtin-generic"``) or name to use instead of letting the
                shapers' ``match()`` choose; an unknown one raises
                :class:`plugline.InvalidArgumentError` naming it.

        Returns:
            The result as a dict: ``summary``, ``render_mode`` (``"summary"`` or ``"raw"``),
            ``shaper``, ``confidence``, ``raw_path`` (None when not stored), ``raw_bytes``,
            ``raw_lines``, ``tokens_raw``, ``tokens_summary``, ``fallback`` (None, or why the
            summary is not the shaper's), ``skipped`` (shapers whose ``match()`` failed:
            dicts with ``plugin``, ``why``, ``detail``). Text in the result is valid UTF-8; bytes of the
            output that are not are shown as U+FFFD.

        Raises:
            plugline.Error: the library refused the call (see above), or the host is closed
                (:class:`plugline.InvalidStateError`).

        Thread safety: may be called from several threads at once.
        """
        command_bytes = _encode_command(command)
        output_bytes = _encode_output(output)
        if exit_code is None:
            code = _library.EXIT_CODE_UNKNOWN
        else:
            code = operator.index(exit_code)
            if not _INT32_MIN <= code <= _INT32_MAX:
                raise ValueError(f"plugline: exit_code {code} does not fit in a C int")
        options = None
        if shaper is not None:
            if not isinstance(shaper, str):
                raise TypeError(f"plugline: shaper must be str, not {type(shaper).__name__}")
            shaper_bytes = shaper.encode("utf-8", "surrogatepass")
            if b"\0" in shaper_bytes:
                raise ValueError("plugline: shaper contains a NUL character")
            options = _library.plugline_shape_options(
                ctypes.sizeof(_library.plugline_shape_options), shaper_bytes)

        lib = _library.lib()
        counter = self._counter
        try:
            with self._use() as handle:
                data = call_for_buffer(
                    lib.plugline_host_shape, handle, command_bytes, len(command_bytes),
                    output_bytes, len(output_bytes), code,
                    None if options is None else ctypes.byref(options))
        finally:
            if counter is not None:
                _surface(counter.take_failures())
        return json.loads(data)


def _surface(failures: list[BaseException]) -> None:
    """Re-raises an interrupt the token counter swallowed; warns about anything else."""
    for failure in failures:
        if not isinstance(failure, Exception):
            raise failure
    for failure in failures:
        warnings.warn(TokenCounterWarning(failure), stacklevel=3)
