#!/usr/bin/env bash
# Sets up this machine (Debian 12), builds plugline, and runs its main job on a real example:
# a Python project whose test suite fails, run through `plugline run`.
#
#   scripts/demo.sh               # as root, or as a user with sudo (for apt-get)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap-debian.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target plugline_cli >/dev/null

printf '\n$ plugline run -- python3 -m pytest -v examples/projects/pytest-failing\n\n'
set +e
build/bin/plugline run -- /usr/bin/python3 -m pytest -v examples/projects/pytest-failing
code=$?
set -e
printf '\n(pytest exited with %d, and so did plugline run; raw outputs are kept in %s)\n' \
  "$code" "${PLUGLINE_HOME:-$HOME/.plugline}/outputs"
