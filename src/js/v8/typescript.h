// TypeScript plugin files: their types are stripped by sucrase (third_party/sucrase/, bundled
// at build time, see sucrase_bundle.h) running in a V8 isolate of its own, and the resulting
// JavaScript is compiled like any module file. Only types go: no type checking (a type error
// is not an error), ES module syntax stays as written (no CommonJS transform), and sucrase
// keeps every line where it was, so a stack trace's line numbers are those of the .ts file.
//
// Which files: a path ending in ".ts" or ".mts" — the entry and every imported file. Imports
// are never guessed: `import "./util"` does not find util.ts; write `"./util.ts"`.
//
// Cache: `<cache_dir>/ts/<SHA-256 of (sucrase version, options, source)>.js`, the stripped
// code followed by one trailer line holding the SHA-256 of that code; a file whose trailer
// does not match is a miss and is rewritten. Written atomically (code_cache.h). A hit never
// creates the stripper's isolate.
//
// Thread safety: every function here may be called from any thread. The stripper is one per
// process, created on first use, used under a mutex (one file at a time); its isolate is
// separate from every plugin's, and a caller may hold its own isolate's Locker while calling.
// V8 must be initialized (the backend does it before any load).
#ifndef PLUGLINE_JS_V8_TYPESCRIPT_H_
#define PLUGLINE_JS_V8_TYPESCRIPT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace plugline::js::v8backend {

// True when `path` names a TypeScript file (".ts" or ".mts").
bool IsTypeScriptPath(std::string_view path);

// What one StripTypes call did, for the load's debug log.
struct StripReport {
  bool cache_hit = false;
  std::string cache_path;     // empty: no cache
  std::string cache_problem;  // why the cache file was ignored or not written; empty if fine
  int64_t strip_ns = 0;       // time spent in sucrase (0 on a hit)
};

// The JavaScript for the TypeScript `source` of `path` (`path` only names the file in
// messages). `cache_dir` empty: no cache. Errors: Unavailable "TypeScript support was not
// built: <why>" when the bundle is missing; Unknown "<path>:<line>:<col>: SyntaxError: …" for
// a file sucrase cannot parse (line and column 1-based); ResourceExhausted when the stripper
// ran out of heap (its isolate is then discarded and made again on the next call).
// `report` may be null.
absl::StatusOr<std::string> StripTypes(const std::string& path, std::string_view source,
                                       const std::string& cache_dir, StripReport* report);

// What v8_runtime.cc calls on every module file it has read: `source` unchanged for a
// non-TypeScript path, else StripTypes with the cache beside the V8 code cache
// (`<parent of code_cache_dir>/ts/`, so $PLUGLINE_HOME/cache/ts/ for the CLI; none when
// code_cache_dir is empty). `debug_log`, when set, receives one line per TypeScript file.
absl::StatusOr<std::string> PrepareModuleSource(
    const std::string& path, std::string source, const std::string& code_cache_dir,
    const std::function<void(std::string_view message)>& debug_log);

// Where PrepareModuleSource keeps stripped files for a given ModuleOptions::code_cache_dir
// (the directory holding ts/); empty when code_cache_dir is.
std::string TypeScriptCacheRoot(const std::string& code_cache_dir);

// The bundled sucrase's version, empty when TypeScript support was not built.
std::string_view SucraseVersion();

// How many times this process has created the stripper's isolate (tests check that a cache
// hit creates none).
int StripperIsolatesCreated();

}  // namespace plugline::js::v8backend

#endif  // PLUGLINE_JS_V8_TYPESCRIPT_H_
