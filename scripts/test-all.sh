#!/usr/bin/env bash
# Sets up this machine (Debian 12), builds plugline, and runs every test:
#   C++ units, CLI, C ABI and packaging (ctest), Python (pytest), Node (node --test),
#   and the PLUGLINE_WITH_V8=OFF build with its tests.
# Each runner prints its own summary line. Exits non-zero when anything fails.
#
#   scripts/test-all.sh           # as root, or as a user with sudo (for apt-get)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

step() { printf '\n==> %s\n' "$*"; }

step "bootstrap: system packages and V8 (libnode108)"
scripts/bootstrap-debian.sh

step "Node binding dependencies (npm ci)"
(cd bindings/node && npm ci --no-audit --no-fund --loglevel=error)

step "configure and build (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLUGLINE_WARNINGS_AS_ERRORS=ON
cmake --build build -j "$JOBS"

step "C++, CLI, C ABI and packaging tests (ctest)"
ctest --test-dir build --output-on-failure -j "$JOBS"

step "Python binding tests (pytest, Debian's python3)"
PLUGLINE_LIBRARY="$PWD/build/lib/libplugline.so" PYTHONPATH="$PWD/bindings/python" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider bindings/python/tests

step "Node binding tests (node --test)"
PLUGLINE_NODE_ADDON="$PWD/build/lib/plugline.node" node --test bindings/node/test/

step "example plugins' unit tests (node --test)"
node --test examples/plugins/test/*.test.mjs

step "plugline's own JS modules (node --test)"
node --test tests/js/modules/

step "build without V8 (PLUGLINE_WITH_V8=OFF) and its tests"
cmake -S . -B build-nov8 -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLUGLINE_WITH_V8=OFF \
  -DPLUGLINE_BUILD_NODE_BINDING=OFF -DPLUGLINE_BUILD_BENCHMARKS=OFF -DPLUGLINE_BUILD_EXAMPLES=OFF \
  -DPLUGLINE_WARNINGS_AS_ERRORS=ON
cmake --build build-nov8 -j "$JOBS"
ctest --test-dir build-nov8 --output-on-failure -j "$JOBS" -LE packaging

step "all tests passed"
