# Finds every third-party dependency. Each is a real library from Debian 12 (see
# scripts/bootstrap-debian.sh); nothing is vendored or downloaded at configure time.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(absl CONFIG REQUIRED)
find_package(simdjson CONFIG REQUIRED)
find_package(yaml-cpp CONFIG REQUIRED)
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
# Folder plugins from a catalog arrive as tar or zip archives.
find_package(LibArchive REQUIRED)
pkg_check_modules(LIBUV REQUIRED IMPORTED_TARGET libuv>=1.44)
# PCRE2 splits text the way the BPE tokenizers do (Unicode properties, look-ahead).
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8>=10.34)

# yaml-cpp 0.7 exports the target `yaml-cpp` without a namespace; later versions add
# `yaml-cpp::yaml-cpp`. Use one name below.
if(TARGET yaml-cpp::yaml-cpp)
  set(PLUGLINE_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(PLUGLINE_YAML_TARGET yaml-cpp)
endif()

if(PLUGLINE_WITH_V8)
  include(PluglineV8)
endif()

# The `plugline` command line is a client that starts on every hook call of an agent: loading
# some 30 Abseil shared libraries (and libcurl's 25, which it does not call) would cost it
# milliseconds each time. Debian ships Abseil, yaml-cpp, libuv, libcrypto and PCRE2 as static archives too; a
# target that sets the property PLUGLINE_STATIC_DEPS links those instead (plugline_core picks
# per consumer, see src/CMakeLists.txt). Everything else (libplugline.so, the tests) links the
# shared libraries. When the archives are missing, the property changes nothing.
find_library(PLUGLINE_ABSL_BASE_ARCHIVE NAMES libabsl_base.a)
find_library(PLUGLINE_YAML_ARCHIVE NAMES libyaml-cpp.a)
find_library(PLUGLINE_UV_ARCHIVE NAMES libuv_a.a libuv.a)
find_library(PLUGLINE_CRYPTO_ARCHIVE NAMES libcrypto.a)
find_library(PLUGLINE_PCRE2_ARCHIVE NAMES libpcre2-8.a)
set(PLUGLINE_STATIC_DEPS_AVAILABLE OFF)
if(PLUGLINE_ABSL_BASE_ARCHIVE AND PLUGLINE_YAML_ARCHIVE AND PLUGLINE_UV_ARCHIVE AND
   PLUGLINE_CRYPTO_ARCHIVE AND PLUGLINE_PCRE2_ARCHIVE)
  get_filename_component(_plugline_absl_dir "${PLUGLINE_ABSL_BASE_ARCHIVE}" DIRECTORY)
  file(GLOB _plugline_absl_archives "${_plugline_absl_dir}/libabsl_*.a")
  add_library(plugline_static_absl INTERFACE)
  # The archives depend on each other in no order a list can state: one group.
  target_link_libraries(plugline_static_absl INTERFACE
    "-Wl,--start-group" ${_plugline_absl_archives} "-Wl,--end-group" Threads::Threads)
  add_library(plugline_static_backends INTERFACE)
  target_link_libraries(plugline_static_backends INTERFACE
    "${PLUGLINE_YAML_ARCHIVE}" "${PLUGLINE_UV_ARCHIVE}" "${PLUGLINE_CRYPTO_ARCHIVE}"
    "${PLUGLINE_PCRE2_ARCHIVE}"
    Threads::Threads ${CMAKE_DL_LIBS})
  set(PLUGLINE_STATIC_DEPS_AVAILABLE ON)
endif()

# Debian's simdjson is a shared library only, and it needs libstdc++.so, whose loading alone is
# about 0.8 ms of every command's start. scripts/bootstrap-debian.sh puts the Debian source of
# the installed version in PLUGLINE_SIMDJSON_SOURCE; with it (and the same version as the
# installed header), the command line compiles simdjson in.
set(PLUGLINE_STATIC_SIMDJSON_AVAILABLE OFF)
set(_plugline_sj_cpp "${PLUGLINE_SIMDJSON_SOURCE}/simdjson.cpp")
set(_plugline_sj_h "${PLUGLINE_SIMDJSON_SOURCE}/simdjson.h")
get_target_property(_plugline_sj_includes simdjson::simdjson INTERFACE_INCLUDE_DIRECTORIES)
find_file(PLUGLINE_SIMDJSON_HEADER simdjson.h PATHS ${_plugline_sj_includes} NO_DEFAULT_PATH)
if(PLUGLINE_STATIC_DEPS_AVAILABLE AND EXISTS "${_plugline_sj_cpp}" AND EXISTS "${_plugline_sj_h}"
   AND PLUGLINE_SIMDJSON_HEADER)
  file(STRINGS "${_plugline_sj_h}" _plugline_sj_source_version REGEX "^#define SIMDJSON_VERSION ")
  file(STRINGS "${PLUGLINE_SIMDJSON_HEADER}" _plugline_sj_installed_version
       REGEX "^#define SIMDJSON_VERSION ")
  if(_plugline_sj_source_version STREQUAL _plugline_sj_installed_version)
    add_library(plugline_static_simdjson STATIC "${_plugline_sj_cpp}")
    set_target_properties(plugline_static_simdjson PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_compile_definitions(plugline_static_simdjson PUBLIC
      $<TARGET_PROPERTY:simdjson::simdjson,INTERFACE_COMPILE_DEFINITIONS>)
    target_compile_options(plugline_static_simdjson PRIVATE -w)
    target_link_libraries(plugline_static_simdjson PUBLIC Threads::Threads)
    set(PLUGLINE_STATIC_SIMDJSON_AVAILABLE ON)
    message(STATUS "plugline: the command line compiles in simdjson from ${PLUGLINE_SIMDJSON_SOURCE}")
  else()
    message(STATUS "plugline: ${PLUGLINE_SIMDJSON_SOURCE} holds another simdjson than the "
                   "installed one (${_plugline_sj_source_version}); the command line links the shared library")
  endif()
endif()

# The BPE ranks token counts use (scripts/bootstrap-debian.sh writes them from js-tiktoken).
# They are copied to <build>/share/plugline/tokenizers, where the library and the programs of the
# build tree look for them (core/tokens.h), and installed to <datadir>/plugline/tokenizers.
# Without them plugline counts tokens with its estimate.
set(PLUGLINE_TOKENIZER_FILES "")
foreach(_encoding IN ITEMS o200k_base cl100k_base)
  if(EXISTS "${PLUGLINE_TOKENIZER_SOURCE}/${_encoding}.tiktoken")
    configure_file("${PLUGLINE_TOKENIZER_SOURCE}/${_encoding}.tiktoken"
                   "${PROJECT_BINARY_DIR}/share/plugline/tokenizers/${_encoding}.tiktoken" COPYONLY)
    list(APPEND PLUGLINE_TOKENIZER_FILES
         "${PROJECT_BINARY_DIR}/share/plugline/tokenizers/${_encoding}.tiktoken")
  endif()
endforeach()
if(PLUGLINE_TOKENIZER_FILES)
  message(STATUS "plugline: token counts use the BPE ranks from ${PLUGLINE_TOKENIZER_SOURCE}")
else()
  message(STATUS "plugline: no BPE ranks in ${PLUGLINE_TOKENIZER_SOURCE} "
                 "(scripts/bootstrap-debian.sh writes them): token counts are estimates")
endif()
