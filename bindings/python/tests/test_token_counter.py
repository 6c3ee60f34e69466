"""The host's token counter: used for every count, and never lets Python unwind into C."""

from __future__ import annotations

import gc
import textwrap
import weakref
from pathlib import Path

import pytest

import plugline

from conftest import numbered_lines
from test_library import run_python


class RecordingCounter:
    """Counts words plus 1000, so its answers cannot be mistaken for plugline's estimate."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str) -> int:
        self.texts.append(text)
        return 1000 + len(text.split())


def test_counter_counts_raw_output_and_summary(home: Path) -> None:
    counter = RecordingCounter()
    output = numbered_lines(500)
    with plugline.Host(home=home, token_counter=counter) as host:
        result = host.shape("seq 500", output)
    assert result["render_mode"] == "summary"
    assert result["tokens_raw"] == counter(output.decode())
    assert result["tokens_summary"] == counter(result["summary"])
    assert output.decode() in counter.texts
    assert result["summary"] in counter.texts


def test_counter_sees_invalid_bytes_as_replacement_characters(home: Path) -> None:
    seen: list[str] = []
    with plugline.Host(home=home, token_counter=lambda text: seen.append(text) or 3) as host:
        result = host.shape("cat", b"ok\x00\xff\n")
    assert seen[0] == "ok\x00\ufffd\n"
    assert result["tokens_raw"] == 3


def test_counter_is_kept_alive_by_the_host(home: Path) -> None:
    host = plugline.Host(home=home, token_counter=lambda text: 424242)
    gc.collect()  # the lambda is referenced only through the host now
    try:
        assert host.shape("ls", "a\n")["tokens_raw"] == 424242
    finally:
        host.close()


def test_counter_is_released_after_close(home: Path) -> None:
    counter = RecordingCounter()
    reference = weakref.ref(counter)
    host = plugline.Host(home=home, token_counter=counter)
    host.shape("ls", "a\n")
    del counter
    gc.collect()
    assert reference() is not None
    host.close()
    assert reference() is None  # at once: no reference cycle holds it


def test_host_dropped_without_close_is_released(home: Path) -> None:
    counter = RecordingCounter()
    reference = weakref.ref(counter)
    host = plugline.Host(home=home, token_counter=counter)
    host.shape("ls", "a\n")
    del host, counter
    gc.collect()
    assert reference() is None


def test_raising_counter_falls_back_and_warns(home: Path) -> None:
    failure = RuntimeError("tokenizer exploded")

    def broken(text: str) -> int:
        raise failure

    output = numbered_lines(500)
    with plugline.Host(home=home, token_counter=broken) as host:
        with pytest.warns(plugline.TokenCounterWarning, match="tokenizer exploded") as record:
            result = host.shape("seq 500", output)
        with pytest.warns(plugline.TokenCounterWarning):
            assert host.shape("ls", "still works\n")["summary"] == "still works\n"
    assert result["render_mode"] == "summary"
    assert result["tokens_raw"] == (len(output) + 3) // 4
    assert result["tokens_summary"] == (len(result["summary"].encode()) + 3) // 4
    assert len(record) >= 2  # the raw output and the summary were both counted
    assert all(warning.message.exception is failure for warning in record)


@pytest.mark.parametrize("answer, error_type", [(-1, ValueError), (2**64, ValueError),
                                                ("12", TypeError), (True, TypeError),
                                                (1.5, TypeError)])
def test_counter_answer_that_is_not_a_count_falls_back(home: Path, answer: object,
                                                      error_type: type) -> None:
    with plugline.Host(home=home, token_counter=lambda text: answer) as host:
        with pytest.warns(plugline.TokenCounterWarning) as record:
            result = host.shape("ls", "abcdefgh\n")
    assert result["tokens_raw"] == 3  # 9 bytes: ceil(9 / 4)
    assert isinstance(record[0].message.exception, error_type)


def test_keyboard_interrupt_in_counter_is_raised_after_the_call(home: Path) -> None:
    calls = []

    def interrupted(text: str) -> int:
        calls.append(text)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return 5

    with plugline.Host(home=home, token_counter=interrupted) as host:
        with pytest.raises(KeyboardInterrupt):
            host.shape("ls", "a\n")
        assert host.shape("ls", "b\n")["tokens_raw"] == 5


def test_counter_closing_its_own_host_is_refused(home: Path) -> None:
    host = plugline.Host(home=home, token_counter=lambda text: host.close() or 1)
    with pytest.warns(plugline.TokenCounterWarning) as record:
        host.shape("ls", "a\n")
    assert isinstance(record[0].message.exception, plugline.InvalidStateError)
    assert not host.closed
    host.close()


def test_raising_counter_does_not_crash_the_process(home: Path) -> None:
    """Even with warnings turned into errors, the process survives and reports the failure."""
    code = textwrap.dedent(f"""
        import warnings
        import plugline
        warnings.simplefilter("error")
        host = plugline.Host(home={str(home)!r}, token_counter=lambda text: 1 // 0)
        try:
            host.shape("ls", "a\\n")
        except plugline.TokenCounterWarning as warning:
            print("surfaced", type(warning.exception).__name__)
        host.close()
        print("alive")
    """)
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["surfaced", "ZeroDivisionError", "alive"]
    assert "Exception ignored" not in result.stderr  # ctypes never saw the exception


def test_non_callable_counter_is_refused(home: Path) -> None:
    with pytest.raises(TypeError):
        plugline.Host(home=home, token_counter=42)  # type: ignore[arg-type]


