#!/usr/bin/env bash
# Installs everything plugline's build and tests need on Debian 12. Idempotent: a second run
# that finds everything in place changes nothing and does not touch the network.
#
#   scripts/bootstrap-debian.sh            # as root, or as a user with sudo
#
# V8 comes from Debian's libnode108 (Node 18's shared library, V8 10.2). A plain
# `apt-get install libnode-dev` is tried first (only if apt would not remove anything); where
# another Node.js package blocks it (NodeSource's Node 20 does), the two .debs are unpacked
# into a private prefix instead: $PLUGLINE_V8_PREFIX, default /opt/plugline/libnode108.
#
# Debian ships simdjson as a shared library only, and that library pulls in libstdc++.so, whose
# loading is most of the `plugline` client's start. The source package of the very version
# installed (fetched and verified by apt from Debian's deb-src index, under a private apt
# configuration that leaves the system's alone) goes to $PLUGLINE_SIMDJSON_SOURCE, default
# /opt/plugline/simdjson-source; the build compiles it into the command line only. Without it
# (no network), the command line links the shared library and starts ~0.8 ms slower.
#
# Token counts use the real o200k_base and cl100k_base BPE vocabularies. Their ranks come from
# js-tiktoken on npm (pinned, with its one dependency, in $PLUGLINE_TOKENIZER_NPM, default
# /var/cache/plugline/npm/js-tiktoken-1.0.21; the tests compare plugline's counts with it) and
# are written in the `.tiktoken` format to $PLUGLINE_TOKENIZER_SOURCE, default
# /opt/plugline/tokenizers, each checked against its SHA-256 (the same files OpenAI publishes).
# The build copies them next to the library; without them plugline counts with its estimate.
set -euo pipefail

V8_PREFIX=${PLUGLINE_V8_PREFIX:-/opt/plugline/libnode108}
SIMDJSON_SOURCE=${PLUGLINE_SIMDJSON_SOURCE:-/opt/plugline/simdjson-source}
TOKENIZER_SOURCE=${PLUGLINE_TOKENIZER_SOURCE:-/opt/plugline/tokenizers}
TOKENIZER_NPM=${PLUGLINE_TOKENIZER_NPM:-/var/cache/plugline/npm/js-tiktoken-1.0.21}

SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "bootstrap: run as root (or install sudo): apt-get needs it" >&2; exit 1
  fi
fi

say() { printf 'bootstrap: %s\n' "$*" >&2; }

PACKAGES=(
  build-essential cmake ninja-build pkg-config binutils ca-certificates curl git file
  libsimdjson-dev libuv1-dev libabsl-dev doctest-dev libyaml-cpp-dev
  libcurl4-openssl-dev libssl-dev libpcre2-dev libarchive-dev
  python3 python3-pytest
  # `pip install ./bindings/python` offline, tested (setuptools and wheel build it)
  python3-pip python3-setuptools python3-wheel
  # the C and C++ agent-loop examples parse JSON with these (examples/c_host, examples/cpp_host)
  libcjson-dev nlohmann-json3-dev
  # the sanitizer and fuzzer builds (clang, its sanitizer and libFuzzer runtimes) and the
  # compiler cache scripts/test-all.sh uses
  clang libclang-rt-14-dev ccache
  # headless Chromium renders `plugline stats --html` in a test (no console errors, charts drawn)
  chromium
  # runtime libraries of libnode108 (needed when it is unpacked into the prefix)
  libbrotli1 libc-ares2 libicu72 libnghttp2-14 libssl3 libuv1 zlib1g
  # the JS parts of Node that Debian's libnode108 loads from /usr/share/nodejs when Node itself
  # starts (plugline-node-worker): the CommonJS export lexer, acorn, undici (fetch)
  node-cjs-module-lexer node-acorn node-undici
)
# Node.js and npm for the N-API binding: keep whatever Node is installed (e.g. NodeSource 20).
command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || PACKAGES+=(npm)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

updated=0
apt_update_once() {
  if [ "$updated" -eq 0 ]; then
    say "apt-get update"
    $SUDO apt-get update -qq
    updated=1
  fi
}

if [ "${#missing[@]}" -gt 0 ]; then
  apt_update_once
  say "installing: ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- V8 (libnode108) -------------------------------------------------------------------------
v8_major() {  # prints V8_MAJOR_VERSION of the header under $1, or nothing
  local h="$1/v8-version.h"
  [ -f "$h" ] && awk '/#define V8_MAJOR_VERSION/{print $3}' "$h"
}

if [ "$(v8_major /usr/include/node)" = "10" ] && [ -e /usr/lib/x86_64-linux-gnu/libnode.so.108 ]; then
  say "V8 10 found in /usr (libnode-dev)"
elif [ "$(v8_major "$V8_PREFIX/usr/include/node")" = "10" ] && [ -e "$V8_PREFIX/usr/lib/x86_64-linux-gnu/libnode.so.108" ]; then
  say "V8 10 found in $V8_PREFIX"
else
  apt_update_once
  if ! [ -d /usr/include/node ] && $SUDO apt-get install -s libnode-dev 2>/dev/null | grep -q '^Inst libnode-dev' \
     && ! $SUDO apt-get install -s libnode-dev 2>/dev/null | grep -q '^Remv'; then
    say "installing libnode-dev from Debian"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libnode-dev >/dev/null
  else
    say "libnode-dev cannot be installed system-wide here; unpacking libnode108 into $V8_PREFIX"
    ver=$(apt-cache show --no-all-versions libnode108 | awk '/^Version:/{print $2; exit}')
    [ -n "$ver" ] || { say "no libnode108 in the apt sources"; exit 1; }
    debs=$(mktemp -d)
    chmod 0777 "$debs"   # apt's sandbox user downloads into it
    ( cd "$debs" && $SUDO apt-get download -qq "libnode108=$ver" "libnode-dev=$ver" )
    $SUDO rm -rf "$V8_PREFIX.tmp"
    $SUDO mkdir -p "$V8_PREFIX.tmp"
    for f in "$debs"/libnode108_*.deb "$debs"/libnode-dev_*.deb; do $SUDO dpkg-deb -x "$f" "$V8_PREFIX.tmp"; done
    rm -rf "$debs"
    # Replace atomically so an interrupted run never leaves half a prefix behind.
    $SUDO rm -rf "$V8_PREFIX"
    $SUDO mv "$V8_PREFIX.tmp" "$V8_PREFIX"
    [ "$(v8_major "$V8_PREFIX/usr/include/node")" = "10" ] || { say "unpacked headers are not V8 10"; exit 1; }
  fi
fi
# --- simdjson's source, for the command line's static link ----------------------------------
sj_version=$(dpkg-query -W -f='${Version}' libsimdjson-dev 2>/dev/null || true)
if [ -n "$sj_version" ] && [ "$(cat "$SIMDJSON_SOURCE/VERSION" 2>/dev/null)" = "$sj_version" ]; then
  say "simdjson $sj_version source found in $SIMDJSON_SOURCE"
elif [ -n "$sj_version" ]; then
  work=$(mktemp -d)
  chmod 0777 "$work"   # apt's sandbox user downloads into it
  mkdir -p "$work/lists/partial" "$work/cache" "$work/parts" "$work/download"
  chmod 0777 "$work/download"
  cat > "$work/parts/debian-src.sources" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $(. /etc/os-release && echo "$VERSION_CODENAME")
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  apt_src=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/parts"
           -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache")
  say "fetching Debian's source of simdjson $sj_version"
  if $SUDO apt-get "${apt_src[@]}" update -qq >/dev/null 2>&1 &&
     ( cd "$work/download" && $SUDO apt-get "${apt_src[@]}" source --download-only -qq "simdjson=$sj_version" >/dev/null 2>&1 ); then
    orig=$(ls "$work"/download/simdjson_*.orig.tar.* | head -1)
    mkdir -p "$work/unpacked"
    tar -xf "$orig" -C "$work/unpacked" --strip-components=1 --wildcards '*/singleheader/simdjson.cpp' '*/singleheader/simdjson.h'
    $SUDO rm -rf "$SIMDJSON_SOURCE.tmp"
    $SUDO mkdir -p "$SIMDJSON_SOURCE.tmp"
    $SUDO cp "$work/unpacked/singleheader/simdjson.cpp" "$work/unpacked/singleheader/simdjson.h" "$SIMDJSON_SOURCE.tmp/"
    echo "$sj_version" | $SUDO tee "$SIMDJSON_SOURCE.tmp/VERSION" >/dev/null
    $SUDO rm -rf "$SIMDJSON_SOURCE"
    $SUDO mv "$SIMDJSON_SOURCE.tmp" "$SIMDJSON_SOURCE"
  else
    say "could not fetch simdjson's source (offline?): the command line links the shared library"
  fi
  $SUDO rm -rf "$work"
fi
# --- BPE ranks for token counts (o200k_base, cl100k_base) -------------------------------------
declare -A TOKENIZER_SHA256=(
  [o200k_base]=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d
  [cl100k_base]=223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7
)
tokenizers_ok() {
  local name
  for name in "${!TOKENIZER_SHA256[@]}"; do
    echo "${TOKENIZER_SHA256[$name]}  $TOKENIZER_SOURCE/$name.tiktoken" | sha256sum -c --status 2>/dev/null || return 1
  done
}
if tokenizers_ok; then
  say "BPE ranks found in $TOKENIZER_SOURCE"
else
  if ! [ -f "$TOKENIZER_NPM/node_modules/js-tiktoken/package.json" ]; then
    say "installing js-tiktoken 1.0.21 from npm into $TOKENIZER_NPM"
    $SUDO mkdir -p "$TOKENIZER_NPM"
    ( cd "$TOKENIZER_NPM" && $SUDO env npm_config_cache=/var/cache/plugline/npm npm install \
        --no-audit --no-fund --silent --prefix "$TOKENIZER_NPM" js-tiktoken@1.0.21 base64-js@1.5.1 ) ||
      say "could not install js-tiktoken (offline?)"
  fi
  if [ -f "$TOKENIZER_NPM/node_modules/js-tiktoken/package.json" ]; then
    here=$(cd "$(dirname "$0")" && pwd)
    $SUDO rm -rf "$TOKENIZER_SOURCE.tmp"
    $SUDO node "$here/tiktoken-ranks.mjs" "$TOKENIZER_NPM/node_modules/js-tiktoken" "$TOKENIZER_SOURCE.tmp" \
      "${!TOKENIZER_SHA256[@]}" >/dev/null
    saved=$TOKENIZER_SOURCE
    TOKENIZER_SOURCE=$TOKENIZER_SOURCE.tmp
    if tokenizers_ok; then
      TOKENIZER_SOURCE=$saved
      $SUDO rm -rf "$TOKENIZER_SOURCE"
      $SUDO mv "$TOKENIZER_SOURCE.tmp" "$TOKENIZER_SOURCE"
      say "BPE ranks written to $TOKENIZER_SOURCE"
    else
      TOKENIZER_SOURCE=$saved
      $SUDO rm -rf "$TOKENIZER_SOURCE.tmp"
      say "the BPE ranks made from js-tiktoken do not have the expected SHA-256: not used"
      exit 1
    fi
  else
    say "no BPE ranks: plugline will count tokens with its estimate"
  fi
fi
say "done"
