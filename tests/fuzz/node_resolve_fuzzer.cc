// Node module resolution (core/node_resolve.h): package.json `exports` and `imports` maps,
// conditions, subpath patterns. The first line of the input is the specifier to import, the
// rest is written as the package.json of both a package in node_modules and the project that
// imports it (so `imports` are read from it too), in a folder tree made once per process:
//
//   <tmp>/project/package.json, src/main.mjs                the importer
//   <tmp>/project/node_modules/pkg/package.json             the package under test
//   <tmp>/project/node_modules/pkg/{index.js, lib/a.js, lib/b.mjs, lib/c.cjs, lib/d.ts,
//                                   lib/cjs.js, data.json}
//   <tmp>/project/node_modules/other/{package.json, o.mjs}  a second, well-formed package
//   <tmp>/outside.mjs                                       a file no resolution may reach
//
// Whatever resolves must be a file of the tree and, for a bare specifier, inside the package
// it names: a package.json can never point an import outside its package.
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/node_resolve.h"
#include "fuzz_check.h"
#include "fuzz_input.h"

namespace {

struct Tree {
  std::string root;  // real path
  std::string project;
  std::string node_modules;
  std::string pkg;
  std::string referrer;
  std::string referrer_in_pkg;
};

void Write(const std::string& path, std::string_view text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  FUZZ_CHECK(out.good());
}

const Tree& GetTree() {
  static const Tree tree = [] {
    std::string pattern = std::filesystem::temp_directory_path().string() + "/plugline-fuzz-XXXXXX";
    FUZZ_CHECK(::mkdtemp(pattern.data()) != nullptr);
    Tree t;
    t.root = std::filesystem::canonical(pattern).string();
    t.project = t.root + "/project";
    t.node_modules = t.project + "/node_modules";
    t.pkg = t.node_modules + "/pkg";
    t.referrer = t.project + "/src/main.mjs";
    t.referrer_in_pkg = t.pkg + "/lib/a.js";
    Write(t.project + "/package.json", "{}");
    Write(t.referrer, "export default 1;\n");
    Write(t.pkg + "/package.json", "{}");
    Write(t.pkg + "/index.js", "export default 1;\n");
    Write(t.pkg + "/lib/a.js", "export const a = 1;\n");
    Write(t.pkg + "/lib/b.mjs", "export const b = 1;\n");
    Write(t.pkg + "/lib/c.cjs", "module.exports = 1;\n");
    Write(t.pkg + "/lib/d.ts", "export const d: number = 1;\n");
    Write(t.pkg + "/lib/cjs.js", "module.exports = require('x');\n");
    Write(t.pkg + "/data.json", "{}\n");
    Write(t.node_modules + "/other/package.json",
          R"({"name":"other","type":"module","exports":{".":"./o.mjs","./*":"./*.mjs"}})");
    Write(t.node_modules + "/other/o.mjs", "export default 1;\n");
    Write(t.root + "/outside.mjs", "export default 1;\n");
    // The tree goes with the process (libFuzzer ends with exit(), which runs this).
    static std::string to_remove = t.root;
    std::atexit([] { std::filesystem::remove_all(to_remove); });
    return t;
  }();
  return tree;
}

bool Inside(std::string_view path, std::string_view root) {
  return path.starts_with(root) && (path.size() == root.size() || path[root.size()] == '/');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plugline::core;
  const Tree& tree = GetTree();
  plugline::fuzz::FuzzInput input(data, size);
  std::string specifier(input.Line());
  std::string_view package_json = input.Rest();
  Write(tree.pkg + "/package.json", package_json);
  Write(tree.project + "/package.json", package_json);

  absl::StatusOr<NodePackage> found = FindNodePackage("pkg", {tree.node_modules});
  if (found.ok()) {
    FUZZ_CHECK(found->root == tree.pkg);
    FUZZ_CHECK(Inside(found->entry, tree.pkg));
  }

  (void)ParsePackageSpec(specifier);
  for (const std::string& referrer : {tree.referrer, tree.referrer_in_pkg}) {
    absl::StatusOr<NodeImport> import = ResolveNodeImport(specifier, referrer, {tree.node_modules});
    if (!import.ok()) continue;
    FUZZ_CHECK(Inside(import->path, tree.project));
    FUZZ_CHECK(Inside(import->path, import->root));
    FUZZ_CHECK(std::filesystem::is_regular_file(import->path));
  }
  return 0;
}
