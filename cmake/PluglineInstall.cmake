# Install rules, included from the top-level CMakeLists.txt when PLUGLINE_INSTALL is ON (the
# default when plugline is the top-level project).
#
# What is installed, and for whom:
#   <includedir>/plugline/plugline.h                the stable C ABI (the only public header)
#   <libdir>/libplugline.so.<ver>, .so.1, .so       the C ABI library and its soname links
#   <libdir>/plugline/libplugline-v8.so             the V8 backend, dlopen'ed by libplugline.so
#                                                   (looked up at <dir of libplugline.so>/plugline/)
#   <libdir>/plugline/plugline-js-worker            the worker process of JS process isolation,
#                                                   found where the backend is; it finds the
#                                                   backend in its own directory
#   <bindir>/plugline                               the command-line tool
#   <libdir>/cmake/plugline/                        find_package(plugline) -> plugline::plugline
#   <libdir>/pkgconfig/plugline.pc                  pkg-config --cflags --libs plugline
#
# Only the C ABI is exported. plugline_core (static) and the C++ API in include/plugline/host.h
# are for projects that build plugline with add_subdirectory; the installed package neither
# ships nor requires them. plugline_capi links plugline_core PRIVATE, and a shared library's
# PRIVATE dependencies are not part of its link interface, so the export set needs nothing
# but plugline_capi, and pluglineConfig.cmake needs no find_dependency().
#
# RPATH: libplugline.so and the CLI depend only on libraries on the default search path
# (Debian's Abseil, simdjson, yaml-cpp, libuv, curl, OpenSSL), so they are installed without
# one (CMake strips the build-tree RPATH; a packager may still set CMAKE_INSTALL_RPATH). The V8
# backend keeps its INSTALL_RPATH to libnode108's private prefix (src/js/v8/CMakeLists.txt).
#
# Components, for packagers (cmake --install <build> --component <name>):
#   plugline_runtime      the shared library (versioned file and soname link), V8 backend, JS
#                         worker, CLI
#   plugline_development  header, unversioned .so link, CMake package files, plugline.pc

include(CMakePackageConfigHelpers)

# Where the CMake package files and plugline.pc go. Derived from CMAKE_INSTALL_LIBDIR on every
# configure (so a changed libdir moves them too) unless set with -D.
if(NOT DEFINED PLUGLINE_INSTALL_CMAKEDIR)
  set(PLUGLINE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/plugline")
endif()
if(NOT DEFINED PLUGLINE_INSTALL_PKGCONFIGDIR)
  set(PLUGLINE_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endif()

# ---- The C ABI library and its header ---------------------------------------------------------

install(TARGETS plugline_capi
  EXPORT plugline-targets
  LIBRARY
    DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    COMPONENT plugline_runtime
    NAMELINK_COMPONENT plugline_development
  ARCHIVE
    DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    COMPONENT plugline_development
  RUNTIME
    DESTINATION "${CMAKE_INSTALL_BINDIR}"
    COMPONENT plugline_runtime
  PUBLIC_HEADER
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/plugline"
    COMPONENT plugline_development)

# ---- The V8 backend module and the CLI (not exported: nothing links them) ----------------------

# Must sit at <libdir>/plugline/ beside libplugline.so: src/js/runtime_loader.cc looks for it at
# <dir of libplugline.so>/${PLUGLINE_BACKEND_SUBDIR}/libplugline-v8.so first.
if(TARGET plugline_js_v8)
  install(TARGETS plugline_js_v8
    LIBRARY
      DESTINATION "${CMAKE_INSTALL_LIBDIR}/${PLUGLINE_BACKEND_SUBDIR}"
      COMPONENT plugline_runtime)
endif()

# The JS worker (Isolation::kProcess) lives beside the backend: the parent looks for it with the
# same candidate list as for the backend (src/js/runtime_loader.cc), and the worker, which links
# plugline_core statically like the CLI, loads the backend from its own directory. It links only
# libraries on the default search path, so it needs no RPATH.
if(TARGET plugline_js_worker)
  install(TARGETS plugline_js_worker
    RUNTIME
      DESTINATION "${CMAKE_INSTALL_LIBDIR}/${PLUGLINE_BACKEND_SUBDIR}"
      COMPONENT plugline_runtime)
endif()

# The Node.js worker (the `node` runtime) lives there too; it links libnode108 and keeps its
# INSTALL_RPATH to libnode108's prefix, as the backend does.
if(TARGET plugline_node_worker)
  install(TARGETS plugline_node_worker
    RUNTIME
      DESTINATION "${CMAKE_INSTALL_LIBDIR}/${PLUGLINE_BACKEND_SUBDIR}"
      COMPONENT plugline_runtime)
endif()

# The downloading commands' program, run by the CLI from the same candidate directories.
if(TARGET plugline_catalog_tool)
  install(TARGETS plugline_catalog_tool
    RUNTIME
      DESTINATION "${CMAKE_INSTALL_LIBDIR}/${PLUGLINE_BACKEND_SUBDIR}"
      COMPONENT plugline_runtime)
endif()

if(TARGET plugline_cli)
  install(TARGETS plugline_cli
    RUNTIME
      DESTINATION "${CMAKE_INSTALL_BINDIR}"
      COMPONENT plugline_runtime)
endif()

if(PLUGLINE_TOKENIZER_FILES)
  install(FILES ${PLUGLINE_TOKENIZER_FILES}
    DESTINATION "${CMAKE_INSTALL_DATADIR}/plugline/tokenizers"
    COMPONENT plugline_runtime)
endif()

# ---- find_package(plugline) ------------------------------------------------------------------

install(EXPORT plugline-targets
  NAMESPACE plugline::
  FILE plugline-targets.cmake
  DESTINATION "${PLUGLINE_INSTALL_CMAKEDIR}"
  COMPONENT plugline_development)

# Lets pluglineConfig.cmake tell consumers whether JS plugins can run with this installation.
if(TARGET plugline_js_v8)
  set(PLUGLINE_PACKAGE_WITH_V8 ON)
else()
  set(PLUGLINE_PACKAGE_WITH_V8 OFF)
endif()

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/pluglineConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/pluglineConfig.cmake"
  INSTALL_DESTINATION "${PLUGLINE_INSTALL_CMAKEDIR}")

# Compatibility follows semantic versioning. From 1.0 on, any later release with the same major
# version is accepted. While the major version is 0, every minor release may break the API, so
# only the same 0.MINOR (any patch at least as new) is accepted: find_package(plugline 0.1)
# takes 0.1.x and refuses 0.2.0. The binary interface is versioned separately, by the soname
# (libplugline.so.${PLUGLINE_ABI_VERSION}).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_plugline_version_compatibility SameMinorVersion)
else()
  set(_plugline_version_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/pluglineConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY ${_plugline_version_compatibility})
unset(_plugline_version_compatibility)

install(FILES
    "${PROJECT_BINARY_DIR}/pluglineConfig.cmake"
    "${PROJECT_BINARY_DIR}/pluglineConfigVersion.cmake"
  DESTINATION "${PLUGLINE_INSTALL_CMAKEDIR}"
  COMPONENT plugline_development)

# ---- pkg-config ---------------------------------------------------------------------------------

# plugline.pc locates the prefix relative to itself (${pcfiledir}), so the installed tree can be
# moved, and `cmake --install --prefix <elsewhere>` yields a correct file even though the prefix
# was not known at configure time. Absolute install dirs are written as they are.
foreach(_dir IN ITEMS LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
    set(PLUGLINE_PC_${_dir} "${CMAKE_INSTALL_${_dir}}")
  else()
    set(PLUGLINE_PC_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
  endif()
endforeach()
if(IS_ABSOLUTE "${PLUGLINE_INSTALL_PKGCONFIGDIR}")
  set(PLUGLINE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  # "lib/pkgconfig" -> "../..", "lib/x86_64-linux-gnu/pkgconfig" -> "../../..".
  file(RELATIVE_PATH _plugline_pc_up "/_/${PLUGLINE_INSTALL_PKGCONFIGDIR}" "/_")
  string(REGEX REPLACE "/$" "" _plugline_pc_up "${_plugline_pc_up}")
  set(PLUGLINE_PC_PREFIX "\${pcfiledir}/${_plugline_pc_up}")
  unset(_plugline_pc_up)
endif()
configure_file(
  "${CMAKE_CURRENT_LIST_DIR}/plugline.pc.in"
  "${PROJECT_BINARY_DIR}/plugline.pc"
  @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/plugline.pc"
  DESTINATION "${PLUGLINE_INSTALL_PKGCONFIGDIR}"
  COMPONENT plugline_development)
