# Sanitizer and fuzzer instrumentation of plugline's own targets (docs/testing.md).
#
#   PLUGLINE_SANITIZE       "" (default), or what -fsanitize= takes: "address,undefined",
#                           "thread". UndefinedBehaviorSanitizer findings abort the run
#                           (-fno-sanitize-recover): a finding that only prints is missed in CI.
#   PLUGLINE_BUILD_FUZZERS  OFF (default). ON builds the libFuzzer targets of tests/fuzz/ and
#                           instruments plugline's code for coverage (-fsanitize=fuzzer-no-link);
#                           needs clang. Without it the targets' entry points are still built
#                           into plain drivers that replay tests/fuzz/regressions/.
#
# The flags live on the interface target plugline_sanitize, which every plugline target gets
# through plugline_warnings (linked PRIVATE everywhere), so nothing reaches a parent project's
# own targets: no CMAKE_CXX_FLAGS are touched. A parent that links the static plugline::core of
# a sanitized build must link the sanitizer runtime too, which -fsanitize= at link does, so the
# link options ride along with plugline_core's link-only dependencies.
set(PLUGLINE_SANITIZE "" CACHE STRING
    "Sanitizers for plugline's own targets, as -fsanitize= takes them (e.g. address,undefined)")
option(PLUGLINE_BUILD_FUZZERS "Build the libFuzzer targets in tests/fuzz (needs clang)" OFF)

add_library(plugline_sanitize INTERFACE)

# --no-undefined cannot hold for a shared library built with a sanitizer: its runtime lives in
# the executable (clang links it there only), so the library's __asan_*/__tsan_* references are
# undefined at its own link. Shared libraries use this variable instead of the plain option.
set(PLUGLINE_NO_UNDEFINED_LINK_OPTION "LINKER:--no-undefined")

if(PLUGLINE_SANITIZE OR PLUGLINE_BUILD_FUZZERS)
  set(PLUGLINE_NO_UNDEFINED_LINK_OPTION "")
endif()

if(PLUGLINE_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "plugline: PLUGLINE_SANITIZE needs clang or gcc")
  endif()
  target_compile_options(plugline_sanitize INTERFACE
    "-fsanitize=${PLUGLINE_SANITIZE}" -fno-omit-frame-pointer)
  target_link_options(plugline_sanitize INTERFACE "-fsanitize=${PLUGLINE_SANITIZE}")
  if(PLUGLINE_SANITIZE MATCHES "undefined")
    target_compile_options(plugline_sanitize INTERFACE -fno-sanitize-recover=undefined)
    if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      # The V8 backend's objects have no RTTI; the list says which types and why. ccache does
      # not hash the list's content, so the compiler reads a copy whose name has the digest of
      # the content: a changed list is a changed command line (and reconfigures).
      set(_plugline_ignorelist "${PROJECT_SOURCE_DIR}/tests/sanitizers/ubsan_ignorelist.txt")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_plugline_ignorelist}")
      file(SHA256 "${_plugline_ignorelist}" _plugline_digest)
      string(SUBSTRING "${_plugline_digest}" 0 16 _plugline_digest)
      set(_plugline_ignorelist_copy
          "${PROJECT_BINARY_DIR}/sanitizers/ubsan_ignorelist-${_plugline_digest}.txt")
      configure_file("${_plugline_ignorelist}" "${_plugline_ignorelist_copy}" COPYONLY)
      # Ninja runs every command from the top build folder: there the list is named relative
      # to it, so the command line is the same in every clone and ccache hits in a fresh one
      # (it does not rewrite this option's path under CCACHE_BASEDIR).
      if(CMAKE_GENERATOR MATCHES "Ninja")
        file(RELATIVE_PATH _plugline_ignorelist_copy "${CMAKE_BINARY_DIR}"
             "${_plugline_ignorelist_copy}")
      endif()
      target_compile_options(plugline_sanitize INTERFACE
        "-fsanitize-ignorelist=${_plugline_ignorelist_copy}")
    endif()
  endif()
  if(PLUGLINE_SANITIZE MATCHES "thread")
    # Debian's Abseil and libuv are not built with TSan: every executable gets the annotations
    # that make absl::Mutex and libuv's closing of descriptors visible to it
    # (tests/sanitizers/tsan_annotations.cc says how).
    target_sources(plugline_sanitize INTERFACE
      "$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:${PROJECT_SOURCE_DIR}/tests/sanitizers/tsan_annotations.cc>")
    target_link_libraries(plugline_sanitize INTERFACE
      "$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:absl::synchronization;${CMAKE_DL_LIBS}>")
  endif()
  message(STATUS "plugline: -fsanitize=${PLUGLINE_SANITIZE} on plugline's own targets")
endif()

if(PLUGLINE_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "plugline: PLUGLINE_BUILD_FUZZERS needs clang (libFuzzer), not "
                        "${CMAKE_CXX_COMPILER_ID}: configure with -DCMAKE_CXX_COMPILER=clang++ "
                        "-DCMAKE_C_COMPILER=clang")
  endif()
  if(NOT PLUGLINE_BUILD_TESTS)
    message(FATAL_ERROR "plugline: PLUGLINE_BUILD_FUZZERS needs PLUGLINE_BUILD_TESTS (the "
                        "targets live in tests/fuzz)")
  endif()
  # Coverage instrumentation for everything the fuzzers reach; libFuzzer itself is linked into
  # the fuzz targets only (tests/fuzz/CMakeLists.txt).
  target_compile_options(plugline_sanitize INTERFACE -fsanitize=fuzzer-no-link)
endif()
