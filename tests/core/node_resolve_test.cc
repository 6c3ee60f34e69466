// npm package resolution for JS plugins (core/node_resolve.h): real folders, real package.json.
#include "core/node_resolve.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>

#include "core/strings.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using plugline::testing::TempDir;
using plugline::testing::WriteFile;

bool Contains(absl::string_view haystack, std::string_view needle) {
  return ToStd(haystack).find(needle) != std::string_view::npos;
}

std::string Real(const std::string& path) { return std::filesystem::canonical(path).string(); }

TEST_CASE("package specs: names, scopes, versions, paths are not names") {
  auto plain = ParsePackageSpec("opencode-wakatime");
  REQUIRE(plain.ok());
  CHECK(plain->name == "opencode-wakatime");
  CHECK(plain->version.empty());
  auto scoped = ParsePackageSpec("@acme/guard@^1.2.0");
  REQUIRE(scoped.ok());
  CHECK(scoped->name == "@acme/guard");
  CHECK(scoped->version == "^1.2.0");
  auto versioned = ParsePackageSpec("x@1.0.0");
  REQUIRE(versioned.ok());
  CHECK(versioned->version == "1.0.0");
  for (const char* bad : {"../evil", "/etc", "a/b", "@scope", "@/x", ".hidden", "_x", "a b", "",
                          "@acme/../../x", "x\\y"}) {
    CAPTURE(bad);
    auto parsed = ParsePackageSpec(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(Contains(parsed.status().message(), "is not an npm package name"));
  }
}

TEST_CASE("Node and Bun built-in modules are recognised by name") {
  for (const char* builtin : {"fs", "node:fs", "fs/promises", "path", "node:child_process",
                              "bun", "bun:sqlite", "crypto", "url"}) {
    CAPTURE(builtin);
    CHECK(IsRuntimeBuiltinModule(builtin));
  }
  for (const char* other : {"zod", "fsx", "@opencode-ai/plugin", "pathe"}) {
    CAPTURE(other);
    CHECK_FALSE(IsRuntimeBuiltinModule(other));
  }
}

TEST_CASE("FindNodePackage: exports conditions in the package's order, then module, main, index") {
  TempDir tmp;
  std::string nm = tmp.Sub("node_modules");
  // "require" comes first but is not a condition an ES module import matches.
  WriteFile(nm + "/cond/package.json",
            R"({"name":"cond","version":"2.1.0","exports":{".":{"require":"./r.cjs",)"
            R"("import":"./esm/i.js","default":"./d.js"}}})");
  WriteFile(nm + "/cond/r.cjs", "module.exports = 1;\n");
  WriteFile(nm + "/cond/esm/i.js", "export default 1;\n");
  WriteFile(nm + "/cond/d.js", "export default 2;\n");
  auto cond = FindNodePackage("cond", {nm});
  REQUIRE_MESSAGE(cond.ok(), cond.status().ToString());
  CHECK(cond->entry == Real(nm + "/cond/esm/i.js"));
  CHECK(cond->version == "2.1.0");
  CHECK(cond->root == Real(nm + "/cond"));

  // A string export.
  WriteFile(nm + "/str/package.json", R"({"name":"str","exports":"./main.mjs"})");
  WriteFile(nm + "/str/main.mjs", "export const x = 1;\n");
  auto str = FindNodePackage("str", {nm});
  REQUIRE(str.ok());
  CHECK(str->entry == Real(nm + "/str/main.mjs"));

  // `module` over `main`.
  WriteFile(nm + "/legacy/package.json", R"({"name":"legacy","main":"cjs.js","module":"esm"})");
  WriteFile(nm + "/legacy/cjs.js", "module.exports = require('./x');\n");
  WriteFile(nm + "/legacy/esm.js", "export const x = 1;\n");
  auto legacy = FindNodePackage("legacy", {nm});
  REQUIRE(legacy.ok());
  CHECK(legacy->entry == Real(nm + "/legacy/esm.js"));

  // No package.json fields: index.js.
  WriteFile(nm + "/bare/package.json", R"({"name":"bare","type":"module"})");
  WriteFile(nm + "/bare/index.js", "export default {};\n");
  auto bare = FindNodePackage("bare", {nm});
  REQUIRE(bare.ok());
  CHECK(bare->entry == Real(nm + "/bare/index.js"));

  // Scoped, found in the second folder.
  std::string other = tmp.Sub("other/node_modules");
  WriteFile(other + "/@acme/guard/package.json",
            R"({"name":"@acme/guard","type":"module","main":"src/index.ts"})");
  WriteFile(other + "/@acme/guard/src/index.ts", "export const guard = async () => ({});\n");
  auto scoped = FindNodePackage("@acme/guard", {nm, other});
  REQUIRE_MESSAGE(scoped.ok(), scoped.status().ToString());
  CHECK(scoped->entry == Real(other + "/@acme/guard/src/index.ts"));

  auto missing = FindNodePackage("nope", {nm, other});
  REQUIRE_FALSE(missing.ok());
  CHECK(absl::IsNotFound(missing.status()));
  CHECK(Contains(missing.status().message(), "package 'nope' is not installed"));
  CHECK(Contains(missing.status().message(), nm));
  CHECK(Contains(missing.status().message(), other));
}

// Published package.json files do repeat keys now and then; Node's JSON.parse takes the last
// copy, so plugline resolves the package as Node would instead of refusing it.
TEST_CASE("FindNodePackage reads a package.json with a repeated key as Node does: the last wins") {
  TempDir tmp;
  std::string nm = tmp.Sub("node_modules");
  WriteFile(nm + "/twice/package.json",
            R"({"name":"twice","version":"1.0.0","main":"./old.js","version":"1.2.0",)"
            R"("main":"./new.js"})");
  WriteFile(nm + "/twice/old.js", "export default 1;\n");
  WriteFile(nm + "/twice/new.js", "export default 2;\n");
  auto twice = FindNodePackage("twice", {nm});
  REQUIRE_MESSAGE(twice.ok(), twice.status().ToString());
  CHECK(twice->entry == Real(nm + "/twice/new.js"));
  CHECK(twice->version == "1.2.0");
}

TEST_CASE("FindNodePackage says when an entry is not an ES module, and why") {
  TempDir tmp;
  std::string nm = tmp.Sub("node_modules");
  // A CommonJS entry is found (Node.js loads it) with the reason the sandbox cannot.
  WriteFile(nm + "/cjs/package.json", R"({"name":"cjs","main":"index.js"})");
  WriteFile(nm + "/cjs/index.js", "const x = require('./x');\nmodule.exports = { x };\n");
  auto cjs = FindNodePackage("cjs", {nm});
  REQUIRE(cjs.ok());
  CHECK(cjs->entry == nm + "/cjs/index.js");
  CHECK(Contains(cjs->not_esm, "a CommonJS module"));
  CHECK(Contains(cjs->not_esm, "ES modules only"));

  // The same file with ES syntax is an ES module although the package has no "type": "module".
  WriteFile(nm + "/esm-no-type/package.json", R"({"name":"esm-no-type","main":"index.js"})");
  WriteFile(nm + "/esm-no-type/index.js",
            "// require('x') in a comment\nexport const plugin = async () => ({});\n");
  auto esm = FindNodePackage("esm-no-type", {nm});
  REQUIRE(esm.ok());
  CHECK(esm->not_esm.empty());

  WriteFile(nm + "/only-cjs/package.json", R"({"name":"only-cjs","exports":{"require":"./i.cjs"}})");
  WriteFile(nm + "/only-cjs/i.cjs", "module.exports = 1;\n");
  auto only = FindNodePackage("only-cjs", {nm});
  REQUIRE_FALSE(only.ok());
  CHECK(Contains(only.status().message(), "no \"import\" or \"default\" condition"));

  WriteFile(nm + "/dotcjs/package.json", R"({"name":"dotcjs","main":"i.cjs"})");
  WriteFile(nm + "/dotcjs/i.cjs", "module.exports = 1;\n");
  auto dotcjs = FindNodePackage("dotcjs", {nm});
  REQUIRE(dotcjs.ok());
  CHECK(Contains(dotcjs->not_esm, "not an ES module"));

  WriteFile(nm + "/broken/package.json", R"({"name": "broken",)");
  auto broken = FindNodePackage("broken", {nm});
  REQUIRE_FALSE(broken.ok());
  CHECK(Contains(broken.status().message(), nm + "/broken/package.json"));

  WriteFile(nm + "/gone/package.json", R"({"name":"gone","main":"dist/index.js"})");
  auto gone = FindNodePackage("gone", {nm});
  REQUIRE_FALSE(gone.ok());
  CHECK(Contains(gone.status().message(), "\"main\" names 'dist/index.js', which does not exist"));
}

TEST_CASE("exports targets cannot leave their package") {
  TempDir tmp;
  std::string nm = tmp.Sub("node_modules");
  WriteFile(tmp.Sub("secret.js"), "export default 'secret';\n");
  WriteFile(nm + "/escape/package.json", R"({"name":"escape","exports":"./../../secret.js"})");
  auto escape = FindNodePackage("escape", {nm});
  REQUIRE_FALSE(escape.ok());
  CHECK(Contains(escape.status().message(), "leaves the package"));

  WriteFile(nm + "/abs/package.json", R"({"name":"abs","exports":"/etc/passwd"})");
  auto abs = FindNodePackage("abs", {nm});
  REQUIRE_FALSE(abs.ok());
  CHECK(Contains(abs.status().message(), "does not start with \"./\""));

  // A symlink inside the package that points out of it.
  WriteFile(nm + "/link/package.json", R"({"name":"link","type":"module","exports":"./out.js"})");
  REQUIRE(::symlink(tmp.Sub("secret.js").c_str(), (nm + "/link/out.js").c_str()) == 0);
  auto link = FindNodePackage("link", {nm});
  REQUIRE_FALSE(link.ok());
  CHECK(Contains(link.status().message(), "outside"));
}

TEST_CASE("a long exports target is checked segment by segment over its whole text") {
  // The segments were once split from a temporary copy that was freed before the loop read it
  // (found by AddressSanitizer): a target too long for the short-string buffer lives on the
  // heap, the allocator overwrote its first bytes once freed, and a leading ".." or
  // "node_modules" went unseen (the target then failed as missing, not as leaving the package).
  TempDir tmp;
  std::string nm = tmp.Sub("node_modules");
  const std::string padding(64, 'p');
  WriteFile(nm + "/long/package.json",
            StrCat(R"({"name":"long","exports":"./../)", padding, R"(/secret.js"})"));
  auto long_target = FindNodePackage("long", {nm});
  REQUIRE_FALSE(long_target.ok());
  CHECK(Contains(long_target.status().message(), "leaves the package"));
  WriteFile(nm + "/deep/package.json",
            StrCat(R"({"name":"deep","exports":"./node_modules/)", padding, R"(/x.js"})"));
  auto deep = FindNodePackage("deep", {nm});
  REQUIRE_FALSE(deep.ok());
  CHECK(Contains(deep.status().message(), "leaves the package"));
}

TEST_CASE("ResolveNodeImport: node_modules above the importer, subpaths, patterns, #imports") {
  TempDir tmp;
  std::string plugins = tmp.Sub("project/.plugline/plugins");
  std::string referrer = plugins + "/guard.js";
  WriteFile(referrer, "import 'zod';\n");
  std::string nm = tmp.Sub("project/.plugline/node_modules");
  WriteFile(nm + "/zod/package.json",
            R"({"name":"zod","type":"module","exports":{".":{"import":"./index.js"},)"
            R"("./v4":"./v4/index.js","./locales/*":"./locales/*.js","./internal/*":null}})");
  WriteFile(nm + "/zod/index.js", "export const z = 1;\n");
  WriteFile(nm + "/zod/v4/index.js", "export const z = 4;\n");
  WriteFile(nm + "/zod/locales/en.js", "export default 'en';\n");
  WriteFile(nm + "/zod/internal/x.js", "export default 'x';\n");

  auto main = ResolveNodeImport("zod", referrer, {});
  REQUIRE_MESSAGE(main.ok(), main.status().ToString());
  CHECK(main->path == Real(nm + "/zod/index.js"));
  CHECK(main->root == Real(nm + "/zod"));
  auto v4 = ResolveNodeImport("zod/v4", referrer, {});
  REQUIRE(v4.ok());
  CHECK(v4->path == Real(nm + "/zod/v4/index.js"));
  auto locale = ResolveNodeImport("zod/locales/en", referrer, {});
  REQUIRE_MESSAGE(locale.ok(), locale.status().ToString());
  CHECK(locale->path == Real(nm + "/zod/locales/en.js"));
  auto hidden = ResolveNodeImport("zod/internal/x", referrer, {});
  REQUIRE_FALSE(hidden.ok());
  CHECK(Contains(hidden.status().message(), "does not export 'internal/x'"));
  auto unexported = ResolveNodeImport("zod/package.json", referrer, {});
  CHECK_FALSE(unexported.ok());

  // Not above the importer: the fallback folders.
  std::string home_nm = tmp.Sub("home/node_modules");
  WriteFile(home_nm + "/picomatch/package.json", R"({"name":"picomatch","type":"module"})");
  WriteFile(home_nm + "/picomatch/index.js", "export default () => true;\n");
  auto fallback = ResolveNodeImport("picomatch", referrer, {home_nm});
  REQUIRE(fallback.ok());
  CHECK(fallback->path == Real(home_nm + "/picomatch/index.js"));
  auto nowhere = ResolveNodeImport("picomatch", referrer, {});
  REQUIRE_FALSE(nowhere.ok());
  CHECK(Contains(nowhere.status().message(), "package 'picomatch' is not installed"));

  // Without exports, a subpath is a file of the package.
  WriteFile(home_nm + "/picomatch/lib/utils.js", "export const u = 1;\n");
  auto sub = ResolveNodeImport("picomatch/lib/utils", referrer, {home_nm});
  REQUIRE(sub.ok());
  CHECK(sub->path == Real(home_nm + "/picomatch/lib/utils.js"));

  // A package's own "#imports", from a file inside it.
  WriteFile(nm + "/withimports/package.json",
            R"({"name":"withimports","type":"module","imports":{"#util":"./src/util.js",)"
            R"("#dep":"zod"}})");
  WriteFile(nm + "/withimports/src/util.js", "export const u = 1;\n");
  std::string inner = nm + "/withimports/src/main.js";
  WriteFile(inner, "import '#util';\n");
  auto util = ResolveNodeImport("#util", inner, {});
  REQUIRE_MESSAGE(util.ok(), util.status().ToString());
  CHECK(util->path == Real(nm + "/withimports/src/util.js"));
  CHECK(util->root == Real(nm + "/withimports"));
  auto dep = ResolveNodeImport("#dep", inner, {});
  REQUIRE_MESSAGE(dep.ok(), dep.status().ToString());
  CHECK(dep->path == Real(nm + "/zod/index.js"));
  CHECK_FALSE(ResolveNodeImport("#nope", inner, {}).ok());

  // Built-ins are refused by name, with the reason.
  auto fs = ResolveNodeImport("node:fs", referrer, {});
  REQUIRE_FALSE(fs.ok());
  CHECK(Contains(fs.status().message(), "built-in module of Node.js or Bun"));
  CHECK_FALSE(ResolveNodeImport("../../x", referrer, {}).ok());
}

TEST_CASE("an imports target that is itself a package import is refused, not followed") {
  // "#a": "#a" (or "#a": "#b", "#b": "#a") was resolved as a package import again, recursing
  // until the stack overflowed: any package.json of a plugin's dependencies could crash the
  // host. Node resolves such a target as a package name, which "#a" is not.
  TempDir tmp;
  std::string nm = tmp.Sub("node_modules");
  WriteFile(nm + "/loop/package.json",
            R"({"name":"loop","type":"module","imports":{"#a":"#a","#b":"#c","#c":["#b"]}})");
  std::string inner = nm + "/loop/main.js";
  WriteFile(inner, "import '#a';\n");
  for (const char* specifier : {"#a", "#b", "#c"}) {
    CAPTURE(specifier);
    auto loop = ResolveNodeImport(specifier, inner, {});
    REQUIRE_FALSE(loop.ok());
    CHECK(Contains(loop.status().message(), "is a package import, not a package name"));
    CHECK(Contains(loop.status().message(), nm + "/loop/package.json"));
  }
}

TEST_CASE("a package installed as a symlink (npm link, workspaces) resolves to its real folder") {
  TempDir tmp;
  std::string source = tmp.Sub("src/my-plugin");
  WriteFile(source + "/package.json", R"({"name":"my-plugin","type":"module","main":"index.js"})");
  WriteFile(source + "/index.js", "export const p = async () => ({});\n");
  std::string nm = tmp.Sub("node_modules");
  std::filesystem::create_directories(nm);
  REQUIRE(::symlink(source.c_str(), (nm + "/my-plugin").c_str()) == 0);
  auto found = FindNodePackage("my-plugin", {nm});
  REQUIRE_MESSAGE(found.ok(), found.status().ToString());
  CHECK(found->root == Real(source));
  CHECK(found->entry == Real(source + "/index.js"));
}

}  // namespace
}  // namespace plugline::core
