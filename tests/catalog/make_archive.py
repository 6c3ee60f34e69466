#!/usr/bin/env python3
"""Writes a real archive with exactly the entries a test asks for, hostile ones included.

usage: make_archive.py OUTPUT SPEC_JSON

OUTPUT ends in .tar.gz, .tgz, .tar or .zip. SPEC_JSON is a list of entries:
  {"name": "guard/run.sh", "type": "file", "data": "...", "mode": 493}
  {"name": "guard", "type": "dir"}
  {"name": "guard/l", "type": "symlink", "target": "../../etc"}
  {"name": "guard/h", "type": "hardlink", "target": "guard/run.sh"}
  {"name": "guard/p", "type": "fifo"}
  {"name": "guard/zeros", "type": "zeros", "size": 1048576}   (a file of NUL bytes)
Names are written as given (absolute paths and '..' included), which tar(1) would refuse.
"""
import io
import json
import sys
import tarfile
import zipfile


def main():
    output, spec = sys.argv[1], json.loads(sys.argv[2])
    if output.endswith(".zip"):
        with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as z:
            for e in spec:
                if e["type"] == "dir":
                    z.writestr(e["name"].rstrip("/") + "/", b"")
                elif e["type"] == "zeros":
                    z.writestr(e["name"], b"\0" * e["size"])
                else:
                    z.writestr(e["name"], e.get("data", "").encode())
        return
    mode = "w:gz" if output.endswith((".tar.gz", ".tgz")) else "w"
    with tarfile.open(output, mode, format=tarfile.GNU_FORMAT) as t:
        for e in spec:
            info = tarfile.TarInfo(e["name"])
            info.mode = e.get("mode", 0o644)
            data = None
            kind = e["type"]
            if kind == "file":
                data = e.get("data", "").encode()
                info.size = len(data)
            elif kind == "zeros":
                data = b"\0" * e["size"]
                info.size = len(data)
            elif kind == "dir":
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
            elif kind == "symlink":
                info.type = tarfile.SYMTYPE
                info.linkname = e["target"]
            elif kind == "hardlink":
                info.type = tarfile.LNKTYPE
                info.linkname = e["target"]
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
            elif kind == "chardev":
                info.type = tarfile.CHRTYPE
            t.addfile(info, io.BytesIO(data) if data is not None else None)


if __name__ == "__main__":
    main()
