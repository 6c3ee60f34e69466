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
