"""Loading the library, versions and status codes, checked against the public header."""

from __future__ import annotations

import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import plugline
from plugline import _library

from conftest import REPO_ROOT, header_define, header_text

BINDING_DIR = REPO_ROOT / "bindings" / "python"


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=str(BINDING_DIR), **env)
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True,
                          text=True, timeout=60)


def test_version_matches_header_macros() -> None:
    major = int(header_define("PLUGLINE_VERSION_MAJOR"))
    minor = int(header_define("PLUGLINE_VERSION_MINOR"))
    patch = int(header_define("PLUGLINE_VERSION_PATCH"))
    assert plugline.version() == f"{major}.{minor}.{patch}"
    assert plugline.version_info() == (major, minor, patch)


def test_abi_version_matches_header_and_binding() -> None:
    abi = int(header_define("PLUGLINE_ABI_VERSION"))
    assert plugline.abi_version() == abi
    assert plugline.ABI_VERSION == abi


def test_exit_code_unknown_matches_header() -> None:
    match = re.fullmatch(r"\((-\d+) - 1\)", header_define("PLUGLINE_EXIT_CODE_UNKNOWN"))
    assert match
    assert plugline.EXIT_CODE_UNKNOWN == int(match.group(1)) - 1 == -(2**31)


def test_status_enum_matches_header() -> None:
    enum_body = re.search(r"typedef enum plugline_status \{(.*?)\}", header_text(), re.DOTALL)
    assert enum_body
    in_header = {name: int(value) for name, value
                 in re.findall(r"PLUGLINE_(\w+) = (-?\d+)", enum_body.group(1))}
    assert len(in_header) == 13
    assert {member.name: member.value for member in plugline.Status} == in_header
    for name, value in in_header.items():
        assert plugline.status_name(value) == f"PLUGLINE_{name}"
    assert plugline.status_name(-999) == "PLUGLINE_UNKNOWN"


def test_library_path_is_the_one_asked_for() -> None:
    explicit = os.environ.get("PLUGLINE_LIBRARY")
    if not explicit:
        pytest.skip("PLUGLINE_LIBRARY is not set")
    assert plugline.library_path() == os.path.abspath(explicit)


def test_error_carries_status_name_and_message() -> None:
    error = plugline.Error(-5, "took too long")
    assert error.status == plugline.Status.ETIMEOUT
    assert error.name == "PLUGLINE_ETIMEOUT"
    assert error.message == "took too long"
    assert str(error) == "PLUGLINE_ETIMEOUT: took too long"
    unknown = plugline.Error(-77, "")
    assert unknown.status == -77 and unknown.name == "PLUGLINE_UNKNOWN"
    copy = pickle.loads(pickle.dumps(plugline.PluginError(-12, "boom")))
    assert type(copy) is plugline.PluginError and copy.message == "boom"


def test_missing_library_raises_import_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such" / "libplugline.so"
    result = run_python("import plugline", PLUGLINE_LIBRARY=str(missing))
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert str(missing) in result.stderr
    assert "no such file" in result.stderr


def test_file_that_is_not_a_library_is_reported(tmp_path: Path) -> None:
    fake = tmp_path / "libplugline.so"
    fake.write_text("not an ELF file\n")
    result = run_python("import plugline", PLUGLINE_LIBRARY=str(fake))
    assert result.returncode != 0
    assert "ImportError" in result.stderr and str(fake) in result.stderr


def test_abi_mismatch_is_refused_with_both_versions() -> None:
    class FutureLibrary:
        @staticmethod
        def plugline_abi_version() -> int:
            return plugline.ABI_VERSION + 1

    with pytest.raises(ImportError, match=r"/x/libplugline\.so has C ABI version 2.*"
                                          r"written for ABI version 1"):
        _library.check_abi(FutureLibrary(), "/x/libplugline.so")  # type: ignore[arg-type]


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_abi_mismatch_at_import(tmp_path: Path) -> None:
    """A real shared library with every plugline_* symbol but ABI version 2 is refused."""
    stubs = "".join(f"void {name}(void) {{}}\n" for name in _library._PROTOTYPES
                    if name != "plugline_abi_version")
    source = tmp_path / "fake.c"
    source.write_text(stubs + "int plugline_abi_version(void) { return 2; }\n")
    fake = tmp_path / "libplugline.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(fake), str(source)], check=True)
    result = run_python("import plugline", PLUGLINE_LIBRARY=str(fake))
    assert result.returncode != 0
    assert "C ABI version 2" in result.stderr and str(fake) in result.stderr


def test_import_error_lists_every_place_tried(tmp_path: Path) -> None:
    """Without $PLUGLINE_LIBRARY and no library anywhere, the message names what was tried."""
    code = textwrap.dedent("""
        import ctypes.util
        ctypes.util.find_library = lambda name: None
        import plugline
    """)
    result = run_python(code, PLUGLINE_LIBRARY="", LD_LIBRARY_PATH=str(tmp_path))
    if result.returncode == 0:
        pytest.skip("libplugline.so.1 is installed on the loader's search path")
    assert "next to the package" in result.stderr
    assert "libplugline.so.1" in result.stderr
    assert "PLUGLINE_LIBRARY" in result.stderr
