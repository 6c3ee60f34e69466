"""plugline.Host: a plugline host handle, and the token-counter and native-hook bridges."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import functools
import inspect
import json
import operator
import os
import threading
import warnings
from collections import abc
from typing import (Any, Awaitable, Callable, Dict, Iterable, Iterator, List, Mapping, Optional,
                    TypeVar, Union)

from . import _library
from ._errors import InvalidStateError, Status, call_for_buffer, check
from ._types import (Availability, CatalogSyncReport, DispatchResult, InstallRecord, PluginInfo,
                     ShapeResult, TriggerResult)

StrPath = Union[str, "os.PathLike[str]", bytes]
TokenCounter = Callable[[str], int]
#: A native hook: ``function(event, payload) -> answer or None`` — or an ``async def`` one,
#: awaited when the dispatch is :meth:`Host.adispatch`.
HookFunction = Callable[[str, Dict[str, Any]],
                        Union[Optional[Dict[str, Any]], Awaitable[Optional[Dict[str, Any]]]]]
#: The client of OpenCode plugins: ``function(path, args) -> a JSON-able answer`` (or an
#: ``async def`` one, awaited under the host's ``a*`` methods).
ClientFunction = Callable[[str, List[Any]], Any]

#: An OpenCode hook of a plugin the host runs: ``hook(input, output)`` changes ``output`` in
#: place (``config`` gets only the output); what it raises is the hook's throw.
OpenCodeHook = Callable[[Dict[str, Any], Dict[str, Any]], Any]


class PluginTool:
    """A tool of a plugin the host runs (:meth:`Host.add_plugin`).

    ``execute(args, context)`` gets the arguments (a dict) and the call's context
    (``sessionID``, ``messageID``, ``agent``, ``directory``, ``worktree``) and returns the
    output: a str, or a dict with ``"output"`` (and optionally ``"title"`` and ``"metadata"``);
    what it raises makes the result ``ok: False`` with the error. It may be an ``async def``,
    awaited under :meth:`Host.aexecute_tool`. ``parameters`` is its arguments' JSON Schema.
    """

    def __init__(self, execute: Callable[[Dict[str, Any], Dict[str, Any]], Any],
                 description: str = "", parameters: Optional[Mapping[str, Any]] = None) -> None:
        if not callable(execute):
            raise TypeError("plugline: PluginTool.execute must be callable(args, context)")
        self.execute = execute
        self.description = str(description)
        self.parameters = dict(parameters) if parameters is not None else {
            "type": "object", "properties": {}}

    def __repr__(self) -> str:
        return f"PluginTool(description={self.description!r})"


_T = TypeVar("_T")

#: How long an async native hook or client is awaited by default, in seconds.
DEFAULT_CALLBACK_TIMEOUT = 5.0

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


class _HookBridge:
    """Wraps a Python callable as a ``plugline_hook_fn``.

    The library calls it on the thread that runs :meth:`Host.dispatch`, inside the C call. A
    Python exception must never unwind through C: anything the function raises (or an answer
    that is not a dict or None, or not JSON-serializable) becomes the hook's failure, through
    ``plugline_hook_answer_fail`` and a non-zero return, which the library reports under
    ``skipped`` (or as a deny when the hook fails closed). A ``KeyboardInterrupt`` or
    ``SystemExit`` is also recorded in ``state.interrupts``, for :meth:`Host.dispatch` to
    re-raise once the C call has returned.

    ``state`` is the host's per-thread hook state: ``depth`` counts the hook calls running on
    this thread, so that the host can refuse a call back into itself from inside one.
    """

    def __init__(self, function: HookFunction, state: threading.local,
                 timeout: float = DEFAULT_CALLBACK_TIMEOUT) -> None:
        # Looked up once, not on every call.
        lib = _library.lib()
        answer_set = lib.plugline_hook_answer_set
        answer_fail = lib.plugline_hook_answer_fail

        def call(event: Optional[bytes], payload: Optional[int], length: int,
                 answer: Optional[int], _user_data: Optional[int]) -> int:
            try:
                state.depth = getattr(state, "depth", 0) + 1
                try:
                    data = ctypes.string_at(payload, length) if payload and length else b"{}"
                    reply = function((event or b"").decode("utf-8", "replace"), json.loads(data))
                    reply = _settle(reply, state, "the hook", timeout)
                    if reply is None:
                        return 0  # no opinion
                    if not isinstance(reply, abc.Mapping):
                        raise TypeError(f"the hook returned {type(reply).__name__}, not a dict "
                                        "or None")
                    text = json.dumps(dict(reply), allow_nan=False).encode("ascii")
                finally:
                    state.depth -= 1
                # An answer the library refuses (a "deny" that is not a bool, ...) makes it
                # skip the hook with its own reason: nothing more to do here.
                answer_set(answer, text, len(text))
                return 0
            except BaseException as exception:  # noqa: B902 - nothing may unwind into C
                try:
                    _record_interrupt(state, exception)
                    answer_fail(answer, _describe_exception(exception))
                except BaseException:  # noqa: B902 - the library's own message will do
                    pass
                return 1

        # The library holds only the raw function pointer: the Host keeps this bridge alive
        # for as long as the library may call it (see Host.remove_hook).
        self.c_function = _library.HOOK_FN(call)


class _ClientBridge:
    """Wraps a Python callable as a ``plugline_client_fn``: what an OpenCode plugin's
    ``client.<path>(...args)`` reaches.

    The library calls it on the thread running the plugin's hook (the thread inside
    :meth:`Host.trigger`, :meth:`Host.dispatch`, ... or, for a ``config`` or ``dispose`` hook,
    the call that loads or releases plugins). A Python exception must never unwind through
    C: anything the function raises (or an answer that is not JSON-serializable) is replied
    as a JSON string ``"ExceptionType: message"`` with a non-zero return, which rejects the
    plugin's promise with that message. A ``KeyboardInterrupt`` or ``SystemExit`` is also
    recorded in ``state.interrupts``, for the host to re-raise once the C call has returned.
    While the function runs, ``state.depth`` is raised, so that a call back into the host is
    refused (as from a native hook).
    """

    def __init__(self, function: ClientFunction, state: threading.local,
                 timeout: float = DEFAULT_CALLBACK_TIMEOUT) -> None:
        reply_set = _library.lib().plugline_reply_set

        def call(path: Optional[bytes], args: Optional[int], length: int,
                 reply: Optional[int], _user_data: Optional[int]) -> int:
            try:
                state.depth = getattr(state, "depth", 0) + 1
                try:
                    data = ctypes.string_at(args, length) if args and length else b"[]"
                    arguments = json.loads(data)
                    answer = function((path or b"").decode("utf-8", "replace"), arguments)
                    answer = _settle(answer, state, "the client", timeout)
                    text = json.dumps(answer, allow_nan=False).encode("ascii")
                finally:
                    state.depth -= 1
                if reply_set(reply, text, len(text)) != Status.OK:
                    # JSON that Python writes and plugline refuses: a lone surrogate.
                    raise ValueError("plugline refused the client's answer as JSON")
                return 0
            except BaseException as exception:  # noqa: B902 - nothing may unwind into C
                try:
                    _record_interrupt(state, exception)
                    message = json.dumps(
                        _describe_exception(exception).decode("utf-8", "replace")).encode("ascii")
                    reply_set(reply, message, len(message))
                except BaseException:  # noqa: B902 - the library's own message will do
                    pass
                return 1

        # The library holds only the raw function pointer: the Host keeps this bridge alive
        # until the library no longer uses it (see Host.close).
        self.c_function = _library.CLIENT_FN(call)


class _PluginBridge:
    """Wraps the hooks and tools of a plugin the host runs as ``plugline_named_hook_fn`` and
    ``plugline_tool_fn``.

    The library calls them on the thread running the dispatch, trigger or tool call. What a
    hook raises is its throw (replied as ``{"output", "error"}``: on ``tool.execute.before``
    plugline denies with it); what a tool raises is ``ok: False``. The plugin itself fails —
    a non-zero return, so plugline skips it, or denies when it fails closed — when an awaitable
    comes back under a synchronous call, or an awaited one does not finish within ``timeout``.
    As for native hooks, ``state.depth`` is raised while they run, and a ``KeyboardInterrupt``
    or ``SystemExit`` is kept for the host to re-raise.
    """

    def __init__(self, hooks: Mapping[str, OpenCodeHook], tools: Mapping[str, PluginTool],
                 state: threading.local, timeout: float) -> None:
        reply_set = _library.lib().plugline_reply_set

        def run(what: str, function: Callable[[], Any]) -> tuple[Any, Optional[BaseException]]:
            """(result, None), or (None, what the function raised): a throw, not a failure.
            An awaitable the call cannot await, or one that times out, raises: a failure."""
            try:
                result = function()
            except Exception as exception:  # noqa: BLE001 - the plugin's throw, reported
                return None, exception
            if inspect.isawaitable(result):
                if getattr(state, "loop", None) is None:
                    _settle(result, state, what, timeout)  # raises the TypeError naming a*
                try:
                    return _settle(result, state, what, timeout), None
                except TimeoutError:
                    raise
                except Exception as exception:  # noqa: BLE001 - the coroutine's throw
                    return None, exception
            return result, None

        def bridge(answer: Callable[[str, Any, Any], Dict[str, Any]]) -> Callable[..., int]:
            def call(name: Optional[bytes], first: Optional[int], first_len: int,
                     second: Optional[int], second_len: int, reply: Optional[int],
                     _user_data: Optional[int]) -> int:
                try:
                    state.depth = getattr(state, "depth", 0) + 1
                    try:
                        one = json.loads(ctypes.string_at(first, first_len) if first else b"{}")
                        two = json.loads(ctypes.string_at(second, second_len) if second else b"{}")
                        text = json.dumps(answer((name or b"").decode("utf-8", "replace"), one, two),
                                          allow_nan=False).encode("ascii")
                    finally:
                        state.depth -= 1
                    if reply_set(reply, text, len(text)) != Status.OK:
                        raise ValueError("plugline refused the plugin's answer as JSON")
                    return 0
                except BaseException as exception:  # noqa: B902 - nothing may unwind into C
                    try:
                        _record_interrupt(state, exception)
                        message = json.dumps(_describe_exception(exception).decode(
                            "utf-8", "replace")).encode("ascii")
                        reply_set(reply, message, len(message))
                    except BaseException:  # noqa: B902 - the library's own message will do
                        pass
                    return 1
            return call

        def hook_answer(name: str, input: Any, output: Any) -> Dict[str, Any]:  # noqa: A002
            function = hooks.get(name)
            if function is None:
                return {"output": output}
            _, thrown = run(f"hook {name}",
                            (lambda: function(output)) if name == "config"
                            else (lambda: function(input, output)))
            if thrown is not None:
                return {"output": output, "error": _describe_thrown(thrown)}
            return {"output": output}

        def tool_answer(name: str, args: Any, context: Any) -> Dict[str, Any]:
            tool = tools.get(name)
            if tool is None:
                return {"ok": False, "error": f"no tool {name!r}"}
            result, thrown = run(f"tool {name}", lambda: tool.execute(args, context))
            if thrown is not None:
                return {"ok": False, "error": _describe_thrown(thrown)}
            if isinstance(result, str):
                return {"ok": True, "output": result}
            if isinstance(result, abc.Mapping) and isinstance(result.get("output"), str):
                return {"ok": True, "output": result["output"],
                        "title": str(result.get("title") or ""),
                        "metadata": result.get("metadata")}
            return {"ok": True, "output": "" if result is None else json.dumps(result)}

        # The library holds only the raw function pointers: the Host keeps this bridge alive
        # for as long as the library may call it (see Host.remove_added_plugin).
        self.hook_function = _library.NAMED_HOOK_FN(bridge(hook_answer))
        self.tool_function = _library.TOOL_FN(bridge(tool_answer)) if tools else _library.TOOL_FN()


def _describe_thrown(exception: BaseException) -> str:
    """What a plugin hook or tool raised, as its message: ``str(exception)``, else the type."""
    return str(exception) or type(exception).__name__


def _settle(answer: Any, state: threading.local, what: str, timeout: float) -> Any:
    """The answer of a native hook or the client, awaited when it is awaitable.

    An ``a*`` method of the host runs its C call in a worker thread and leaves its event loop
    in ``state.loop``: an awaitable answer is then run on that loop and waited for here (on
    the worker thread) for at most ``timeout`` seconds. Without a loop — a synchronous call —
    nothing can await it, and that is the callback's failure.
    """
    if not inspect.isawaitable(answer):
        return answer
    loop: Optional[asyncio.AbstractEventLoop] = getattr(state, "loop", None)
    if loop is None:
        if inspect.iscoroutine(answer):
            answer.close()  # never awaited, on purpose: no RuntimeWarning
        raise TypeError(f"{what} returned an awaitable (an async def?): a synchronous call "
                        "cannot await it; the host's a* methods (adispatch, atrigger, ...) do")

    async def wait() -> Any:
        return await answer

    future = asyncio.run_coroutine_threadsafe(wait(), loop)
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise TimeoutError(f"{what} did not answer within {timeout:g} s") from None


def _record_interrupt(state: threading.local, exception: BaseException) -> None:
    """Keeps a ``KeyboardInterrupt`` or ``SystemExit`` a callback swallowed (it may not unwind
    through C) in ``state.interrupts``, for ``Host._running_plugins`` to re-raise."""
    if isinstance(exception, Exception):
        return
    interrupts = getattr(state, "interrupts", None)
    if interrupts is None:
        interrupts = state.interrupts = []
    interrupts.append(exception)


def _describe_exception(exception: BaseException) -> bytes:
    """``"RuntimeError: what it said"`` as NUL-free UTF-8, for plugline_hook_answer_fail and
    the client's rejections."""
    try:
        text = str(exception)
    except Exception:  # noqa: BLE001 - a broken __str__ must not hide the failure
        text = ""
    name = type(exception).__name__
    message = f"{name}: {text}" if text else name
    return message.encode("utf-8", "replace").replace(b"\0", b"\\0")


def _encode_name(value: object, what: str) -> bytes:
    """A str argument the library takes NUL-terminated (an event name, a hook id)."""
    if not isinstance(value, str):
        raise TypeError(f"plugline: {what} must be str, not {type(value).__name__}")
    encoded = value.encode("utf-8", "surrogatepass")
    if b"\0" in encoded:
        raise ValueError(f"plugline: {what} contains a NUL character")
    return encoded


def _progress(progress: Optional[Callable[[str, int, int], None]]
              ) -> tuple[Any, list[BaseException]]:
    """The C progress callback for ``progress`` (a NULL one for None) and the list that keeps
    what it raised: an exception cannot cross the C frames, so it is raised after the call."""
    raised: list[BaseException] = []
    if progress is None:
        return _library.PROGRESS_FN(), raised

    def call(_user_data: Any, url: bytes, received: int, total: int) -> None:
        if raised:
            return
        try:
            progress(url.decode("utf-8", "replace"), int(received), int(total))
        except BaseException as exception:  # noqa: BLE001 - raised by the caller afterwards
            raised.append(exception)

    return _library.PROGRESS_FN(call), raised


def _encode_events(events: Union[str, Iterable[str]]) -> bytes:
    """The JSON array of names plugline_hook_options.events takes."""
    names = [events] if isinstance(events, str) else events
    if isinstance(names, (bytes, bytearray)) or not isinstance(names, abc.Iterable):
        raise TypeError(f"plugline: events must be a list of event names or \"*\", not "
                        f"{type(events).__name__}")
    encoded = []
    for name in names:
        name_bytes = _encode_name(name, "an event name")
        if b"," in name_bytes or not name_bytes.strip():
            raise ValueError(f"plugline: {name!r} is not an event name")
        encoded.append(name)
    return json.dumps(encoded).encode("ascii")


def _encode_payload(payload: Union[Mapping[str, Any], str, bytes],
                    what: str = "payload") -> bytes:
    """A JSON object the library takes with a length: a dict is encoded, text passes as is."""
    if isinstance(payload, abc.Mapping):
        return json.dumps(dict(payload), allow_nan=False).encode("ascii")
    if isinstance(payload, str):
        # As for a command: a lone surrogate becomes bytes that are not UTF-8, which the
        # library rejects with PLUGLINE_EINVALID.
        return payload.encode("utf-8", "surrogatepass")
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    raise TypeError(f"plugline: {what} must be a dict, str or bytes, not "
                    f"{type(payload).__name__}")


def _encode_tool_names(names: Iterable[str]) -> Optional[bytes]:
    """The JSON array of names plugline_host_tools takes; None for none."""
    if isinstance(names, (str, bytes, bytearray)) or not isinstance(names, abc.Iterable):
        raise TypeError(f"plugline: builtin_tools must be a list of tool names, not "
                        f"{type(names).__name__}")
    encoded = []
    for name in names:
        name_bytes = _encode_name(name, "a tool name")
        if b"," in name_bytes or not name_bytes.strip():
            raise ValueError(f"plugline: {name!r} is not a tool name")
        encoded.append(name)
    return json.dumps(encoded).encode("ascii") if encoded else None


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
    """A plugline host: configuration, the raw-output store, the shapers and the hooks.

    Args:
        home: the state directory (``config.yaml``, ``plugins/``, ``outputs/``). None: the
            library's default, ``$PLUGLINE_HOME`` or else ``~/.plugline``.
        project_dir: a project directory whose ``.plugline/`` adds configuration and
            plugins. None: no project.
        project_trust: who decides whether that project's ``.plugline/`` may load
            (docs/security.md). None (default): the user's trust store, written by
            ``plugline trust``, for the project as it is now. True: the host vouches for it,
            having asked the user itself (an editor's workspace trust). False: nothing of the
            project loads. Until it may load, its plugins are listed with state
            ``"untrusted"``, nothing of it runs, and :meth:`diagnostics` says what to run. Even
            a trusted project cannot disable, reconfigure or replace a protected global plugin.
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
        record_stats: True (default) keeps per-shaper statistics in ``<home>/stats.json``
            (see :meth:`stats`); False keeps none.
        client: ``callable(path: str, args: list) -> answer``, what OpenCode plugins'
            ``client`` reaches (docs/plugins-opencode.md): ``await
            client.app.log({...})`` in a plugin calls ``client("app.log", [{...}])``, and the
            JSON-able answer (None is ``null``) resolves the plugin's promise. It is called on
            the thread running the plugin's hook — the thread inside :meth:`trigger`,
            :meth:`dispatch`, :meth:`execute_tool`, or the call that loads or releases
            plugins (``config`` and ``dispose`` hooks) — and must not call into this host
            (that raises :class:`plugline.InvalidStateError`). If it raises, or answers
            something :func:`json.dumps` refuses, the plugin's promise rejects with
            ``"client.<path>() failed: ExceptionType: message"`` (a ``KeyboardInterrupt`` or
            ``SystemExit`` is also re-raised once the C call has returned). None: no client;
            every ``client`` call rejects with a message saying the host gave "no client
            callback". Under the host's ``a*`` methods (:meth:`atrigger`, ...) it may be an
            ``async def`` function: its coroutine runs on the caller's event loop and is
            awaited for at most ``client_timeout`` seconds; under the synchronous methods an
            awaitable answer rejects the plugin's promise, saying so.
        server_url: ``ctx.serverUrl`` of OpenCode plugins. None: none.
        plugin_config: the JSON object (a dict, or its JSON text) that OpenCode plugins'
            ``config`` hooks receive after loading. None: ``{}``.
        client_timeout: how long an ``async def`` client is awaited, in seconds (default 5).

    Raises:
        plugline.Error: the library refused (e.g. ``InvalidStateError`` when no home
            directory can be found, ``InvalidArgumentError`` when ``plugin_config`` is not
            a JSON object). Problems in configuration files do not raise: see
            :meth:`diagnostics`.
        TypeError, ValueError: an argument of the wrong type, a NUL in a path or the URL.

    Thread safety: a Host may be used from several threads at once; the library does the
    locking, and the GIL is released while it works. :meth:`close` waits for calls running in
    other threads to return. A Host is also a context manager that closes it on exit. The
    token counter, native hooks and the client must not call into their own host: such a
    call raises :class:`plugline.InvalidStateError`.
    """

    def __init__(self, home: Optional[StrPath] = None, project_dir: Optional[StrPath] = None,
                 store_outputs: bool = True,
                 token_counter: Optional[TokenCounter] = None,
                 record_stats: bool = True,
                 client: Optional[ClientFunction] = None,
                 server_url: Optional[str] = None,
                 plugin_config: Union[Mapping[str, Any], str, None] = None,
                 project_trust: Optional[bool] = None,
                 client_timeout: float = DEFAULT_CALLBACK_TIMEOUT) -> None:
        self._handle: Optional[int] = None  # first, so that __del__ works if we fail below
        self._free = _library.lib().plugline_host_free
        self._cond = threading.Condition()
        self._closed = False
        self._active: dict[int, int] = {}  # thread id -> calls it is running on this host
        self._counter: Optional[_TokenCounterBridge] = None
        self._client: Optional[_ClientBridge] = None
        # Native hooks: id -> the bridge the library calls. A removed hook's bridge waits in
        # _retired until no call is running on this host, since a dispatch that started
        # before the removal may still call it. _hooks_lock keeps the library's list and
        # _hooks in step.
        self._hooks: dict[str, Union[_HookBridge, _PluginBridge]] = {}
        self._retired: list[Union[_HookBridge, _PluginBridge]] = []
        self._hooks_lock = threading.Lock()
        # Per thread: .depth (native hook or client calls running), .interrupts.
        self._hook_state = threading.local()

        if project_trust is not None and not isinstance(project_trust, bool):
            raise TypeError("plugline: project_trust must be None, True or False, not "
                            f"{type(project_trust).__name__}")
        # PLUGLINE_PROJECT_TRUST_STORE, _TRUSTED, _UNTRUSTED of the C header.
        trust_code = 0 if project_trust is None else (1 if project_trust else 2)
        home_bytes = None if home is None else _encode_path(home, "home")
        project_bytes = None if project_dir is None else _encode_path(project_dir, "project_dir")
        if token_counter is not None and not callable(token_counter):
            raise TypeError("plugline: token_counter must be callable(str) -> int")
        counter = None if token_counter is None else _TokenCounterBridge(token_counter)
        if client is not None and not callable(client):
            raise TypeError("plugline: client must be callable(path: str, args: list) -> a "
                            "JSON-able value")
        client_bridge = (None if client is None else
                         _ClientBridge(client, self._hook_state, _check_timeout(client_timeout,
                                                                                "client_timeout")))
        url_bytes = None if server_url is None else _encode_name(server_url, "server_url")
        plugin_config_bytes = None
        if plugin_config is not None:
            if isinstance(plugin_config, (bytes, bytearray, memoryview)):
                raise TypeError("plugline: plugin_config must be a dict or str, not bytes")
            plugin_config_bytes = _encode_payload(plugin_config, "plugin_config")
            if b"\0" in plugin_config_bytes:
                raise ValueError("plugline: plugin_config contains a NUL character")

        lib = _library.lib()
        config = ctypes.c_void_p()
        check(lib.plugline_config_new(ctypes.byref(config)))
        try:
            if home_bytes is not None:
                check(lib.plugline_config_set_home(config, home_bytes))
            if project_bytes is not None:
                check(lib.plugline_config_set_project_dir(config, project_bytes))
            check(lib.plugline_config_set_project_trust(config, trust_code))
            check(lib.plugline_config_set_store_outputs(config, 1 if store_outputs else 0))
            check(lib.plugline_config_set_record_stats(config, 1 if record_stats else 0))
            if counter is not None:
                # No user_data: the bridge object itself outlives the host (see close()).
                check(lib.plugline_config_set_token_counter(
                    config, counter.c_function, None, _library.USER_DATA_FREE_FN()))
            if client_bridge is not None:
                # No user_data either: the bridge outlives the host (see close()).
                check(lib.plugline_config_set_client(
                    config, client_bridge.c_function, None, _library.USER_DATA_FREE_FN()))
            if url_bytes is not None:
                check(lib.plugline_config_set_server_url(config, url_bytes))
            if plugin_config_bytes is not None:
                check(lib.plugline_config_set_plugin_config(config, plugin_config_bytes))
            handle = ctypes.c_void_p()
            check(lib.plugline_host_new(ctypes.byref(handle), config))
        finally:
            lib.plugline_config_free(config)
        self._counter = counter
        self._client = client_bridge
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
                    "counter, a native hook or the client?)")
            self._closed = True
            while self._active:
                self._cond.wait()
            if self._handle is None:  # another thread's close() finished first
                return
            handle, self._handle = self._handle, None
        self._free(handle)
        # The library no longer holds the function pointers: the callbacks may go.
        self._counter = None
        self._client = None
        self._hooks = {}
        self._retired = []

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
        if getattr(self._hook_state, "depth", 0):
            raise InvalidStateError(
                Status.ESTATE, "a native hook or the client called back into its own host "
                "(plugline_hook_fn and plugline_client_fn must not call the host that calls "
                "them)")
        with self._cond:
            if self._closed or self._handle is None:
                raise InvalidStateError(Status.ESTATE, "the Host is closed")
            handle = self._handle
            self._active[thread] = self._active.get(thread, 0) + 1
        retired: list[_HookBridge] = []
        try:
            yield handle
        finally:
            with self._cond:
                self._active[thread] -= 1
                if not self._active[thread]:
                    del self._active[thread]
                if not self._active:
                    # No dispatch is running, so the library can no longer call a removed
                    # hook.
                    retired, self._retired = self._retired, []
                    self._cond.notify_all()
            # Released outside the lock: dropping a hook's function may run arbitrary code.
            del retired

    @contextlib.contextmanager
    def _running_plugins(self) -> Iterator[None]:
        """Around a C call that may run plugins, and so native hooks or the client: once it
        has returned, re-raises a ``KeyboardInterrupt`` or ``SystemExit`` one of them
        swallowed on this thread."""
        state = self._hook_state
        try:
            yield
        finally:
            interrupts = getattr(state, "interrupts", None)
            if interrupts:
                state.interrupts = []
                raise interrupts[0]

    # -- calls ------------------------------------------------------------------------------

    def diagnostics(self) -> list[str]:
        """Problems found while opening the host (a malformed or unreadable config file, an
        unknown key, a project that is not trusted with the command that trusts it, a
        project's attempt to change a protected plugin), one message each, each naming the
        file or project. Empty when there were none."""
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

    def plugins(self) -> list[PluginInfo]:
        """Every plugin this host can use — built-in shapers, the plugins in its plugin
        directories, its native hooks — as dicts with ``id``, ``kind`` ("builtin-shaper",
        "js-shaper", "exec-hook", "opencode", "native-hook"), ``tier``, ``state`` ("enabled",
        "disabled", "broken", "shadowed", "untrusted": a project's plugin that is not trusted),
        ``reason`` (why it is not enabled, e.g. a syntax error with file and line, a bad
        ``plugin.yaml``, or the command that trusts the project), ``path``, ``source``,
        ``version``, ``description``, ``events`` (the events a hook subscribes to),
        ``warnings`` and ``protected`` (a global plugin a project cannot disable or replace).
        Loads plugins not loaded yet."""
        lib = _library.lib()
        with self._running_plugins(), self._use() as handle:
            data = call_for_buffer(lib.plugline_host_plugins, handle)
        return json.loads(data)["plugins"]

    # -- managing plugins (docs/managing-plugins.md, docs/catalog.md) ------------------------

    def plugin_info(self, plugin_id: str) -> list[PluginInfo]:
        """The listing entries of one plugin (several when one shadows another), each with
        ``stats`` and, for a plugin installed from a catalog, ``install`` (its catalog, URL,
        sha256, whether it was verified). Raises :class:`plugline.NotFoundError` when no plugin
        has the id (the message names a near one)."""
        lib = _library.lib()
        with self._running_plugins(), self._use() as handle:
            data = call_for_buffer(lib.plugline_plugins_info, handle, _encode_name(plugin_id, "plugin_id"))
        return json.loads(data)["plugins"]

    def set_plugin_enabled(self, plugin_id: str, enabled: bool) -> None:
        """Turns a plugin or built-in shaper on or off for every host of this home (recorded in
        ``<home>/plugins.json``, over config.yaml). This host reloads. Raises
        :class:`plugline.NotFoundError` when no plugin has the id."""
        lib = _library.lib()
        function = lib.plugline_plugins_enable if enabled else lib.plugline_plugins_disable
        with self._running_plugins(), self._use() as handle:
            check(function(handle, _encode_name(plugin_id, "plugin_id")))

    def sync_catalogs(self, progress: Optional[Callable[[str, int, int], None]] = None
                      ) -> list[CatalogSyncReport]:
        """Fetches the configured catalogs' indexes; one report per catalog (``url``, ``ok``,
        ``error``, ``not_modified``, ``plugins``, ``signature_verified``, ``skipped``).
        ``progress(url, received, total)`` is told how each download goes (total 0: unknown);
        an exception it raises is raised here once the call returns."""
        lib = _library.lib()
        callback, raised = _progress(progress)
        with self._use() as handle:
            data = call_for_buffer(lib.plugline_plugins_sync, handle, callback, None)
        if raised:
            raise raised[0]
        return json.loads(data)["catalogs"]

    def available_plugins(self) -> Availability:
        """What the catalogs offer, from their last synced copies: ``{"catalogs": [...],
        "plugins": [...]}``, each plugin with ``installed_version`` and ``update_available``."""
        lib = _library.lib()
        with self._use() as handle:
            data = call_for_buffer(lib.plugline_plugins_available, handle)
        return json.loads(data)

    def install_plugin(self, plugin_id: str, version: Optional[str] = None,
                       progress: Optional[Callable[[str, int, int], None]] = None
                       ) -> InstallRecord:
        """Installs (or upgrades) a plugin from a catalog: its size and SHA-256 are checked
        before it is put in place; this host reloads. Returns the install record. Raises
        :class:`plugline.DataLossError` on a size or checksum mismatch (nothing is installed),
        :class:`plugline.NotFoundError` when no catalog lists it."""
        lib = _library.lib()
        callback, raised = _progress(progress)
        with self._running_plugins(), self._use() as handle:
            data = call_for_buffer(lib.plugline_plugins_install, handle,
                                   _encode_name(plugin_id, "plugin_id"),
                                   None if version is None else _encode_name(version, "version"),
                                   callback, None)
        if raised:
            raise raised[0]
        return json.loads(data)

    def remove_plugin(self, plugin_id: str) -> InstallRecord:
        """Removes a plugin installed from a catalog; returns its record. Raises
        :class:`plugline.InvalidStateError` for a built-in or a plugin not installed so."""
        lib = _library.lib()
        with self._running_plugins(), self._use() as handle:
            data = call_for_buffer(lib.plugline_plugins_remove, handle, _encode_name(plugin_id, "plugin_id"))
        return json.loads(data)

    def reload(self) -> None:
        """Re-reads configuration and rescans plugin directories: new and changed plugins
        load on next use, unchanged ones stay loaded."""
        lib = _library.lib()
        with self._running_plugins(), self._use() as handle:
            check(lib.plugline_host_reload(handle))

    def shape(self, command: Union[str, bytes], output: Union[str, bytes],
              exit_code: Optional[int] = None, shaper: Optional[str] = None,
              max_tokens: Optional[int] = None) -> ShapeResult:
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
            max_tokens: the summary's token budget; None for config's
                ``shaping.max_summary_tokens`` (default 8000), 0 for none, else at least 200
                (1 to 199 raise :class:`plugline.InvalidArgumentError`). A summary over it is
                cut by priority (outcome, failure identifiers, evidence, context), never
                mid-line, and says what it left out.

        Returns:
            The result as a dict: ``summary``, ``render_mode`` (``"summary"`` or ``"raw"``),
            ``shaper``, ``confidence``, ``raw_path`` (None when not stored), ``raw_bytes``,
            ``raw_lines`` (the whole output), ``raw_stored_bytes`` (what the raw file holds:
            less when ``outputs.max_file_mb`` capped it, 0 when not stored), ``shaped_bytes``
            (what the shapers saw: less when the output was larger than the shaping window),
            ``tokens_raw``, ``tokens_summary``, ``tokens_saved`` (raw minus summary: negative
            when the summary costs more), ``token_counter`` (``"o200k_base"``,
            ``"cl100k_base"``, ``"estimate"`` or ``"host"``), ``max_tokens`` (the budget that
            applied, 0 for none), ``budget_lines_left_out``, ``secrets_masked`` (the output
            held secrets, masked in the summary and the raw file: a raw summary then differs
            from the output and is what the model should read), ``fallback`` (None, or why the
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
        shaper_bytes = None
        if shaper is not None:
            if not isinstance(shaper, str):
                raise TypeError(f"plugline: shaper must be str, not {type(shaper).__name__}")
            shaper_bytes = shaper.encode("utf-8", "surrogatepass")
            if b"\0" in shaper_bytes:
                raise ValueError("plugline: shaper contains a NUL character")
        budget = 0
        if max_tokens is not None:
            budget = operator.index(max_tokens)
            if budget < 0:
                raise ValueError(f"plugline: max_tokens must be 0 or more, not {budget}")
            budget = _library.NO_TOKEN_BUDGET if budget == 0 else min(budget, 2**63)
        if shaper_bytes is not None or budget:
            options = _library.plugline_shape_options(
                ctypes.sizeof(_library.plugline_shape_options), shaper_bytes, budget)

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

    # -- hooks ------------------------------------------------------------------------------

    def dispatch(self, event: str,
                 payload: Union[Mapping[str, Any], str, bytes]) -> DispatchResult:
        """Dispatches one event to the host's hooks and returns what they decided.

        The exec plugins of the host's plugin directories run first, in their order, then the
        native hooks (:meth:`add_hook`) in the order they were added, one after another; a
        deny ends the chain. A hook that crashes, times out, raises or answers wrongly does
        not fail the call: it is listed under ``skipped`` (or denies, when it fails closed).

        Args:
            event: a canonical event name (``"pre_tool_call"``, ``"post_tool_call"``,
                ``"session_start"``, ``"session_end"``, ``"turn_end"``, ``"user_prompt"``,
                ``"tool_definition"``, ``"shell_env"``, ``"pre_compact"``) or any other name,
                dispatched as observe-only.
            payload: the event's JSON object, e.g. ``{"session_id": "ses_1", "tool":
                "terminal", "arguments": '{"command": "ls"}'}``. ``"arguments"`` and
                ``"result"``, when present, are strings (the tool's arguments JSON-encoded);
                other fields pass through to the hooks. A dict is encoded with
                :func:`json.dumps` (NaN and infinities are refused); a str or bytes is
                passed as it is and must hold a JSON object.

        Returns:
            The result as a dict: ``event``, ``denied``, ``denied_by`` and ``reason`` (None
            unless denied), ``arguments`` and ``result`` (their final values, None when
            absent), ``notices`` (dicts with ``plugin``, ``text``), ``skipped`` (dicts with
            ``plugin``, ``why``, ``detail``: for a native hook that raised, ``detail`` is
            ``"ExceptionType: message"``), ``plugins`` (one dict per hook that ran, with
            ``plugin``, ``action`` and ``ms``, in chain order), ``warnings`` (dicts with
            ``plugin``, ``text``: an answer key plugline does not read, such as ``"denied"``;
            an event name one edit away from a canonical one, with ``plugin`` None) and
            ``broken`` (dicts with ``plugin``, ``reason``: every plugin that could not load; one
            that fails closed denies the deny-capable events it subscribed to, every
            ``pre_tool_call`` when its manifest cannot tell).

        Raises:
            plugline.InvalidArgumentError: an empty event, or a payload that is not a JSON
                object.
            plugline.InvalidStateError: the host is closed, or the call comes from inside one
                of its own native hooks.
            TypeError, ValueError: the event is not a str or holds a NUL; the payload is not
                a dict, str or bytes, or not JSON-serializable.
            KeyboardInterrupt, SystemExit: raised inside a native hook (which then failed)
                or the client; re-raised once the C call has returned.

        OpenCode plugins take part too, through the hook each canonical event maps to
        (docs/plugins-opencode.md): a ``tool.execute.before`` that throws denies
        ``pre_tool_call`` with the error's message as ``reason``.

        Thread safety: may be called from several threads at once; native hooks then run
        concurrently, each on the thread whose dispatch called it.
        """
        event_bytes = _encode_name(event, "event")
        payload_bytes = _encode_payload(payload)
        lib = _library.lib()
        with self._running_plugins(), self._use() as handle:
            data = call_for_buffer(lib.plugline_host_dispatch, handle, event_bytes,
                                   payload_bytes, len(payload_bytes))
        return json.loads(data)

    def add_hook(self, id: str, events: Union[str, Iterable[str]],  # noqa: A002 - the C name
                 function: HookFunction, *, fail_closed: bool = False,
                 timeout: float = DEFAULT_CALLBACK_TIMEOUT) -> None:
        """Adds a native hook: a Python function in the host's hook chain, after every plugin
        and every native hook added before it.

        Args:
            id: the hook's name, unique among this host's native hooks; shown in dispatch
                results and listed by :meth:`plugins` with kind ``"native-hook"``.
            events: the event names it subscribes to (a list of str, or one str), or
                ``"*"`` for every event.
            function: ``function(event: str, payload: dict) -> dict | None``, called during
                :meth:`dispatch` on the dispatching thread with the event name and the
                payload (with ``"event"`` set, and ``"arguments"`` as rewritten by the hooks
                before it). It returns its answer — a dict with any of ``"deny"`` (bool),
                ``"reason"``, ``"arguments"`` (a JSON-encoded str), ``"result"``,
                ``"notice"`` — or None for no opinion. If it raises, or returns something
                else, the hook fails: the dispatch lists it under ``skipped`` with the
                exception as ``"ExceptionType: message"`` and goes on. It must not call
                into this host (that raises :class:`plugline.InvalidStateError`). Under
                :meth:`adispatch` it may be an ``async def`` function: its coroutine runs on
                the caller's event loop and is awaited for at most ``timeout`` seconds (then
                the hook fails with ``TimeoutError``); under :meth:`dispatch`, which cannot
                await, an awaitable answer is the hook's failure (a ``TypeError`` naming
                :meth:`adispatch`).
            fail_closed: True makes a failure of the hook a deny on ``pre_tool_call``.
            timeout: how long :meth:`adispatch` awaits an ``async def`` hook, in seconds
                (default 5).

        Raises:
            plugline.AlreadyExistsError: a native hook with this id exists.
            plugline.InvalidArgumentError: the id is empty.
            plugline.InvalidStateError: the host is closed.
            TypeError, ValueError: an argument of the wrong type, a NUL in the id or an
                event name, an event name with a comma.

        The host keeps ``function`` alive until the hook is removed or the host closed.
        """
        id_bytes = _encode_name(id, "id")
        events_bytes = _encode_events(events)
        if not callable(function):
            raise TypeError("plugline: function must be callable(event, payload) -> "
                            "dict | None")
        bridge = _HookBridge(function, self._hook_state, _check_timeout(timeout, "timeout"))
        options = _library.plugline_hook_options(
            ctypes.sizeof(_library.plugline_hook_options), id_bytes, events_bytes,
            1 if fail_closed else 0)
        lib = _library.lib()
        with self._use() as handle:
            with self._hooks_lock:
                # No user_data: the bridge lives in self._hooks while the library has it.
                check(lib.plugline_host_add_hook(handle, ctypes.byref(options),
                                                 bridge.c_function, None,
                                                 _library.USER_DATA_FREE_FN()))
                self._hooks[id] = bridge

    def remove_hook(self, id: str) -> None:  # noqa: A002 - the C name
        """Removes the native hook ``id``; later dispatches no longer call it. Its function
        is released once no call on this host that started before the removal is running.

        Raises:
            plugline.NotFoundError: no native hook has this id.
            plugline.InvalidStateError: the host is closed, or the call comes from inside one
                of its own native hooks.
        """
        self._remove_bridge(id, _library.lib().plugline_host_remove_hook)

    def _remove_bridge(self, id: str,  # noqa: A002 - the C name
                       remove: Callable[[Any, bytes], int]) -> None:
        """Removes the native hook or added plugin ``id`` through the C function ``remove``;
        its bridge is retired until no call that may still reach it is running."""
        id_bytes = _encode_name(id, "id")
        with self._use() as handle:
            with self._hooks_lock:
                check(remove(handle, id_bytes))
                bridge = self._hooks.pop(id, None)
            if bridge is not None:
                with self._cond:
                    self._retired.append(bridge)

    def add_plugin(self, id: str,  # noqa: A002 - the C name
                   hooks: Optional[Mapping[str, OpenCodeHook]] = None, *,
                   tools: Optional[Mapping[str, PluginTool]] = None, fail_closed: bool = False,
                   timeout: float = DEFAULT_CALLBACK_TIMEOUT) -> None:
        """Adds an OpenCode plugin written in Python: its hooks by OpenCode's names and its
        tools (docs/plugins-opencode.md "Plugins the host runs").

        It joins the chain after the plugins of plugin directories and before the native
        hooks, and the events reach it as they reach an OpenCode plugin file: ``pre_tool_call``
        runs ``hooks["tool.execute.before"](input, output)`` — raising denies the call, with
        the exception's message as the reason, and changing ``output["args"]`` rewrites it;
        ``post_tool_call`` runs ``"tool.execute.after"``, where a new ``output["output"]``
        replaces the result; session and turn events run ``"event"`` with
        ``{"event": {"type", "properties"}}``. :meth:`trigger` runs any hook it has;
        :meth:`tools` lists its tools and :meth:`execute_tool` runs them.

        Args:
            id: unique among this host's native hooks and plugins it added; shown in results
                and listed by :meth:`plugins` with kind ``"opencode"`` and source ``"host"``.
            hooks: hook name -> ``function(input: dict, output: dict)``, which changes
                ``output`` in place (``"config"`` gets only the output). It may be an
                ``async def``, awaited under the ``a*`` methods for at most ``timeout``
                seconds; under the synchronous ones an awaitable is the plugin's failure.
            tools: tool name -> :class:`PluginTool`.
            fail_closed: True makes a failure of the plugin (not a hook's raise, which is its
                answer) a deny on ``pre_tool_call``.
            timeout: how long an ``async def`` hook or tool is awaited, in seconds.

        Raises:
            plugline.AlreadyExistsError: a native hook or plugin has this id.
            plugline.InvalidArgumentError: the id is empty.
            plugline.InvalidStateError: the host is closed.
            TypeError, ValueError: a hook that is not callable, a tool that is not a
                :class:`PluginTool`, a NUL in a name.
        """
        id_bytes = _encode_name(id, "id")
        hooks = dict(hooks or {})
        tools = dict(tools or {})
        for name, function in hooks.items():
            _encode_name(name, "hook name")
            if not callable(function):
                raise TypeError(f"plugline: hook {name!r} must be callable(input, output)")
        tool_list = []
        for name, tool in tools.items():
            _encode_name(name, "tool name")
            if not isinstance(tool, PluginTool):
                raise TypeError(f"plugline: tool {name!r} must be a PluginTool")
            tool_list.append({"name": name, "description": tool.description,
                              "parameters": tool.parameters})
        names = list(hooks) + (["tool"] if tools and "tool" not in hooks else [])
        bridge = _PluginBridge(hooks, tools, self._hook_state, _check_timeout(timeout, "timeout"))
        options = _library.plugline_opencode_plugin_options(
            ctypes.sizeof(_library.plugline_opencode_plugin_options), id_bytes,
            json.dumps(names).encode("utf-8"), json.dumps(tool_list).encode("utf-8"),
            1 if fail_closed else 0)
        lib = _library.lib()
        with self._use() as handle:
            with self._hooks_lock:
                check(lib.plugline_host_add_opencode_plugin(
                    handle, ctypes.byref(options), bridge.hook_function, bridge.tool_function,
                    None, _library.USER_DATA_FREE_FN()))
                self._hooks[id] = bridge

    def remove_added_plugin(self, id: str) -> None:  # noqa: A002 - the C name
        """Removes a plugin :meth:`add_plugin` added; later calls no longer reach it.

        Raises:
            plugline.NotFoundError: no plugin was added with this id.
            plugline.InvalidStateError: the host is closed, or the call comes from inside one
                of its own callbacks.
        """
        self._remove_bridge(id, _library.lib().plugline_host_remove_opencode_plugin)

    # -- OpenCode plugins -------------------------------------------------------------------

    def trigger(self, name: str, input: Union[Mapping[str, Any], str, bytes],  # noqa: A002
                output: Union[Mapping[str, Any], str, bytes]) -> TriggerResult:
        """Runs the OpenCode hook ``name`` of every plugin that has it, in dispatch order, and
        returns the output the last one left (docs/plugins-opencode.md).

        Args:
            name: the hook's name: ``"chat.params"``, ``"shell.env"``,
                ``"tool.execute.before"``, ``"experimental.text.complete"``, ...
            input: the hook's first argument, a JSON object (a dict, or its JSON text).
            output: the hook's second argument, a JSON object each plugin mutates in turn,
                starting from this one.

        Returns:
            The result as a dict: ``name``, ``output`` (the final output object), ``errors``
            (one dict per hook that threw, with ``plugin`` and ``message``: the other plugins
            still ran) and ``plugins`` (one dict per plugin that ran, with ``plugin`` and
            ``ms``, in order).

        Raises:
            plugline.InvalidArgumentError: an empty name, or an input or output that is not a
                JSON object.
            plugline.InvalidStateError: the host is closed, or the call comes from inside one
                of its own callbacks (a native hook, the client).
            TypeError, ValueError: the name is not a str or holds a NUL; the input or output
                is not a dict, str or bytes, or not JSON-serializable.
            KeyboardInterrupt, SystemExit: raised inside the client; re-raised once the C
                call has returned.

        Thread safety: may be called from several threads at once; the client is called on
        the thread whose trigger runs the plugin's hook.
        """
        name_bytes = _encode_name(name, "name")
        input_bytes = _encode_payload(input, "input")
        output_bytes = _encode_payload(output, "output")
        lib = _library.lib()
        with self._running_plugins(), self._use() as handle:
            data = call_for_buffer(lib.plugline_host_trigger, handle, name_bytes, input_bytes,
                                   len(input_bytes), output_bytes, len(output_bytes))
        return json.loads(data)

    def tools(self, builtin_tools: Iterable[str] = ()) -> dict[str, Any]:
        """The tools OpenCode plugins add (their ``tool`` hook).

        Args:
            builtin_tools: the names of the host's own tools (``["read", "bash"]``), so that
                a plugin tool with one of these names — which takes precedence over the
                host's — says so.

        Returns:
            ``{"tools": [...]}``, one dict per tool with ``name``, ``description``,
            ``parameters`` (the JSON Schema of its arguments), ``plugin`` (the plugin that
            adds it) and ``overrides_builtin`` (bool).

        Raises:
            plugline.InvalidStateError: the host is closed, or the call comes from inside one
                of its own callbacks.
            TypeError, ValueError: builtin_tools is not a list of str, or a name is empty or
                holds a comma or a NUL.
        """
        names_bytes = _encode_tool_names(builtin_tools)
        lib = _library.lib()
        with self._running_plugins(), self._use() as handle:
            data = call_for_buffer(lib.plugline_host_tools, handle, names_bytes)
        return json.loads(data)

    def execute_tool(self, name: str, args: Union[Mapping[str, Any], str, bytes],
                     context: Union[Mapping[str, Any], str, bytes, None] = None
                     ) -> dict[str, Any]:
        """Runs the plugin tool ``name`` (one that :meth:`tools` lists).

        Args:
            name: the tool's name.
            args: its arguments, a JSON object (a dict, or its JSON text); validated against
                the tool's schema, with defaults applied.
            context: what the tool's ``execute`` gets as its context: any of ``sessionID``,
                ``messageID``, ``agent``, ``directory``, ``worktree``. None: ``{}``.

        Returns:
            The result as a dict: ``ok`` (bool), ``output`` (what ``execute`` returned),
            ``error`` (why it failed: it threw, or the arguments do not fit the schema),
            ``title``, ``metadata`` and ``plugin``. A tool that fails does not raise: it is
            ``ok`` False with the error.

        Raises:
            plugline.NotFoundError: no plugin has this tool.
            plugline.InvalidArgumentError: args or context is not a JSON object.
            plugline.InvalidStateError: the host is closed, or the call comes from inside one
                of its own callbacks.
            TypeError, ValueError: an argument of the wrong type, a NUL in the name.
            KeyboardInterrupt, SystemExit: raised inside the client; re-raised once the C
                call has returned.
        """
        name_bytes = _encode_name(name, "name")
        args_bytes = _encode_payload(args, "args")
        context_bytes = None if context is None else _encode_payload(context, "context")
        lib = _library.lib()
        with self._running_plugins(), self._use() as handle:
            data = call_for_buffer(lib.plugline_host_execute_tool, handle, name_bytes,
                                   args_bytes, len(args_bytes), context_bytes,
                                   0 if context_bytes is None else len(context_bytes))
        return json.loads(data)

    # -- asyncio ----------------------------------------------------------------------------

    async def _in_thread(self, method: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Runs ``method(*args, **kwargs)`` in the event loop's default executor (a thread
        pool), so that the loop never blocks on plugins. While it runs, the worker thread's
        hook state names the loop: an ``async def`` native hook or client is then run on it
        and awaited (:func:`_settle`)."""
        loop = asyncio.get_running_loop()
        state = self._hook_state

        def run() -> _T:
            state.loop = loop
            try:
                return method(*args, **kwargs)
            finally:
                state.loop = None

        return await loop.run_in_executor(None, functools.partial(run))

    async def ashape(self, command: Union[str, bytes], output: Union[str, bytes],
                     exit_code: Optional[int] = None, shaper: Optional[str] = None,
                     max_tokens: Optional[int] = None) -> ShapeResult:
        """:meth:`shape` in a worker thread: same arguments, result and errors."""
        return await self._in_thread(self.shape, command, output, exit_code, shaper=shaper,
                                     max_tokens=max_tokens)

    async def adispatch(self, event: str,
                        payload: Union[Mapping[str, Any], str, bytes]) -> DispatchResult:
        """:meth:`dispatch` in a worker thread, so that exec plugins run without blocking the
        event loop. Native hooks run in that thread too; an ``async def`` hook's coroutine
        runs on this event loop and is awaited for at most the hook's ``timeout``."""
        return await self._in_thread(self.dispatch, event, payload)

    async def atrigger(self, name: str, input: Union[Mapping[str, Any], str, bytes],  # noqa: A002
                       output: Union[Mapping[str, Any], str, bytes]) -> TriggerResult:
        """:meth:`trigger` in a worker thread; an ``async def`` client is awaited."""
        return await self._in_thread(self.trigger, name, input, output)

    async def atools(self, builtin_tools: Iterable[str] = ()) -> dict[str, Any]:
        """:meth:`tools` in a worker thread (listing tools loads plugins not loaded yet)."""
        return await self._in_thread(self.tools, tuple(builtin_tools))

    async def aexecute_tool(self, name: str, args: Union[Mapping[str, Any], str, bytes],
                            context: Union[Mapping[str, Any], str, bytes, None] = None
                            ) -> dict[str, Any]:
        """:meth:`execute_tool` in a worker thread; an ``async def`` client is awaited."""
        return await self._in_thread(self.execute_tool, name, args, context)

    async def async_catalogs(self, progress: Optional[Callable[[str, int, int], None]] = None
                             ) -> list[CatalogSyncReport]:
        """:meth:`sync_catalogs` in a worker thread (``a`` + ``sync_catalogs``). ``progress`` is
        called on that worker thread."""
        return await self._in_thread(self.sync_catalogs, progress)

    async def ainstall_plugin(self, plugin_id: str, version: Optional[str] = None,
                              progress: Optional[Callable[[str, int, int], None]] = None
                              ) -> InstallRecord:
        """:meth:`install_plugin` in a worker thread; ``progress`` is called on that thread."""
        return await self._in_thread(self.install_plugin, plugin_id, version, progress)

    async def aplugins(self) -> list[PluginInfo]:
        """:meth:`plugins` in a worker thread (loading plugins runs their ``config`` hooks)."""
        return await self._in_thread(self.plugins)

    async def areload(self) -> None:
        """:meth:`reload` in a worker thread."""
        await self._in_thread(self.reload)

    async def aclose(self) -> None:
        """:meth:`close` in a worker thread: it waits for the calls still running (an
        ``a*`` call included) without blocking the event loop."""
        await self._in_thread(self.close)

    async def __aenter__(self) -> Host:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _check_timeout(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"plugline: {what} must be a number of seconds above 0, not {value!r}")
    return float(value)


def _surface(failures: list[BaseException]) -> None:
    """Re-raises an interrupt the token counter swallowed; warns about anything else."""
    for failure in failures:
        if not isinstance(failure, Exception):
            raise failure
    for failure in failures:
        warnings.warn(TokenCounterWarning(failure), stacklevel=3)
