#!/usr/bin/env bash
# Sets up this machine (Debian 12), builds plugline, and runs every test:
#   C++ units, CLI, C ABI and packaging (ctest), Python (pytest), Node (node --test), real
#   OpenCode plugins from npm (node --test), the real agents (Claude Code, Codex CLI, Gemini
#   CLI, OpenCode, Copilot CLI) offline against a scripted model (pytest),
#   the PLUGLINE_WITH_V8=OFF build with its tests, the C++ tests under AddressSanitizer +
#   UndefinedBehaviorSanitizer, every fuzz target for a bounded time, and the concurrency tests
#   under ThreadSanitizer (docs/testing.md).
# Each runner prints its own summary line, and the end prints how long each step took. Exits
# non-zero when anything fails.
#
#   scripts/test-all.sh           # as root, or as a user with sudo (for apt-get)
#
# Environment:
#   JOBS                   parallel build and test jobs (default: nproc)
#   PLUGLINE_SANITIZERS    0 skips the sanitizer builds and the fuzzers (default 1)
#   PLUGLINE_FUZZ_SECONDS  fuzzing time per target (default 30; 12 targets)
#   PLUGLINE_FUZZ_JOBS     fuzz targets run at once (default: JOBS)
#   PLUGLINE_NPM_DIR       where npm packages the tests use are installed once (default
#                          /var/cache/plugline/npm)
#   PLUGLINE_CCACHE_DIR    the compiler cache (default /var/cache/plugline/ccache, outside the
#                          clone so that fresh clones reuse it); PLUGLINE_CCACHE=0 turns it off
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
export PLUGLINE_FUZZ_SECONDS=${PLUGLINE_FUZZ_SECONDS:-30}
export PLUGLINE_FUZZ_JOBS=${PLUGLINE_FUZZ_JOBS:-$JOBS}

# Every step's name and duration, printed at the end.
STEP_NAMES=()
STEP_SECONDS=()
STEP_STARTED=
CURRENT_STEP=
end_step() {
  if [ -n "$CURRENT_STEP" ]; then
    STEP_NAMES+=("$CURRENT_STEP")
    STEP_SECONDS+=($(($(date +%s) - STEP_STARTED)))
  fi
}
step() {
  end_step
  CURRENT_STEP="$*"
  STEP_STARTED=$(date +%s)
  printf '\n==> %s\n' "$*"
}
RUN_STARTED=$(date +%s)
print_timings() {
  end_step
  CURRENT_STEP=
  printf '\n==> time per step\n'
  for i in "${!STEP_NAMES[@]}"; do
    printf '%6ss  %s\n' "${STEP_SECONDS[$i]}" "${STEP_NAMES[$i]}"
  done
  printf '%6ss  in all\n' "$(($(date +%s) - RUN_STARTED))"
}
trap print_timings EXIT

step "bootstrap: system packages and V8 (libnode108)"
scripts/bootstrap-debian.sh

# A compiler cache outside the clone, with paths relative to the clone, so that a fresh clone
# in another folder compiles unchanged files from it.
LAUNCHER=()
if [ "${PLUGLINE_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR=${PLUGLINE_CCACHE_DIR:-/var/cache/plugline/ccache}
  export CCACHE_BASEDIR=$PWD
  export CCACHE_NOHASHDIR=1
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
  mkdir -p "$CCACHE_DIR"
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  ccache --zero-stats >/dev/null
fi

step "Node binding dependencies (npm ci)"
(cd bindings/node && npm ci --no-audit --no-fund --loglevel=error)

step "configure and build (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLUGLINE_WARNINGS_AS_ERRORS=ON \
  "${LAUNCHER[@]}"
cmake --build build -j "$JOBS"

step "C++, CLI, C ABI and packaging tests (ctest)"
ctest --test-dir build --output-on-failure -j "$JOBS"

step "Python binding tests (pytest, Debian's python3)"
PLUGLINE_LIBRARY="$PWD/build/lib/libplugline.so" PYTHONPATH="$PWD/bindings/python" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider bindings/python/tests

step "Node binding tests (node --test)"
PLUGLINE_NODE_ADDON="$PWD/build/lib/plugline.node" node --test bindings/node/test/

step "plugline's OpenCode plugin (node --test), against the real plugline"
PLUGLINE_BINARY="$PWD/build/bin/plugline" node --test bindings/opencode/test/

step "token counts against js-tiktoken on every fixture (node --test)"
PLUGLINE_BINARY="$PWD/build/bin/plugline" \
  PLUGLINE_TIKTOKEN_MODULES="${PLUGLINE_TOKENIZER_NPM:-/var/cache/plugline/npm/js-tiktoken-1.0.21}/node_modules" \
  node --test tests/tokens/

step "example plugins' unit tests (node --test)"
node --test examples/plugins/test/*.test.mjs

step "plugline's own JS modules (node --test), with the real Zod 3 and 4"
# The tool-schema tests also run against the real Zod, at pinned versions, installed once into
# a folder outside the clone (npm's own cache keeps the tarballs).
ZOD_VERSIONS=(zod@3.25.76 zod4@npm:zod@4.6.7)
ZOD_DIR=${PLUGLINE_NPM_DIR:-/var/cache/plugline/npm}/zod-3.25.76-4.6.7
if [ ! -f "$ZOD_DIR/node_modules/zod/index.js" ] || [ ! -f "$ZOD_DIR/node_modules/zod4/index.js" ]; then
  mkdir -p "$ZOD_DIR"
  (cd "$ZOD_DIR" && echo '{"private": true}' > package.json &&
   npm install --no-audit --no-fund --loglevel=error "${ZOD_VERSIONS[@]}")
fi
PLUGLINE_ZOD_MODULES="$ZOD_DIR/node_modules" node --test tests/js/modules/

step "the real agents, offline (pytest in a network namespace with only loopback)"
# Claude Code, Codex CLI, Gemini CLI, OpenCode and Copilot CLI from npm at pinned versions, installed once into a
# folder outside the clone (npm's own cache keeps the tarballs); then driven by a scripted model
# on 127.0.0.1, as root inside `unshare -n` so that nothing can leave the machine (tests/agents/).
AGENT_PACKAGES=(@anthropic-ai/claude-code@2.1.328 @openai/codex@0.169.0 @google/gemini-cli@0.61.0
                opencode-ai@1.18.33 @github/copilot@1.0.102)
AGENTS_DIR=${PLUGLINE_NPM_DIR:-/var/cache/plugline/npm}/agents-claude-code-2.1.328-codex-0.169.0-gemini-0.61.0-opencode-1.18.33-copilot-1.0.102
if [ ! -x "$AGENTS_DIR/node_modules/@anthropic-ai/claude-code-linux-x64/claude" ] ||
   [ ! -x "$AGENTS_DIR/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex" ] ||
   [ ! -f "$AGENTS_DIR/node_modules/@google/gemini-cli/bundle/gemini.js" ] ||
   [ ! -x "$AGENTS_DIR/node_modules/opencode-linux-x64/bin/opencode" ] ||
   [ ! -x "$AGENTS_DIR/node_modules/@github/copilot-linux-x64/copilot" ]; then
  rm -rf "$AGENTS_DIR.tmp" && mkdir -p "$AGENTS_DIR.tmp"
  (cd "$AGENTS_DIR.tmp" && echo '{"private": true}' > package.json &&
   npm install --no-audit --no-fund --loglevel=error "${AGENT_PACKAGES[@]}")
  rm -rf "$AGENTS_DIR" && mv "$AGENTS_DIR.tmp" "$AGENTS_DIR"
fi
AGENT_TESTS=(env PLUGLINE_AGENTS_DIR="$AGENTS_DIR" PLUGLINE_BINARY="$PWD/build/bin/plugline"
             /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/agents)
if [ "$(id -u)" -eq 0 ]; then
  unshare -n sh -c 'ip link set lo up && exec "$@"' sh "${AGENT_TESTS[@]}"
else
  echo "not root: the agents run without a network namespace (it needs root)"
  "${AGENT_TESTS[@]}"
fi

step "real OpenCode plugins from npm (node --test, offline in a network namespace)"
# Published OpenCode plugins at the versions tests/fixtures/opencode-npm/package-lock.json pins,
# installed once (`npm ci`, no install scripts) into a folder outside the clone named by the
# lock file's digest; then configured as a user would and driven through `plugline`
# (tests/opencode-npm/), as root inside `unshare -n`: some of them reach for the network.
OPENCODE_NPM_DIR=${PLUGLINE_NPM_DIR:-/var/cache/plugline/npm}/opencode-npm-$(sha256sum tests/fixtures/opencode-npm/package-lock.json | cut -c1-16)
if [ ! -f "$OPENCODE_NPM_DIR/node_modules/.package-lock.json" ]; then
  rm -rf "$OPENCODE_NPM_DIR.tmp" && mkdir -p "$OPENCODE_NPM_DIR.tmp"
  cp tests/fixtures/opencode-npm/package.json tests/fixtures/opencode-npm/package-lock.json "$OPENCODE_NPM_DIR.tmp/"
  (cd "$OPENCODE_NPM_DIR.tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  rm -rf "$OPENCODE_NPM_DIR" && mv "$OPENCODE_NPM_DIR.tmp" "$OPENCODE_NPM_DIR"
fi
NPM_PLUGIN_TESTS=(env PLUGLINE_BINARY="$PWD/build/bin/plugline" PLUGLINE_NODE_ADDON="$PWD/build/lib/plugline.node"
                  PLUGLINE_OPENCODE_NPM_MODULES="$OPENCODE_NPM_DIR/node_modules" node --test tests/opencode-npm/)
if [ "$(id -u)" -eq 0 ]; then
  unshare -n sh -c 'ip link set lo up && exec "$@"' sh "${NPM_PLUGIN_TESTS[@]}"
else
  echo "not root: the plugins run without a network namespace (it needs root)"
  "${NPM_PLUGIN_TESTS[@]}"
fi

step "build without V8 (PLUGLINE_WITH_V8=OFF) and its tests"
cmake -S . -B build-nov8 -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLUGLINE_WITH_V8=OFF \
  -DPLUGLINE_BUILD_NODE_BINDING=OFF -DPLUGLINE_BUILD_BENCHMARKS=OFF -DPLUGLINE_BUILD_EXAMPLES=OFF \
  -DPLUGLINE_WARNINGS_AS_ERRORS=ON "${LAUNCHER[@]}"
cmake --build build-nov8 -j "$JOBS"
ctest --test-dir build-nov8 --output-on-failure -j "$JOBS" -LE packaging

if [ "${PLUGLINE_SANITIZERS:-1}" != 0 ]; then
  # One clang tree for the ASan+UBSan tests and the fuzzers (their targets are instrumented for
  # coverage too): -O1, line tables only, no benchmarks, examples, Node addon or install rules.
  SANITIZER_FLAGS=(-DCMAKE_BUILD_TYPE=RelWithDebInfo
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"
    -DPLUGLINE_BUILD_BENCHMARKS=OFF -DPLUGLINE_BUILD_EXAMPLES=OFF
    -DPLUGLINE_BUILD_NODE_BINDING=OFF -DPLUGLINE_INSTALL=OFF -DPLUGLINE_WARNINGS_AS_ERRORS=ON)

  step "sanitizer build (build-san/: clang, AddressSanitizer + UBSan, libFuzzer targets)"
  CC=clang CXX=clang++ cmake -S . -B build-san -G Ninja "${SANITIZER_FLAGS[@]}" \
    -DPLUGLINE_SANITIZE=address,undefined -DPLUGLINE_BUILD_FUZZERS=ON "${LAUNCHER[@]}"
  cmake --build build-san -j "$JOBS"

  step "C++, CLI and C ABI tests under AddressSanitizer + UndefinedBehaviorSanitizer (ctest)"
  # Packaging tests build plugline again from scratch; the normal build runs them.
  (. tests/sanitizers/env.sh && ctest --test-dir build-san --output-on-failure -j "$JOBS" -LE packaging)

  step "fuzz targets, ${PLUGLINE_FUZZ_SECONDS}s each (tests/fuzz/run_fuzzers.sh)"
  rm -rf build-san/fuzz/seeds   # regenerated from this checkout's fixtures
  tests/fuzz/run_fuzzers.sh build-san

  step "ThreadSanitizer build (build-tsan/) of the concurrency tests"
  CC=clang CXX=clang++ cmake -S . -B build-tsan -G Ninja "${SANITIZER_FLAGS[@]}" \
    -DPLUGLINE_SANITIZE=thread "${LAUNCHER[@]}"
  cmake --build build-tsan -j "$JOBS" --target plugline_concurrency_tests

  step "concurrency tests under ThreadSanitizer (plugline_concurrency_tests)"
  # Not the test that abandons an isolate after V8's fatal out-of-memory: V8's Locker stays
  # locked on purpose then, which TSan reports as a lock-order inversion (docs/testing.md).
  (. tests/sanitizers/env.sh &&
   build-tsan/bin/plugline_concurrency_tests -tce="an allocation V8 cannot stop abandons*")
fi

if [ "${#LAUNCHER[@]}" -gt 0 ]; then
  step "compiler cache"
  ccache --show-stats | sed -n '1,8p'
fi

step "all tests passed"
