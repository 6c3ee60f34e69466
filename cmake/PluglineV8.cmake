# Finds V8 10 from Debian's libnode108 and defines the imported target plugline::v8.
#
# Candidates, in order: ${PLUGLINE_V8_PREFIX}/usr (the private prefix the bootstrap script
# unpacks into when libnode-dev cannot be installed system-wide), then /usr. A candidate is
# accepted only when its v8-version.h says V8_MAJOR_VERSION 10: Node 20's /usr/include/node
# is V8 11, links fine against nothing and segfaults at the first isolate.
set(_plugline_v8_found FALSE)
foreach(_root IN ITEMS "${PLUGLINE_V8_PREFIX}/usr" "/usr")
  set(_inc "${_root}/include/node")
  if(NOT EXISTS "${_inc}/v8-version.h")
    continue()
  endif()
  file(STRINGS "${_inc}/v8-version.h" _major REGEX "^#define V8_MAJOR_VERSION ")
  string(REGEX REPLACE "^#define V8_MAJOR_VERSION +([0-9]+).*" "\\1" _major "${_major}")
  if(NOT _major STREQUAL "10")
    message(STATUS "plugline: ignoring V8 ${_major} headers in ${_inc} (need V8 10 from libnode108)")
    continue()
  endif()
  find_library(PLUGLINE_LIBNODE NAMES libnode.so.108
               PATHS "${_root}/lib/x86_64-linux-gnu" "${_root}/lib" NO_DEFAULT_PATH)
  if(PLUGLINE_LIBNODE)
    set(_plugline_v8_found TRUE)
    set(PLUGLINE_V8_INCLUDE_DIR "${_inc}")
    break()
  endif()
endforeach()

if(NOT _plugline_v8_found)
  message(FATAL_ERROR
    "plugline: V8 10 (Debian's libnode108) not found in ${PLUGLINE_V8_PREFIX}/usr or /usr.\n"
    "Run scripts/bootstrap-debian.sh, set PLUGLINE_V8_PREFIX, or configure with -DPLUGLINE_WITH_V8=OFF.")
endif()

get_filename_component(PLUGLINE_LIBNODE_DIR "${PLUGLINE_LIBNODE}" DIRECTORY)
add_library(plugline::v8 SHARED IMPORTED)
# SYSTEM include (-isystem) so V8's own headers do not warn under -Wall -Wextra. No compile
# definitions: libnode108 is built without pointer compression and 31-bit SMIs.
set_target_properties(plugline::v8 PROPERTIES
  IMPORTED_LOCATION "${PLUGLINE_LIBNODE}"
  IMPORTED_NO_SONAME FALSE
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${PLUGLINE_V8_INCLUDE_DIR}"
  INTERFACE_INCLUDE_DIRECTORIES "${PLUGLINE_V8_INCLUDE_DIR}")
message(STATUS "plugline: V8 10 from ${PLUGLINE_LIBNODE}")
