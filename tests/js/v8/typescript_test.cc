// TypeScript plugin files (src/js/v8/typescript.h): .ts/.mts modules load with their types
// stripped by the bundled sucrase, keep their line numbers, and the stripped code is cached
// by content under <parent of code_cache_dir>/ts/; a cache hit never starts the stripper.
// Also: plugin discovery finds x.ts files and folders with index.ts (src/core/plugins.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/plugins.h"
#include "js/js_test_util.h"

namespace plugline::js {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

TEST_CASE(
    "typescript plugins: discovery finds x.ts files and index.ts folders, not declaration files") {
  TempDir tmp;
  WriteFile(tmp.Sub("plugins/alpha.ts"), "export default {};\n");
  WriteFile(tmp.Sub("plugins/beta.mts"), "export default {};\n");
  WriteFile(tmp.Sub("plugins/types.d.ts"), "export interface X {}\n");
  WriteFile(tmp.Sub("plugins/gamma/index.ts"), "export default {};\n");
  WriteFile(tmp.Sub("plugins/delta/index.js"), "export default {};\n");
  WriteFile(tmp.Sub("plugins/delta/index.ts"), "export default {};\n");  // index.js wins
  std::vector<std::string> diagnostics;
  std::vector<core::PluginFile> found =
      core::DiscoverPlugins({{tmp.Sub("plugins"), "global", {}, "", "", "", ""}}, &diagnostics);
  CHECK(diagnostics.empty());
  std::vector<std::string> entries;
  for (const core::PluginFile& file : found) {
    entries.push_back(file.name + " " + file.entry.substr(tmp.Sub("plugins").size() + 1));
  }
  CHECK(entries == std::vector<std::string>{"alpha alpha.ts", "beta beta.mts",
                                            "delta delta/index.js", "gamma gamma/index.ts"});
}

#if PLUGLINE_TEST_WITH_V8

using testing::Json;
using testing::LogLines;
using testing::TheRuntime;

// Interfaces, annotations, generics, `as` and `!`, enums, `import type`, parameter properties,
// an imported .ts file (explicit extension), a type-only import of a name that does not exist
// at run time, and a type error (a string assigned to a number) that is not an error here.
constexpr char kGeometry[] = R"(export interface Point { x: number; y: number }
export type Pair<T> = [T, T];
export enum Color { Red, Green = 5, Blue }
export function add<T extends Point>(a: T, b: T): Point {
  return { x: a.x + b.x, y: a.y + b.y };
}
export class Stack<T> {
  private items: T[] = [];
  constructor(public readonly label: string) {}
  push(item: T): this { this.items.push(item); return this; }
  top(): T | undefined { return this.items[this.items.length - 1]; }
  get size(): number { return this.items.length; }
}
)";

constexpr char kEntry[] = R"(import type { Pair } from "./geometry.ts";
import { add, Color, Stack, type Point } from "./geometry.ts";
import { Shape } from "./geometry.ts";   // a type the file does not export: dropped, unused

const wrong: number = "not a number" as unknown as number;  // fine: types are not checked

interface Options { scale?: number }
declare const injected: string;
abstract class Base { abstract name(): string }
class Named extends Base { name(): string { return "named"; } }

function scaled(p: Point, options: Options = {}): Point {
  const s = options.scale ?? 1;
  return { x: p.x * s, y: p.y * s };
}

export default {
  run(input: { a: Point; b: Point }, scale: number): object {
    const pair: Pair<Point> = [input.a, input.b];
    const sum = add(...pair);
    const stack = new Stack<string>("s").push("a").push("b");
    const el = (stack.top() as string)!;
    return { sum: scaled(sum, { scale }), green: Color.Green, blue: Color[Color.Blue],
             top: el, size: stack.size, label: stack.label, named: new Named().name(),
             wrong: typeof wrong };
  },
  fail(): never {
    const x: number = 1;
    throw new Error(`failed at ${x}`);
  },
};
)";

// False when this build has no sucrase bundle (npm or the network was unavailable at build
// time): then a .ts file must fail to load with that reason, and the other tests are skipped.
bool TypeScriptBuilt() {
  TempDir tmp;
  WriteFile(tmp.Sub("probe.ts"), "export default { n: 1 as number };\n");
  auto module = TheRuntime()->Load(tmp.Sub("probe.ts"), ModuleOptions{});
  if (module.ok()) return true;
  CHECK(module.status().code() == absl::StatusCode::kUnavailable);
  CHECK_MESSAGE(absl::StartsWith(module.status().message(), "TypeScript support was not built: "),
                module.status().message());
  MESSAGE("TypeScript support was not built; skipping: " << module.status().message());
  return false;
}

// A plugin folder with the two files above.
std::string WritePlugin(const TempDir& tmp, const std::string& folder) {
  WriteFile(tmp.Sub(folder + "/geometry.ts"), kGeometry);
  WriteFile(tmp.Sub(folder + "/index.ts"), kEntry);
  return tmp.Sub(folder + "/index.ts");
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> TypescriptLines(const LogLines& logs) {
  std::vector<std::string> out;
  for (const std::string& line : logs.Of("debug")) {
    if (line.rfind("typescript: ", 0) == 0) out.push_back(line);
  }
  return out;
}

TEST_CASE(
    "typescript plugins: a module with types, generics, enums and a .ts import loads and runs") {
  if (!TypeScriptBuilt()) return;
  TempDir tmp;
  std::string entry = WritePlugin(tmp, "p");
  auto module = TheRuntime()->Load(entry, ModuleOptions{});
  REQUIRE_MESSAGE(module.ok(), module.status().ToString());
  auto result =
      (*module)->Call("run", R"([{"a":{"x":1,"y":2},"b":{"x":3,"y":4}}, 10])", CallLimits{});
  REQUIRE_MESSAGE(result.ok(), result.status().ToString());
  CHECK(*result ==
        R"({"sum":{"x":40,"y":60},"green":5,"blue":"Blue","top":"b","size":2,"label":"s",)"
        R"("named":"named","wrong":"string"})");
  std::vector<std::string> files = (*module)->files();
  CHECK(files.size() == 2);
}

TEST_CASE("typescript plugins: an Error thrown at line N of a .ts file is reported at line N") {
  if (!TypeScriptBuilt()) return;
  TempDir tmp;
  std::string entry = WritePlugin(tmp, "p");
  auto module = TheRuntime()->Load(entry, ModuleOptions{});
  REQUIRE_MESSAGE(module.ok(), module.status().ToString());
  auto result = (*module)->Call("fail", "[]", CallLimits{});
  REQUIRE(!result.ok());
  std::string message(result.status().message());
  // `throw new Error(...)` is on line 29 of kEntry, after lines whose types were stripped and
  // whole declarations (interface, declare, type-only imports) that disappeared.
  CHECK_MESSAGE(message.find("Error: failed at 1") != std::string::npos, message);
  CHECK_MESSAGE(message.find(entry + ":29:") != std::string::npos, message);

  // A throw in the top level of an imported .ts file, after types on earlier lines.
  WriteFile(tmp.Sub("q/lib.ts"),
            "type A = { a: number };\n"
            "const a: A = { a: 1 };\n"
            "export function boom(n: number): void {\n"
            "  if (n > 0) throw new RangeError(`boom ${n}`);\n"
            "}\n");
  WriteFile(tmp.Sub("q/main.ts"),
            "import { boom } from './lib.ts';\n"
            "export default { go(n: number) { boom(n); } };\n");
  auto q = TheRuntime()->Load(tmp.Sub("q/main.ts"), ModuleOptions{});
  REQUIRE_MESSAGE(q.ok(), q.status().ToString());
  auto thrown = (*q)->Call("go", "[2]", CallLimits{});
  REQUIRE(!thrown.ok());
  std::string stack(thrown.status().message());
  CHECK_MESSAGE(stack.find(tmp.Sub("q/lib.ts") + ":4:") != std::string::npos, stack);
}

TEST_CASE("typescript plugins: a syntax error names file:line:col, imports as Bun and tsc find them") {
  if (!TypeScriptBuilt()) return;
  TempDir tmp;
  WriteFile(tmp.Sub("bad/index.ts"),
            "interface Ok { a: number }\n"
            "export default {\n"
            "  f(x: number): number { return x +; },\n"
            "};\n");
  auto bad = TheRuntime()->Load(tmp.Sub("bad/index.ts"), ModuleOptions{});
  REQUIRE(!bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kUnknown);
  std::string message(bad.status().message());
  CHECK_MESSAGE(absl::StartsWith(message, tmp.Sub("bad/index.ts") + ":3:36: SyntaxError: "),
                message);

  // In an imported file: the import fails with the same location.
  WriteFile(tmp.Sub("imp/broken.ts"), "export const x: number = ;\n");
  WriteFile(tmp.Sub("imp/index.ts"), "import { x } from './broken.ts';\nexport default { x };\n");
  auto imported = TheRuntime()->Load(tmp.Sub("imp/index.ts"), ModuleOptions{});
  REQUIRE(!imported.ok());
  std::string why(imported.status().message());
  CHECK_MESSAGE(why.find(tmp.Sub("imp/broken.ts") + ":1:26: SyntaxError: ") != std::string::npos,
                why);

  // "./util" finds util.ts (Bun, bundlers), "./lib.js" finds lib.ts (tsc's NodeNext); a name
  // that matches no file still fails.
  WriteFile(tmp.Sub("guess/util.ts"), "export const u: number = 1;\n");
  WriteFile(tmp.Sub("guess/lib.ts"), "export const l: number = 2;\n");
  WriteFile(tmp.Sub("guess/index.ts"),
            "import { u } from './util';\nimport { l } from './lib.js';\n"
            "export default { sum: u + l };\n");
  auto guessed = TheRuntime()->Load(tmp.Sub("guess/index.ts"), ModuleOptions{});
  REQUIRE_MESSAGE(guessed.ok(), guessed.status().message());
  auto sum = (*guessed)->Get("sum");
  REQUIRE(sum.ok());
  CHECK(*sum == "3");
  WriteFile(tmp.Sub("miss/index.ts"), "import { u } from './utl';\nexport default { u };\n");
  auto missing = TheRuntime()->Load(tmp.Sub("miss/index.ts"), ModuleOptions{});
  REQUIRE(!missing.ok());
  CHECK_MESSAGE(
      std::string(missing.status().message()).find("cannot import './utl'") != std::string::npos,
      missing.status().message());
}

TEST_CASE("typescript plugins: stripped files are cached by content and a hit starts no stripper") {
  if (!TypeScriptBuilt()) return;
  TempDir tmp;
  std::string entry = WritePlugin(tmp, "p");
  ModuleOptions options;
  options.code_cache_dir = tmp.Sub("home/cache/v8");
  LogLines first;
  options.log = first.Sink();
  {
    auto module = TheRuntime()->Load(entry, options);
    REQUIRE_MESSAGE(module.ok(), module.status().ToString());
  }
  std::string ts_dir = tmp.Sub("home/cache/ts");
  std::vector<std::string> files = FilesIn(ts_dir);
  REQUIRE(files.size() == 2);  // geometry.ts and index.ts
  std::regex name(".*/[0-9a-f]{64}\\.js");
  for (const std::string& file : files) CHECK(std::regex_match(file, name));
  std::vector<std::string> lines = TypescriptLines(first);
  REQUIRE(lines.size() == 2);
  for (const std::string& line : lines) {
    CHECK_MESSAGE(line.find(" stripped by sucrase ") != std::string::npos, line);
    CHECK_MESSAGE(line.find(", cached at " + ts_dir + "/") != std::string::npos, line);
  }
  // The cached text keeps the line structure: the entry's file has as many lines (plus the
  // checksum trailer) as the source.
  for (const std::string& file : files) {
    std::string text = ReadFileOrEmpty(file);
    CHECK(text.find("\n//# plugline-ts sha256=") != std::string::npos);
    CHECK(text.find("interface") == std::string::npos);
  }

  // A second load of the same content, in a fresh worker process: served from the cache, and
  // that process never creates the stripper's isolate.
  auto process = GetRuntime(Isolation::kProcess);
  REQUIRE_MESSAGE(process.ok(), process.status().ToString());
  LogLines second;
  options.log = second.Sink();
  auto module = (*process)->Load(entry, options);
  REQUIRE_MESSAGE(module.ok(), module.status().ToString());
  lines = TypescriptLines(second);
  REQUIRE(lines.size() == 2);
  for (const std::string& line : lines) {
    CHECK_MESSAGE(line.find(" stripped from cache " + ts_dir + "/") != std::string::npos, line);
    CHECK_MESSAGE(absl::EndsWith(line, "; stripper isolates created in this process: 0"), line);
  }
  CHECK(Json((*module)->Call("run", R"([{"a":{"x":1,"y":1},"b":{"x":1,"y":1}}, 1])", CallLimits{}))
            .Find("size") != nullptr);
  CHECK(FilesIn(ts_dir) == files);  // nothing rewritten, no temporary files left

  // A damaged cache file is a miss and is rewritten.
  WriteFile(files[0], "export default {};\n//# plugline-ts sha256=0000\n");
  LogLines third;
  options.log = third.Sink();
  auto again = TheRuntime()->Load(entry, options);
  REQUIRE_MESSAGE(again.ok(), again.status().ToString());
  CHECK(third.Contains("(cache: checksum mismatch)"));
  CHECK(ReadFileOrEmpty(files[0]).find("0000\n") == std::string::npos);

  // Without a code cache directory, nothing is cached.
  TempDir other;
  std::string plain = WritePlugin(other, "p");
  LogLines none;
  ModuleOptions no_cache;
  no_cache.log = none.Sink();
  auto uncached = TheRuntime()->Load(plain, no_cache);
  REQUIRE_MESSAGE(uncached.ok(), uncached.status().ToString());
  for (const std::string& line : TypescriptLines(none)) {
    CHECK_MESSAGE(line.find("cached at") == std::string::npos, line);
  }
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline::js
