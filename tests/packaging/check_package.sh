#!/usr/bin/env bash
# Packaging tests: plugline consumed by an outside project, the ways such projects consume it.
#
#   check_package.sh find_package     --source-dir=S --binary-dir=B [options]
#       cmake --install B into a fresh prefix, check what was installed (files, exported symbols,
#       RUNPATHs, no build-tree paths, version compatibility), then build and run the consumer in
#       consumer/ with find_package(plugline) and again with pkg-config.
#   check_package.sh add_subdirectory --source-dir=S [options]
#       build subproject/, which vendors plugline with add_subdirectory, and run its consumer.
#
# Options (from tests/packaging/CMakeLists.txt): --generator= --make-program= --c-compiler=
# --cxx-compiler= --build-type= --with-v8=ON|OFF --with-cli=ON|OFF --v8-prefix= --version=
# --libdir= --includedir= --bindir= (the last three relative to the prefix).
#
# Every test works in its own temporary directory, removed at exit; set
# PLUGLINE_PACKAGING_KEEP=1 to keep it. Each step is announced; a failing step prints its
# command's output and what was expected, and the script exits non-zero.
set -u -o pipefail

mode="${1:-}"
shift || true
source_dir="" binary_dir="" generator="" make_program="" c_compiler="" cxx_compiler=""
build_type="" with_v8="OFF" with_cli="OFF" v8_prefix="" version=""
libdir="lib" includedir="include" bindir="bin"
for arg in "$@"; do
  case "$arg" in
    --source-dir=*) source_dir="${arg#*=}" ;;
    --binary-dir=*) binary_dir="${arg#*=}" ;;
    --generator=*) generator="${arg#*=}" ;;
    --make-program=*) make_program="${arg#*=}" ;;
    --c-compiler=*) c_compiler="${arg#*=}" ;;
    --cxx-compiler=*) cxx_compiler="${arg#*=}" ;;
    --build-type=*) build_type="${arg#*=}" ;;
    --with-v8=*) with_v8="${arg#*=}" ;;
    --with-cli=*) with_cli="${arg#*=}" ;;
    --v8-prefix=*) v8_prefix="${arg#*=}" ;;
    --version=*) version="${arg#*=}" ;;
    --libdir=*) libdir="${arg#*=}" ;;
    --includedir=*) includedir="${arg#*=}" ;;
    --bindir=*) bindir="${arg#*=}" ;;
    *) echo "check_package.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done
case "$with_v8" in ON|1|TRUE|true|YES|yes) with_v8=ON ;; *) with_v8=OFF ;; esac
case "$with_cli" in ON|1|TRUE|true|YES|yes) with_cli=ON ;; *) with_cli=OFF ;; esac
if [[ -z "$source_dir" || ! -f "$source_dir/CMakeLists.txt" ]]; then
  echo "check_package.sh: --source-dir must name plugline's source tree" >&2
  exit 2
fi
here="$source_dir/tests/packaging"
cmake_bin="${CMAKE_COMMAND:-cmake}"

work="$(mktemp -d "${TMPDIR:-/tmp}/plugline-packaging-${mode:-none}.XXXXXX")" || exit 1
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  if [[ "${PLUGLINE_PACKAGING_KEEP:-0}" == 1 ]]; then
    echo "-- kept $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
# A host process must not see the caller's plugline state or install redirections.
unset DESTDIR PLUGLINE_HOME PLUGLINE_JS_BACKEND

failures=0
step() { echo "-- $*"; }
# fail MESSAGE: records a failed check and goes on.
fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}
# run NAME COMMAND...: runs a command with its output in $work/NAME.log; on failure prints the
# log and stops the test.
run() {
  local name="$1"
  shift
  local log="$work/$name.log"
  if ! "$@" >"$log" 2>&1; then
    echo "FAILED: $name: $*" >&2
    echo "---- output (last 150 lines of $log) ----" >&2
    tail -n 150 "$log" >&2
    echo "----" >&2
    exit 1
  fi
}
finish() {
  if ((failures > 0)); then
    echo "$mode: $failures check(s) failed" >&2
    exit 1
  fi
  echo "$mode: all checks passed"
  exit 0
}

# Arguments every nested CMake configure gets: the same generator, compilers and build type as
# the build under test.
cmake_args=()
[[ -n "$generator" ]] && cmake_args+=(-G "$generator")
[[ -n "$make_program" ]] && cmake_args+=("-DCMAKE_MAKE_PROGRAM=$make_program")
[[ -n "$c_compiler" ]] && cmake_args+=("-DCMAKE_C_COMPILER=$c_compiler")
[[ -n "$build_type" ]] && cmake_args+=("-DCMAKE_BUILD_TYPE=$build_type")
# Only what the test names may be found: no user or system package registry.
cmake_args+=(-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
build_args=()
[[ -n "$build_type" ]] && build_args+=(--config "$build_type")
# One job per core whatever the generator (make alone would run one at a time).
parallel_args=(--parallel "$(nproc 2>/dev/null || echo 2)")

# run_consumer NAME EXECUTABLE: runs a consumer with a fresh home (and the JS check with V8).
run_consumer() {
  local name="$1" exe="$2"
  local home="$work/home-$name"
  mkdir -p "$home"
  local js=()
  [[ "$with_v8" == ON ]] && js=(--js)
  step "run the $name consumer${js:+ (with the JS check)}"
  if ! "$exe" "$home" "${js[@]}" >"$work/run-$name.log" 2>&1; then
    cat "$work/run-$name.log" >&2
    fail "the $name consumer's checks (output above)"
  else
    cat "$work/run-$name.log"
  fi
}

# ---------------------------------------------------------------------------------------------
check_find_package() {
  if [[ -z "$binary_dir" || ! -f "$binary_dir/CMakeCache.txt" ]]; then
    echo "check_package.sh: --binary-dir must name plugline's build tree" >&2
    exit 2
  fi
  local prefix="$work/prefix"
  local lib="$prefix/$libdir"

  step "cmake --install $binary_dir --prefix $prefix"
  run install "$cmake_bin" --install "$binary_dir" --prefix "$prefix" "${build_args[@]}"

  step "check the installed files"
  local expected=(
    "$includedir/plugline/plugline.h"
    "$libdir/libplugline.so"
    "$libdir/libplugline.so.$version"
    "$libdir/cmake/plugline/pluglineConfig.cmake"
    "$libdir/cmake/plugline/pluglineConfigVersion.cmake"
    "$libdir/cmake/plugline/plugline-targets.cmake"
    "$libdir/pkgconfig/plugline.pc"
  )
  [[ "$with_v8" == ON ]] && expected+=("$libdir/plugline/libplugline-v8.so" "$libdir/plugline/plugline-js-worker")
  [[ "$with_cli" == ON ]] && expected+=("$bindir/plugline" "$libdir/plugline/plugline-catalog")
  local file
  for file in "${expected[@]}"; do
    [[ -e "$prefix/$file" ]] || fail "not installed: $file"
  done
  # The soname follows the ABI version, not the project version: read it from the library.
  local soname
  soname="$(readelf -d "$lib/libplugline.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
  if [[ -z "$soname" ]]; then
    fail "$libdir/libplugline.so has no SONAME"
  elif [[ ! -L "$lib/$soname" ]]; then
    fail "the soname link $libdir/$soname was not installed"
  fi
  # Only the C ABI header is public; the C++ API needs plugline_core, which is not installed.
  local headers
  headers="$(cd "$prefix/$includedir" && find . -type f | sort | tr '\n' ' ')"
  [[ "$headers" == "./plugline/plugline.h " ]] || fail "installed headers are '$headers', want only plugline/plugline.h"
  local archives
  archives="$(find "$prefix" -name '*.a')"
  [[ -z "$archives" ]] || fail "a static library was installed: $(tr '\n' ' ' <<<"$archives")"
  if grep -q 'plugline_core\|plugline::core' "$lib/cmake/plugline/"*.cmake; then
    fail "the exported targets mention plugline_core"
  fi

  if [[ "$with_cli" == ON ]]; then
    step "the installed plugline finds the installed plugline-catalog"
    mkdir -p "$work/catalog"
    printf 'export default {};\n' >"$work/catalog/x.js"
    printf 'plugins:\n  - {id: x, file: x.js, version: 1.0.0, kind: js-shaper}\n' >"$work/catalog/catalog.yaml"
    local built
    built="$(PLUGLINE_HOME="$work/home" "$prefix/$bindir/plugline" catalog build "$work/catalog" \
               --base-url http://127.0.0.1:1/ 2>&1)" || fail "plugline catalog build failed: $built"
    [[ -s "$work/catalog/index.json" ]] || fail "plugline catalog build wrote no index: $built"
  fi

  step "check that nothing installed points into the build or source tree"
  local text
  for text in "$lib/cmake/plugline/"*.cmake "$lib/pkgconfig/plugline.pc"; do
    if grep -qF -e "$binary_dir" -e "$source_dir" "$text"; then
      fail "$(basename "$text") names the build or source tree: $(grep -nF -e "$binary_dir" -e "$source_dir" "$text" | head -3)"
    fi
  done
  local elf runpath
  for elf in "$lib/libplugline.so" "$prefix/$bindir/plugline" "$lib/plugline/libplugline-v8.so" \
             "$lib/plugline/plugline-js-worker" "$lib/plugline/plugline-catalog"; do
    [[ -e "$elf" ]] || continue
    runpath="$(readelf -d "$elf" | sed -n 's/.*(\(RPATH\|RUNPATH\)).*\[\(.*\)\]/\2/p')"
    case "$runpath" in
      *"$binary_dir"*|*"$source_dir"*) fail "${elf#"$prefix"/} keeps a build-tree RUNPATH: $runpath" ;;
    esac
    if [[ "$elf" != */libplugline-v8.so && -n "$runpath" ]]; then
      fail "${elf#"$prefix"/} has a RUNPATH ($runpath); its dependencies are on the default path"
    fi
  done

  step "check that libplugline.so exports only plugline_* symbols"
  local symbols others
  symbols="$(nm -D --defined-only "$lib/libplugline.so" | awk 'NF >= 3 { print $3 }')"
  others="$(grep -v '^plugline_' <<<"$symbols" || true)"
  if [[ -n "$others" ]]; then
    fail "libplugline.so exports symbols outside plugline_*: $(head -20 <<<"$others" | tr '\n' ' ')"
  fi
  local symbol
  for symbol in plugline_version_string plugline_host_new plugline_host_shape plugline_free; do
    grep -qx "$symbol" <<<"$symbols" || fail "libplugline.so does not export $symbol"
  done
  echo "   $(wc -l <<<"$symbols") symbols, all plugline_*"

  step "check pluglineConfigVersion.cmake's compatibility rules"
  local request want
  local major="${version%%.*}" rest="${version#*.}"
  local minor="${rest%%.*}"
  for request in "$major.$minor:1" "$version:1" "$major.$((minor + 1)):0" "$((major + 1)).0:0"; do
    want="${request##*:}"
    request="${request%:*}"
    if ! "$cmake_bin" -DVERSION_FILE="$lib/cmake/plugline/pluglineConfigVersion.cmake" \
           -DREQUEST="$request" -DEXPECT_COMPATIBLE="$want" \
           -P "$here/check_version_file.cmake" >"$work/version.log" 2>&1; then
      fail "$(cat "$work/version.log")"
    fi
  done

  step "configure and build consumer/ with find_package(plugline) and CMAKE_PREFIX_PATH=$prefix"
  run consumer-configure "$cmake_bin" -S "$here/consumer" -B "$work/consumer-build" \
    "${cmake_args[@]}" "-DCMAKE_PREFIX_PATH=$prefix"
  run consumer-build "$cmake_bin" --build "$work/consumer-build" "${build_args[@]}" "${parallel_args[@]}"
  local found
  found="$(sed -n 's/^plugline_DIR:PATH=//p' "$work/consumer-build/CMakeCache.txt")"
  [[ "$found" == "$lib/cmake/plugline" ]] || fail "find_package found plugline in '$found', not in $lib/cmake/plugline"
  local exe="$work/consumer-build/consumer"
  [[ -x "$exe" ]] || exe="$(find "$work/consumer-build" -type f -name consumer -perm -u+x | head -1)"
  # (Output captured first: with pipefail, `ldd | grep -q` can fail on ldd's SIGPIPE.)
  local loaded
  loaded="$(ldd "$exe" 2>&1 | grep libplugline)"
  [[ "$loaded" == *"=> $lib/libplugline"* ]] || fail "the consumer does not load libplugline from $lib: $loaded"
  run_consumer find_package "$exe"

  step "build consumer/main.c with pkg-config --cflags --libs plugline"
  export PKG_CONFIG_PATH="$lib/pkgconfig"
  local pc_version cflags libs
  pc_version="$(pkg-config --modversion plugline 2>&1)" || fail "pkg-config cannot find plugline: $pc_version"
  [[ "$pc_version" == "$version" ]] || fail "pkg-config --modversion plugline is '$pc_version', want $version"
  cflags="$(pkg-config --cflags plugline)"
  libs="$(pkg-config --libs plugline)"
  echo "   cflags: $cflags"
  echo "   libs:   $libs"
  # shellcheck disable=SC2086  # the flags are words
  run pkg-config-build "${c_compiler:-cc}" -std=c11 -Wall -Wextra -pedantic -Werror \
    $cflags "$here/consumer/main.c" -o "$work/consumer-pc" $libs "-Wl,-rpath,$lib"
  run_consumer pkg-config "$work/consumer-pc"

  step "cmake --install --component plugline_runtime installs no development files"
  run install-runtime "$cmake_bin" --install "$binary_dir" --prefix "$work/runtime" \
    --component plugline_runtime "${build_args[@]}"
  [[ -e "$work/runtime/$libdir/libplugline.so.$version" ]] || fail "the runtime component lacks libplugline.so.$version"
  for file in "$includedir/plugline/plugline.h" "$libdir/libplugline.so" \
              "$libdir/cmake/plugline/pluglineConfig.cmake" "$libdir/pkgconfig/plugline.pc"; do
    [[ -e "$work/runtime/$file" ]] && fail "the runtime component installs $file"
  done
  finish
}

# ---------------------------------------------------------------------------------------------
check_add_subdirectory() {
  local build="$work/subproject-build"
  local args=("${cmake_args[@]}" "-DPLUGLINE_SOURCE_DIR=$source_dir" "-DPLUGLINE_WITH_V8=$with_v8")
  [[ -n "$cxx_compiler" ]] && args+=("-DCMAKE_CXX_COMPILER=$cxx_compiler")
  [[ -n "$v8_prefix" ]] && args+=("-DPLUGLINE_V8_PREFIX=$v8_prefix")

  step "configure subproject/ (add_subdirectory(plugline), PLUGLINE_WITH_V8=$with_v8)"
  run subproject-configure "$cmake_bin" -S "$here/subproject" -B "$build" "${args[@]}"
  step "build subproject/ (compiles plugline again)"
  run subproject-build "$cmake_bin" --build "$build" "${build_args[@]}" "${parallel_args[@]}"

  # Nothing of plugline's own test, benchmark or example targets was generated.
  if "$cmake_bin" --build "$build" --target help >"$work/targets.log" 2>&1; then
    local unwanted
    unwanted="$(grep -E 'plugline_tests|plugline_capi_test|plugline_cli|benchmark|example' "$work/targets.log" || true)"
    [[ -z "$unwanted" ]] || fail "the vendored build has targets it should not: $(tr '\n' ' ' <<<"$unwanted")"
  fi
  local exe="$build/consumer"
  [[ -x "$exe" ]] || exe="$(find "$build" -type f -name consumer -perm -u+x | head -1)"
  run_consumer add_subdirectory "$exe"
  finish
}

case "$mode" in
  find_package) check_find_package ;;
  add_subdirectory) check_add_subdirectory ;;
  *) echo "usage: check_package.sh find_package|add_subdirectory --source-dir=DIR [options]" >&2; exit 2 ;;
esac
