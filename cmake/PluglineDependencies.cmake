# Finds every third-party dependency. Each is a real library from Debian 12 (see
# scripts/bootstrap-debian.sh); nothing is vendored or downloaded at configure time.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(absl CONFIG REQUIRED)
find_package(simdjson CONFIG REQUIRED)
find_package(yaml-cpp CONFIG REQUIRED)
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
pkg_check_modules(LIBUV REQUIRED IMPORTED_TARGET libuv>=1.44)

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
# milliseconds each time. Debian ships Abseil, yaml-cpp, libuv and libcrypto as static archives too; a
# target that sets the property PLUGLINE_STATIC_DEPS links those instead (plugline_core picks
# per consumer, see src/CMakeLists.txt). Everything else (libplugline.so, the tests) links the
# shared libraries. When the archives are missing, the property changes nothing.
find_library(PLUGLINE_ABSL_BASE_ARCHIVE NAMES libabsl_base.a)
find_library(PLUGLINE_YAML_ARCHIVE NAMES libyaml-cpp.a)
find_library(PLUGLINE_UV_ARCHIVE NAMES libuv_a.a libuv.a)
find_library(PLUGLINE_CRYPTO_ARCHIVE NAMES libcrypto.a)
set(PLUGLINE_STATIC_DEPS_AVAILABLE OFF)
if(PLUGLINE_ABSL_BASE_ARCHIVE AND PLUGLINE_YAML_ARCHIVE AND PLUGLINE_UV_ARCHIVE AND
   PLUGLINE_CRYPTO_ARCHIVE)
  get_filename_component(_plugline_absl_dir "${PLUGLINE_ABSL_BASE_ARCHIVE}" DIRECTORY)
  file(GLOB _plugline_absl_archives "${_plugline_absl_dir}/libabsl_*.a")
  add_library(plugline_static_absl INTERFACE)
  # The archives depend on each other in no order a list can state: one group.
  target_link_libraries(plugline_static_absl INTERFACE
    "-Wl,--start-group" ${_plugline_absl_archives} "-Wl,--end-group" Threads::Threads)
  add_library(plugline_static_backends INTERFACE)
  target_link_libraries(plugline_static_backends INTERFACE
    "${PLUGLINE_YAML_ARCHIVE}" "${PLUGLINE_UV_ARCHIVE}" "${PLUGLINE_CRYPTO_ARCHIVE}"
    Threads::Threads ${CMAKE_DL_LIBS})
  set(PLUGLINE_STATIC_DEPS_AVAILABLE ON)
endif()
