"""Status codes and the exceptions that carry them."""

from __future__ import annotations

import ctypes
import enum
from typing import Callable

from . import _library


class Status(enum.IntEnum):
    """``plugline_status``: the integer codes of the C ABI. They never change once released."""

    OK = 0
    EINVALID = -1
    ENOTFOUND = -2
    EEXISTS = -3
    EPERMISSION = -4
    ETIMEOUT = -5
    ERESOURCE = -6
    EUNAVAILABLE = -7
    ESTATE = -8
    ECANCELLED = -9
    EIO = -10
    EINTERNAL = -11
    EPLUGIN = -12


def status_name(status: int) -> str:
    """The library's name for a status code: ``"PLUGLINE_EINVALID"``, or
    ``"PLUGLINE_UNKNOWN"`` for a code it does not know."""
    return _library.lib().plugline_status_str(status).decode("ascii")


class Error(Exception):
    """A plugline call failed.

    Attributes:
        status: the status code (a :class:`Status` member when the code is known, else the
            plain int), e.g. ``Status.EINVALID`` (-1).
        name: the library's name for it, e.g. ``"PLUGLINE_EINVALID"``.
        message: what went wrong, from ``plugline_last_error_message()``.

    Every failure of the library raises an ``Error``; the subclasses below (one per code)
    let a caller catch a single kind.
    """

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(status, message)
        try:
            self.status: int = Status(status)
        except ValueError:
            self.status = status
        self.name: str = status_name(status)
        self.message: str = message

    def __str__(self) -> str:
        return f"{self.name}: {self.message}" if self.message else self.name


class InvalidArgumentError(Error):
    """PLUGLINE_EINVALID: an argument is NULL, malformed, or not valid UTF-8."""


class NotFoundError(Error):
    """PLUGLINE_ENOTFOUND: a file, plugin, shaper or function does not exist."""


class AlreadyExistsError(Error):
    """PLUGLINE_EEXISTS: it already exists."""


class PermissionDeniedError(Error):
    """PLUGLINE_EPERMISSION: the operating system refused access."""


class TimeoutExpiredError(Error):
    """PLUGLINE_ETIMEOUT: a time budget ran out."""


class ResourceExhaustedError(Error):
    """PLUGLINE_ERESOURCE: memory, disk or an output bound ran out."""


class UnavailableError(Error):
    """PLUGLINE_EUNAVAILABLE: a feature not built in, or a backend that failed to load."""


class InvalidStateError(Error):
    """PLUGLINE_ESTATE: the call is not valid in the current state (e.g. a closed Host)."""


class CancelledError(Error):
    """PLUGLINE_ECANCELLED: the operation was cancelled."""


class DataLossError(Error):
    """PLUGLINE_EIO: data was lost or corrupted."""


class InternalError(Error):
    """PLUGLINE_EINTERNAL: a bug in plugline; the message says where."""


class PluginError(Error):
    """PLUGLINE_EPLUGIN: a plugin failed: it threw, crashed or answered wrongly."""


_CLASSES: dict[int, type[Error]] = {
    Status.EINVALID: InvalidArgumentError,
    Status.ENOTFOUND: NotFoundError,
    Status.EEXISTS: AlreadyExistsError,
    Status.EPERMISSION: PermissionDeniedError,
    Status.ETIMEOUT: TimeoutExpiredError,
    Status.ERESOURCE: ResourceExhaustedError,
    Status.EUNAVAILABLE: UnavailableError,
    Status.ESTATE: InvalidStateError,
    Status.ECANCELLED: CancelledError,
    Status.EIO: DataLossError,
    Status.EINTERNAL: InternalError,
    Status.EPLUGIN: PluginError,
}


def make_error(status: int, message: str) -> Error:
    """The exception for ``status``: the subclass for its code, or :class:`Error`."""
    return _CLASSES.get(status, Error)(status, message)


def check(status: int) -> None:
    """Raises the :class:`Error` for a failed call's status; returns for PLUGLINE_OK.

    Must be called right after the failing call, on the same thread, before any other
    plugline call: the library's last-error message is per thread and is replaced by the next
    call.
    """
    if status == Status.OK:
        return
    message = _library.lib().plugline_last_error_message()
    raise make_error(status, message.decode("utf-8", "replace"))


def call_for_buffer(function: Callable[..., int], *args: object) -> bytes:
    """Calls a C function of the form ``f(char **out, size_t *out_len, ...)`` and returns a
    copy of the buffer it returns, which is released with ``plugline_free`` in every case."""
    out = ctypes.c_void_p()
    length = ctypes.c_size_t()
    try:
        check(function(ctypes.byref(out), ctypes.byref(length), *args))
        return ctypes.string_at(out, length.value)
    finally:
        if out.value:
            _library.lib().plugline_free(out)
