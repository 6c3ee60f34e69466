"""Conan 2 recipe for plugline: the shared library with the stable C ABI (plugline::plugline),
its V8 backend module and the `plugline` command-line tool.

The recipe lives in conan/ and packages the source tree one level up:

    conan create conan/ -s compiler.cppstd=20 --build=missing     # build, run test_package
    conan create conan/ -s compiler.cppstd=20 -o "plugline/*:with_v8=False"
    conan build conan/ -s compiler.cppstd=20 --build=missing      # local build in build-conan/

V8 is not on ConanCenter: with with_v8=True (the default) the build uses V8 10 from Debian's
libnode108, looked up in PLUGLINE_V8_PREFIX (default /opt/plugline/libnode108, as unpacked by
scripts/bootstrap-debian.sh) and then /usr. Another prefix can be given with the conf
`user.plugline:v8_prefix=/path` (profile [conf] section or -c on the command line). The V8
backend keeps an RPATH to that prefix, so libnode108 must be present where the package is used.
"""
import os
import re

from conan import ConanFile
from conan.errors import ConanInvalidConfiguration
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load, rmdir
from conan.tools.gnu import PkgConfigDeps
from conan.tools.scm import Version

required_conan_version = ">=2.0.5"


class PluglineConan(ConanFile):
    name = "plugline"
    description = "An embeddable plugin system for AI-agent hosts, with a stable C ABI"
    topics = ("plugins", "ai-agents", "output-shaping", "hooks", "v8")
    license = "Apache-2.0"
    package_type = "shared-library"  # libplugline.so is always shared: it is the C ABI
    settings = "os", "arch", "compiler", "build_type"
    options = {
        "with_v8": [True, False],
        "with_cli": [True, False],
    }
    default_options = {
        "with_v8": True,
        "with_cli": True,
    }

    # ---- version and sources: taken from the tree around conan/ ----

    def set_version(self):
        # The single source of the version is the C header, as in the top-level CMakeLists.txt.
        header = load(self, os.path.join(self.recipe_folder, "..", "capi", "include", "plugline",
                                         "plugline.h"))
        parts = [re.search(rf"#define PLUGLINE_VERSION_{part}\s+(\d+)", header).group(1)
                 for part in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def export_sources(self):
        root = os.path.join(self.recipe_folder, "..")
        copy(self, "CMakeLists.txt", root, self.export_sources_folder)
        for pattern in ("cmake/*", "capi/*", "include/*", "src/*", "LICENSE*"):
            copy(self, pattern, root, self.export_sources_folder)

    def layout(self):
        # The project root (its CMakeLists.txt) is one level above this recipe. "build-conan"
        # rather than cmake_layout's "build", which the developers' own build tree may use.
        self.folders.root = ".."
        cmake_layout(self, build_folder="build-conan")

    # ---- configuration ----

    def validate(self):
        if self.settings.os != "Linux":
            # dlopen'ed backend, ELF symbol-version script, libuv process handling as written.
            raise ConanInvalidConfiguration(f"{self.ref} supports Linux only")
        # C++20 throughout: build with -s compiler.cppstd=20 (or gnu20), so that Abseil and
        # plugline agree (`conan profile detect` picks gnu17 for GCC 12).
        check_min_cppstd(self, 20)
        minimum = {"gcc": "11", "clang": "14"}.get(str(self.settings.compiler))
        if minimum and Version(self.settings.compiler.version) < minimum:
            raise ConanInvalidConfiguration(
                f"{self.ref} needs {self.settings.compiler} >= {minimum} (C++20)")

    def requirements(self):
        # All private to libplugline.so (linked into it from the static core, hidden by its
        # version script): consumers of the C ABI get neither their headers nor their libraries.
        # Lower bounds are the versions plugline is developed against (Debian 12).
        self.requires("abseil/[>=20220623.1 <20250000]")
        self.requires("simdjson/[>=3.0.1 <4]")
        self.requires("yaml-cpp/[>=0.7.0 <0.9]")
        self.requires("libuv/[>=1.44.2 <2]")
        self.requires("libcurl/[>=7.88.1 <9]")
        self.requires("openssl/[>=3.0 <4]")

    def build_requirements(self):
        self.tool_requires("cmake/[>=3.21 <4]")
        # libuv is found with pkg_check_modules (cmake/PluglineDependencies.cmake).
        self.tool_requires("pkgconf/[>=1.9 <3]")

    def generate(self):
        tc = CMakeToolchain(self)
        tc.cache_variables["PLUGLINE_WITH_V8"] = bool(self.options.with_v8)
        tc.cache_variables["PLUGLINE_BUILD_CLI"] = bool(self.options.with_cli)
        tc.cache_variables["PLUGLINE_BUILD_TESTS"] = False
        tc.cache_variables["PLUGLINE_BUILD_BENCHMARKS"] = False
        tc.cache_variables["PLUGLINE_BUILD_EXAMPLES"] = False
        tc.cache_variables["PLUGLINE_BUILD_NODE_BINDING"] = False
        tc.cache_variables["PLUGLINE_INSTALL"] = True
        v8_prefix = self.conf.get("user.plugline:v8_prefix", check_type=str)
        if v8_prefix:
            tc.cache_variables["PLUGLINE_V8_PREFIX"] = v8_prefix
        tc.generate()

        # absl::*, simdjson::simdjson, yaml-cpp(::yaml-cpp), CURL::libcurl, OpenSSL::Crypto.
        CMakeDeps(self).generate()

        # libuv through pkg-config: ConanCenter names a static libuv's file libuv-static.pc;
        # plugline asks for libuv.pc whatever the linkage. CMakeToolchain puts the generators
        # folder on PKG_CONFIG_PATH.
        pc = PkgConfigDeps(self)
        pc.set_property("libuv", "pkg_config_name", "libuv")
        pc.generate()

    # ---- build and package ----

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def package(self):
        copy(self, "LICENSE*", self.source_folder, os.path.join(self.package_folder, "licenses"))
        cmake = CMake(self)
        cmake.install()
        # Conan generates the consumers' CMake and pkg-config files from package_info().
        rmdir(self, os.path.join(self.package_folder, "lib", "cmake"))
        rmdir(self, os.path.join(self.package_folder, "lib", "pkgconfig"))

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "plugline")
        self.cpp_info.set_property("cmake_target_name", "plugline::plugline")
        self.cpp_info.set_property("pkg_config_name", "plugline")
        self.cpp_info.libs = ["plugline"]
        self.cpp_info.includedirs = ["include"]
        self.cpp_info.libdirs = ["lib"]
        # The C ABI needs no C++ runtime flags, defines or system libraries from its consumers.
        # lib/plugline/libplugline-v8.so (with_v8) is found by libplugline.so next to itself.
        self.cpp_info.bindirs = ["bin"] if self.options.with_cli else []
