"""Host.shape, diagnostics and the Host's lifetime."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import plugline

from conftest import numbered_lines


def test_long_output_is_summarized_and_stored_byte_for_byte(host: plugline.Host,
                                                            home: Path) -> None:
    output = numbered_lines(500)
    result = host.shape("seq 500", output, exit_code=0)

    assert result["render_mode"] == "summary"
    assert result["shaper"] == "builtin-generic"
    assert result["fallback"] is None
    summary = result["summary"]
    # Lines alike but for their numbers: the first and the last shown, the others counted.
    assert "… 498 lines like the ones around, but for their numbers, omitted" in summary
    assert "line 1 of the output" in summary and "line 500 of the output" in summary
    assert "line 250 of the output" not in summary
    raw_path = Path(result["raw_path"])
    assert summary.rstrip("\n").split("\n")[-1] == f"full output: {raw_path}"
    assert raw_path.parent == home / "outputs"
    assert raw_path.read_bytes() == output
    assert result["raw_bytes"] == len(output)
    assert result["raw_lines"] == 500
    assert 0 < result["tokens_summary"] < result["tokens_raw"]


def test_short_output_is_shown_raw(host: plugline.Host) -> None:
    output = "one\ntwo\nthree\nfour\nfive\n"
    result = host.shape("ls", output, exit_code=0)
    assert result["render_mode"] == "raw"
    assert result["summary"] == output
    assert result["raw_lines"] == 5
    assert result["tokens_summary"] == result["tokens_raw"]


def test_a_secret_in_the_output_is_masked_in_the_summary_and_the_raw_file(
        host: plugline.Host) -> None:
    output = b"".join(b"compiling unit %d\n" % i for i in range(300))
    output += b'{"access_token": "ya29.a0AfH6SMBx3k9", "expires_in": 3599}\n'
    result = host.shape("curl -s https://oauth2.example/token", output, exit_code=0)
    assert result["secrets_masked"] is True
    assert "ya29" not in result["summary"]
    assert '"access_token": "[redacted]"' in result["summary"]
    stored = Path(result["raw_path"]).read_bytes()
    assert b"ya29" not in stored
    assert stored == output.replace(b"ya29.a0AfH6SMBx3k9", b"[redacted]")
    assert result["raw_bytes"] == len(output)
    assert host.shape("ls", "one\ntwo\n", exit_code=0)["secrets_masked"] is False


def test_nul_bytes_and_invalid_utf8_are_stored_exactly(host: plugline.Host) -> None:
    output = b"nul\x00inside\ninvalid \xff\xfe\xc3 utf-8\n" + numbered_lines(498)
    result = host.shape("cat data.bin", output)  # the JSON parsed, or this would raise

    assert Path(result["raw_path"]).read_bytes() == output
    assert result["raw_bytes"] == len(output)
    assert result["render_mode"] == "summary"
    head = result["summary"].split("\n")[:3]
    assert head[0] == "cat: exit 0, 500 lines" or head[0].startswith("cat: ")  # the header
    assert head[1] == "nulinside"  # a NUL is a control character: summaries drop it
    assert head[2].startswith("invalid \ufffd") and head[2].endswith(" utf-8")


def test_str_output_is_encoded_as_utf8(host: plugline.Host) -> None:
    result = host.shape("echo", "héllo wörld ✓\n")
    assert Path(result["raw_path"]).read_bytes() == "héllo wörld ✓\n".encode()
    assert result["summary"] == "héllo wörld ✓\n"
    assert result["raw_bytes"] == len("héllo wörld ✓\n".encode())


def test_surrogateescape_text_round_trips_to_the_original_bytes(host: plugline.Host) -> None:
    original = b"caf\xe9 latin-1\n"
    text = original.decode("utf-8", "surrogateescape")
    result = host.shape("iconv", text)
    assert Path(result["raw_path"]).read_bytes() == original


def test_empty_output(host: plugline.Host) -> None:
    result = host.shape("true", b"", exit_code=0)
    assert result["summary"] == "" and result["raw_bytes"] == 0 and result["raw_lines"] == 0


def test_forced_shaper_by_id(host: plugline.Host) -> None:
    result = host.shape("anything", numbered_lines(100), exit_code=1, shaper="builtin-generic")
    assert result["shaper"] == "builtin-generic"
    assert result["confidence"] == 1.0
    assert result["render_mode"] == "summary"


def test_unknown_forced_shaper_raises_invalid(host: plugline.Host) -> None:
    with pytest.raises(plugline.Error) as caught:
        host.shape("make", "output\n", shaper="no-such-shaper")
    error = caught.value
    assert isinstance(error, plugline.InvalidArgumentError)
    assert error.name == "PLUGLINE_EINVALID"
    assert error.status == plugline.Status.EINVALID == -1
    assert "no-such-shaper" in error.message
    assert "builtin-generic" in error.message  # the known ones are listed


@pytest.mark.parametrize("command", [b"echo \xff\xfe", "echo \ud800", "echo \udcff"],
                         ids=["bytes", "lone-high-surrogate", "lone-low-surrogate"])
def test_command_that_is_not_utf8_is_rejected(host: plugline.Host, command: object) -> None:
    with pytest.raises(plugline.InvalidArgumentError) as caught:
        host.shape(command, "output\n")  # type: ignore[arg-type]
    assert caught.value.name == "PLUGLINE_EINVALID"
    assert "UTF-8" in caught.value.message


def test_utf8_command_bytes_are_accepted(host: plugline.Host) -> None:
    result = host.shape("grep -r 'ünïcode' .".encode(), "match\n")
    assert result["render_mode"] == "raw"


def test_argument_types_are_checked(host: plugline.Host) -> None:
    with pytest.raises(TypeError):
        host.shape(42, "output")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        host.shape("ls", 42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        host.shape("ls", "output", exit_code=2**31)
    with pytest.raises(ValueError):
        host.shape("ls", "output", shaper="builtin\0generic")
    assert host.shape("ls", "output", exit_code=-(2**31) + 1)["summary"] == \
        "ls: FAILED (exit -2147483647)\noutput"


def test_store_outputs_false_elides_nothing(home: Path) -> None:
    output = numbered_lines(500)
    with plugline.Host(home=home, store_outputs=False) as host:
        result = host.shape("seq 500", output, exit_code=0)
    assert result["raw_path"] is None
    assert result["render_mode"] == "raw"
    assert result["summary"].encode() == output
    assert not (home / "outputs").exists() or not any((home / "outputs").iterdir())


def test_diagnostics_empty_for_a_clean_home(host: plugline.Host) -> None:
    assert host.diagnostics() == []


def test_diagnostics_names_a_malformed_config_file(home: Path) -> None:
    home.mkdir()
    config = home / "config.yaml"
    config.write_text("plugins: [unclosed\n")
    with plugline.Host(home=home) as host:  # a bad config file does not fail creation
        diagnostics = host.diagnostics()
        assert host.shape("ls", "a\n")["summary"] == "a\n"
    assert len(diagnostics) == 1
    assert str(config) in diagnostics[0]
    assert "YAML" in diagnostics[0]


def test_diagnostics_from_the_project_config(home: Path, tmp_path: Path) -> None:
    project_config = tmp_path / "project" / ".plugline" / "config.yaml"
    project_config.parent.mkdir(parents=True)
    project_config.write_text("plugins:\n  enabled: maybe\nsurprise: 1\n")
    # The project's config is read only once the project is trusted (here: by the host).
    with plugline.Host(home=home, project_dir=tmp_path / "project", project_trust=True) as host:
        diagnostics = host.diagnostics()
    assert len(diagnostics) == 2
    assert all(message.startswith(str(project_config)) for message in diagnostics)
    assert any("plugins.enabled" in message for message in diagnostics)
    assert any("surprise" in message for message in diagnostics)


def test_use_after_close_raises(home: Path) -> None:
    host = plugline.Host(home=home)
    assert not host.closed
    host.close()
    assert host.closed
    with pytest.raises(plugline.Error) as caught:
        host.shape("ls", "a\n")
    assert isinstance(caught.value, plugline.InvalidStateError)
    assert caught.value.name == "PLUGLINE_ESTATE"
    assert "closed" in caught.value.message
    with pytest.raises(plugline.InvalidStateError):
        host.diagnostics()
    host.close()  # idempotent


def test_context_manager_closes(home: Path) -> None:
    with plugline.Host(home=home) as host:
        host.shape("ls", "a\n")
    assert host.closed
    with pytest.raises(plugline.InvalidStateError):
        host.shape("ls", "a\n")


def test_path_with_nul_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="NUL"):
        plugline.Host(home=f"{tmp_path}\0evil")


def test_concurrent_shapes_from_several_threads(host: plugline.Host) -> None:
    failures: list[BaseException] = []
    results: list[tuple[bytes, dict]] = []
    lock = threading.Lock()

    def work(worker: int) -> None:
        try:
            for round_number in range(10):
                output = b"worker %d round %d\n" % (worker, round_number) + numbered_lines(120)
                result = host.shape(f"job {worker}", output, exit_code=0)
                with lock:
                    results.append((output, result))
        except BaseException as error:  # reported below, in the main thread
            failures.append(error)

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(results) == 80
    assert len({result["raw_path"] for _, result in results}) == 80
    for output, result in results:
        assert Path(result["raw_path"]).read_bytes() == output
        # The header, then the output's first line.
        assert result["summary"].split("\n")[1] == output.split(b"\n")[0].decode()


def test_error_messages_belong_to_the_failing_thread(host: plugline.Host) -> None:
    """The last-error message is per thread: each thread must see its own shaper's name."""
    mismatches: list[str] = []
    start = threading.Barrier(8)

    def work(worker: int) -> None:
        start.wait()
        for _ in range(50):
            try:
                host.shape("ls", "a\n", shaper=f"missing-{worker}")
            except plugline.InvalidArgumentError as error:
                if f"'missing-{worker}'" not in error.message:
                    mismatches.append(error.message)
            else:
                mismatches.append("no error")

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert mismatches == []


def test_close_waits_for_a_call_running_in_another_thread(home: Path) -> None:
    inside = threading.Event()
    release = threading.Event()

    def slow_counter(text: str) -> int:
        inside.set()
        release.wait(10)
        return 7

    host = plugline.Host(home=home, token_counter=slow_counter)
    results: list[dict] = []
    shaper_thread = threading.Thread(target=lambda: results.append(host.shape("ls", "a\n")))
    shaper_thread.start()
    assert inside.wait(10)
    closer = threading.Thread(target=host.close)
    closer.start()
    closer.join(0.3)
    assert closer.is_alive(), "close() returned while a call was still running"
    with pytest.raises(plugline.InvalidStateError):
        host.shape("ls", "b\n")  # closing: no new calls
    release.set()
    shaper_thread.join(10)
    closer.join(10)
    assert not closer.is_alive()
    assert results and results[0]["tokens_raw"] == 7
    assert host.closed


def test_two_hosts_on_one_home_never_share_a_raw_file(home: Path) -> None:
    for round_number in range(300):
        with plugline.Host(home=home) as first, plugline.Host(home=home) as second:
            a = first.shape("a", b"first %d\n" % round_number)
            b = second.shape("b", b"second %d\n" % round_number)
        assert a["raw_path"] != b["raw_path"]
        assert Path(a["raw_path"]).read_bytes() == b"first %d\n" % round_number


def test_stats_count_shapings_and_can_be_turned_off(tmp_path: Path) -> None:
    output = "".join(f"line {i}\n" for i in range(1, 501))
    with plugline.Host(home=tmp_path) as host:
        host.shape("seq 500", output, 0)
        host.shape("seq 500", output, 0)
        stats = host.stats()
    generic = stats["shapers"]["builtin-generic"]
    assert generic["shape_count"] == 2
    assert generic["match_count"] == 2
    assert generic["tokens_saved"] > 0
    assert sum(day["builtin-generic"]["shapes"] for day in stats["daily"].values()) == 2

    quiet = tmp_path / "quiet"
    with plugline.Host(home=quiet, record_stats=False) as host:
        host.shape("seq 500", output, 0)
        assert host.stats().get("shapers", {}) == {}


def _failing_run(failures: int) -> str:
    lines = []
    for i in range(failures):
        lines.append(f"tests/test_{i}.py::test_case_{i} FAILED")
        lines.append(f"E   assert {i} == {i + 1}")
        lines.extend(f"    context {i}.{j} of the failure, printed by the runner" for j in range(8))
    return "\n".join(lines) + "\n"


def test_max_tokens_cuts_the_summary_and_says_so(host: plugline.Host) -> None:
    output = _failing_run(300)
    free = host.shape("./run-tests", output, exit_code=1, max_tokens=0)
    assert free["max_tokens"] == 0
    assert free["budget_lines_left_out"] == 0
    cut = host.shape("./run-tests", output, exit_code=1, max_tokens=400)
    assert cut["max_tokens"] == 400
    assert cut["tokens_summary"] <= 400 < free["tokens_summary"]
    assert cut["budget_lines_left_out"] > 0
    assert "-token budget: " in cut["summary"]
    assert cut["token_counter"] == "o200k_base"
    assert cut["tokens_saved"] == cut["tokens_raw"] - cut["tokens_summary"]
    default = host.shape("./run-tests", output, exit_code=1)
    assert default["max_tokens"] == 8000
    with pytest.raises(ValueError):
        host.shape("./run-tests", output, exit_code=1, max_tokens=-1)
    # 1 to 199 tokens leave no room for a summary: refused, as config.yaml refuses them.
    with pytest.raises(plugline.InvalidArgumentError, match="max_tokens 199: expected 0"):
        host.shape("./run-tests", output, exit_code=1, max_tokens=199)
    assert host.shape("./run-tests", output, exit_code=1, max_tokens=200)["max_tokens"] == 200
