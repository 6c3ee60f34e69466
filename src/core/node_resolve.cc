#include "core/node_resolve.h"

#include <limits.h>
#include <stdlib.h>

#include <array>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

std::string RealPathOf(const std::string& path) {
  char buffer[PATH_MAX];
  return ::realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : std::string();
}

std::string ParentDir(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

bool Inside(const std::string& path, const std::string& root) {
  return path == root || path.starts_with(root == "/" ? root : StrCat(root, "/"));
}

// One part of a package name: what npm accepts in a new name, upper case allowed (old names).
bool ValidNamePart(std::string_view part) {
  if (part.empty() || part.size() > 214 || part[0] == '.' || part[0] == '_') return false;
  for (char c : part) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '.' || c == '_' || c == '~';
    if (!ok) return false;
  }
  return true;
}

bool ValidPackageName(std::string_view name) {
  if (name.starts_with("@")) {
    size_t slash = name.find('/');
    return slash != std::string_view::npos && ValidNamePart(name.substr(1, slash - 1)) &&
           ValidNamePart(name.substr(slash + 1));
  }
  return ValidNamePart(name);
}

// A bare specifier -> {package name, "." or "./sub/path"}.
absl::StatusOr<std::pair<std::string, std::string>> SplitSpecifier(std::string_view specifier) {
  size_t cut = specifier.find('/');
  if (specifier.starts_with("@") && cut != std::string_view::npos) {
    cut = specifier.find('/', cut + 1);
  }
  std::string name(specifier.substr(0, cut));
  if (!ValidPackageName(name)) {
    return absl::InvalidArgumentError(StrCat("'", name, "' is not a valid npm package name"));
  }
  std::string subpath =
      cut == std::string_view::npos ? "." : StrCat(".", specifier.substr(cut));
  return std::make_pair(std::move(name), std::move(subpath));
}

struct Package {
  std::string root;  // real path
  std::string json_path;
  Value json;        // null when the package has no package.json
  bool type_module = false;
};

absl::StatusOr<Package> ReadPackage(const std::string& root) {
  Package package;
  package.root = RealPathOf(root);
  if (package.root.empty()) return absl::NotFoundError(StrCat(root, ": no such folder"));
  package.json_path = JoinPath(package.root, "package.json");
  absl::StatusOr<std::string> text = ReadFile(package.json_path);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) return package;
    return text.status();
  }
  // Read as Node reads it: a repeated key (published packages have some) takes the last value.
  absl::StatusOr<Value> json = ParseJson(*text, package.json_path, DuplicateKeys::kLastWins);
  if (!json.ok()) return json.status();
  if (!json->is_object()) {
    return absl::InvalidArgumentError(StrCat(package.json_path, ": expected a JSON object"));
  }
  package.json = *std::move(json);
  const Value* type = package.json.Find("type");
  package.type_module = type != nullptr && type->is_string() && type->as_string() == "module";
  return package;
}

// The package.json nearest above `file` (for "type" and "#imports").
std::optional<Package> EnclosingPackage(const std::string& file) {
  for (std::string dir = ParentDir(file);; dir = ParentDir(dir)) {
    if (IsRegularFile(JoinPath(dir, "package.json"))) {
      absl::StatusOr<Package> package = ReadPackage(dir);
      if (package.ok()) return *std::move(package);
      return std::nullopt;
    }
    if (dir == "/" || dir == ".") return std::nullopt;
  }
}

struct Target {
  std::string path;
  bool esm = false;  // chosen by an "import"/"module" condition or the `module` field
};

// The conditions plugline matches in `exports`/`imports`, as an ES module importer.
bool IsCondition(std::string_view key) {
  return key == "import" || key == "module" || key == "default";
}

// A file as Node's CommonJS resolution would probe it (main, module, subpaths without exports).
std::string ProbeFile(const std::string& base) {
  for (const char* suffix : {"", ".js", ".mjs", ".ts", "/index.js", "/index.mjs", "/index.ts"}) {
    std::string candidate = StrCat(base, suffix);
    if (IsRegularFile(candidate)) return candidate;
  }
  return std::string();
}

// PACKAGE_TARGET_RESOLVE: a string, an array (first that resolves) or a condition object.
// nullopt: the target says "not exported" (null, or no matching condition).
absl::StatusOr<std::optional<Target>> ResolveTarget(const Package& package, const Value& target,
                                                    std::string_view star, bool esm,
                                                    std::string_view what,
                                                    const std::vector<std::string>& fallback,
                                                    bool imports) {
  if (target.is_string()) {
    std::string text = target.as_string();
    if (!star.empty() && text.find('*') != std::string::npos) {
      std::string replaced;
      for (char c : text) {
        if (c == '*') {
          replaced.append(star);
        } else {
          replaced.push_back(c);
        }
      }
      text = std::move(replaced);
    }
    if (!text.starts_with("./")) {
      if (imports && text.starts_with("#")) {
        // Node resolves such a target as a package name, never as another package import; as
        // an import, "#a": "#a" would recurse until the stack overflows.
        return absl::InvalidArgumentError(
            StrCat(package.json_path, ": the target '", text, "' of ", what,
                   " is a package import, not a package name or a \"./\" path"));
      }
      if (imports && !text.starts_with("/") && !text.starts_with("../")) {
        // "#dep": "other-package" maps a package import to another package.
        absl::StatusOr<NodeImport> other =
            ResolveNodeImport(text, JoinPath(package.root, "package.json"), fallback);
        if (!other.ok()) return other.status();
        return Target{other->path, true};
      }
      return absl::InvalidArgumentError(StrCat(package.json_path, ": the target '", text, "' of ",
                                               what, " does not start with \"./\""));
    }
    // Split a view of `text`: a temporary substr() would die before the loop reads it.
    for (absl::string_view segment :
         absl::StrSplit(ToAbsl(std::string_view(text).substr(2)), '/')) {
      if (segment == ".." || segment == "." || segment == "node_modules") {
        return absl::InvalidArgumentError(StrCat(package.json_path, ": the target '", text,
                                                 "' of ", what, " leaves the package"));
      }
    }
    std::string path = RealPathOf(JoinPath(package.root, text.substr(2)));
    if (path.empty() || !IsRegularFile(path)) {
      return absl::NotFoundError(StrCat(package.json_path, ": ", what, " maps to '", text,
                                        "', which does not exist"));
    }
    if (!Inside(path, package.root)) {
      return absl::InvalidArgumentError(StrCat(package.json_path, ": the target '", text, "' of ",
                                               what, " resolves outside the package"));
    }
    return std::optional<Target>(Target{std::move(path), esm});
  }
  if (target.is_array()) {
    absl::Status last = absl::OkStatus();
    for (const Value& option : target.as_array()) {
      absl::StatusOr<std::optional<Target>> found =
          ResolveTarget(package, option, star, esm, what, fallback, imports);
      if (found.ok() && found->has_value()) return found;
      if (!found.ok()) last = found.status();
    }
    if (!last.ok()) return last;
    return std::optional<Target>();
  }
  if (target.is_object()) {
    for (const auto& [key, value] : target.as_object()) {
      if (!IsCondition(key)) continue;
      absl::StatusOr<std::optional<Target>> found = ResolveTarget(
          package, value, star, esm || key == "import" || key == "module", what, fallback, imports);
      if (!found.ok()) return found.status();
      if (found->has_value()) return found;
    }
    return std::optional<Target>();
  }
  return std::optional<Target>();  // null: explicitly not exported
}

// PACKAGE_EXPORTS_RESOLVE / PACKAGE_IMPORTS_RESOLVE over a subpath map (keys "./x" or "#x"),
// with single-"*" patterns (the longest matching prefix wins).
absl::StatusOr<std::optional<Target>> ResolveMap(const Package& package, const Value& map,
                                                 std::string_view key_wanted,
                                                 std::string_view field,
                                                 const std::vector<std::string>& fallback) {
  bool imports = field == "imports";
  const Value* exact = nullptr;
  const Value* best = nullptr;
  std::string best_key;
  std::string best_star;
  for (const auto& [key, value] : map.as_object()) {
    size_t star = key.find('*');
    if (star == std::string::npos) {
      if (key == key_wanted) exact = &value;
      continue;
    }
    if (key.find('*', star + 1) != std::string::npos) continue;
    std::string_view prefix = std::string_view(key).substr(0, star);
    std::string_view suffix = std::string_view(key).substr(star + 1);
    if (key_wanted.size() < prefix.size() + suffix.size() || !key_wanted.starts_with(prefix) ||
        !key_wanted.ends_with(suffix)) {
      continue;
    }
    if (best == nullptr || prefix.size() > best_key.find('*')) {
      best = &value;
      best_key = key;
      best_star = std::string(
          key_wanted.substr(prefix.size(), key_wanted.size() - prefix.size() - suffix.size()));
    }
  }
  std::string what = StrCat("\"", field, "\" ", key_wanted);
  if (exact != nullptr) return ResolveTarget(package, *exact, "", false, what, fallback, imports);
  if (best != nullptr) {
    return ResolveTarget(package, *best, best_star, false, what, fallback, imports);
  }
  return std::optional<Target>();
}

// The package's `exports` for `subpath` ("." or "./x"); nullopt when it has no exports field.
absl::StatusOr<std::optional<Target>> ResolveExports(const Package& package,
                                                     std::string_view subpath,
                                                     std::string_view name) {
  const Value* exports = package.json.Find("exports");
  if (exports == nullptr) return std::optional<Target>();
  bool subpath_map = false;
  if (exports->is_object() && !exports->as_object().empty()) {
    subpath_map = absl::StartsWith(exports->as_object().front().first, ".");
  }
  absl::StatusOr<std::optional<Target>> found;
  if (subpath_map) {
    found = ResolveMap(package, *exports, subpath, "exports", {});
  } else if (subpath == ".") {
    found = ResolveTarget(package, *exports, "", false, "\"exports\"", {}, false);
  } else {
    found = std::optional<Target>();
  }
  if (!found.ok()) return found.status();
  if (!found->has_value()) {
    return absl::NotFoundError(
        subpath == "."
            ? StrCat("package '", name, "' (", package.json_path,
                     ") exports nothing for an ES module import (its \"exports\" has no \"import\" "
                     "or \"default\" condition)")
            : StrCat("package '", name, "' does not export '", subpath.substr(2), "' (",
                     package.json_path, " \"exports\")"));
  }
  return found;
}

// Where `import "<name><subpath>"` goes in a package without `exports`.
absl::StatusOr<Target> ResolveLegacy(const Package& package, std::string_view subpath,
                                     std::string_view name) {
  if (subpath != ".") {
    std::string file = ProbeFile(JoinPath(package.root, subpath.substr(2)));
    if (file.empty()) {
      return absl::NotFoundError(
          StrCat("package '", name, "' has no file '", subpath.substr(2), "'"));
    }
    return Target{file, false};
  }
  if (!package.json.is_null()) {
    for (const char* field : {"module", "main"}) {
      std::string value = package.json.StringMember(field);
      if (value.empty()) continue;
      std::string file = ProbeFile(JoinPath(package.root, value));
      if (file.empty()) {
        return absl::NotFoundError(StrCat(package.json_path, ": \"", field, "\" names '", value,
                                          "', which does not exist"));
      }
      return Target{file, std::string_view(field) == "module"};
    }
  }
  std::string file = ProbeFile(JoinPath(package.root, "index"));
  if (file.empty()) {
    return absl::NotFoundError(StrCat("package '", name, "' (", package.root,
                                      ") has no entry: no \"exports\", \"module\" or \"main\" in "
                                      "package.json and no index.js"));
  }
  return Target{file, false};
}

// Whether a source reads like CommonJS: module.exports / exports.x / require(), and no line
// that starts with import or export (Node's own "syntax detection" decides the same way, by
// trying to parse).
bool LooksLikeCommonJs(std::string_view text) {
  bool commonjs = false;
  for (std::string_view marker : {"module.exports", "exports.", "require("}) {
    commonjs = commonjs || text.find(marker) != std::string_view::npos;
  }
  if (!commonjs) return false;
  for (absl::string_view piece : absl::StrSplit(ToAbsl(text), '\n')) {
    std::string_view line = ToStd(piece);
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    line = line.substr(first);
    for (std::string_view keyword : {"import ", "import{", "import\"", "import'", "export ",
                                     "export{", "export*"}) {
      if (line.starts_with(keyword)) return false;
    }
  }
  return true;
}

// Refuses what cannot load as an ES module (see the header).
absl::Status CheckEsm(const Target& target, const Package& package, std::string_view specifier) {
  std::string_view path = target.path;
  if (path.ends_with(".cjs") || path.ends_with(".json") ||
      path.ends_with(".node")) {
    return absl::FailedPreconditionError(
        StrCat("'", specifier, "' resolves to ", path,
               ", which is not an ES module: plugline loads ES modules (.js, .mjs, .ts) only"));
  }
  if (target.esm || package.type_module || !path.ends_with(".js")) return absl::OkStatus();
  absl::StatusOr<std::string> text = ReadFile(target.path);
  if (text.ok() && LooksLikeCommonJs(*text)) {
    return absl::FailedPreconditionError(StrCat(
        "'", specifier, "' resolves to ", path,
        ", a CommonJS module (module.exports/require, and its package.json has no \"type\": "
        "\"module\"): plugline loads ES modules only"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Target> ResolveInPackage(const Package& package, std::string_view subpath,
                                        std::string_view name, std::string_view specifier,
                                        bool check_esm = true) {
  absl::StatusOr<std::optional<Target>> exported = ResolveExports(package, subpath, name);
  if (!exported.ok()) return exported.status();
  Target target;
  if (exported->has_value()) {
    target = **exported;
  } else {
    absl::StatusOr<Target> legacy = ResolveLegacy(package, subpath, name);
    if (!legacy.ok()) return legacy.status();
    target = *std::move(legacy);
  }
  target.path = RealPathOf(target.path);
  if (!Inside(target.path, package.root)) {
    return absl::InvalidArgumentError(
        StrCat("'", specifier, "' resolves outside its package ", package.root));
  }
  if (check_esm) {
    if (absl::Status esm = CheckEsm(target, package, specifier); !esm.ok()) return esm;
  }
  return target;
}

}  // namespace

absl::StatusOr<PackageSpec> ParsePackageSpec(std::string_view spec) {
  PackageSpec parsed;
  size_t at = spec.find('@', spec.starts_with("@") ? 1 : 0);
  parsed.name = std::string(spec.substr(0, at));
  if (at != std::string_view::npos) parsed.version = std::string(spec.substr(at + 1));
  if (!ValidPackageName(parsed.name)) {
    return absl::InvalidArgumentError(
        StrCat("'", spec, "' is not an npm package name (\"name\", \"@scope/name\", optionally "
                          "followed by @version)"));
  }
  return parsed;
}

bool IsRuntimeBuiltinModule(std::string_view specifier) {
  if (specifier.starts_with("node:") || specifier.starts_with("bun:") ||
      specifier == "bun") {
    return true;
  }
  std::string_view name = specifier.substr(0, specifier.find('/'));
  static constexpr std::array<std::string_view, 41> kNodeBuiltins = {
      "assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants",
      "crypto", "dgram", "diagnostics_channel", "dns", "domain", "events", "fs", "http", "http2",
      "https", "inspector", "module", "net", "os", "path", "perf_hooks", "process", "punycode",
      "querystring", "readline", "repl", "stream", "string_decoder", "sys", "timers", "tls",
      "trace_events", "tty", "url", "util", "v8", "vm", "worker_threads", "zlib"};
  for (std::string_view builtin : kNodeBuiltins) {
    if (name == builtin) return true;
  }
  return false;
}

absl::StatusOr<NodePackage> FindNodePackage(std::string_view name,
                                            const std::vector<std::string>& node_modules_dirs) {
  if (!ValidPackageName(name)) {
    return absl::InvalidArgumentError(StrCat("'", name, "' is not a valid npm package name"));
  }
  for (const std::string& dir : node_modules_dirs) {
    std::string root = JoinPath(dir, name);
    if (!IsDirectory(root)) continue;
    absl::StatusOr<Package> package = ReadPackage(root);
    if (!package.ok()) return package.status();
    // OpenCode's entry for a plugin package: its "./server" export when it has one.
    absl::StatusOr<Target> entry = absl::NotFoundError("");
    if (const Value* exports = package->json.Find("exports");
        exports != nullptr && exports->is_object() && exports->Find("./server") != nullptr) {
      entry = ResolveInPackage(*package, "./server", name, StrCat(name, "/server"),
                               /*check_esm=*/false);
    }
    if (!entry.ok()) entry = ResolveInPackage(*package, ".", name, name, /*check_esm=*/false);
    if (!entry.ok()) return entry.status();
    NodePackage found;
    if (absl::Status esm = CheckEsm(*entry, *package, name); !esm.ok()) {
      found.not_esm = std::string(esm.message());
    }
    found.name = std::string(name);
    found.version = package->json.is_null() ? "" : package->json.StringMember("version");
    found.root = package->root;
    found.entry = entry->path;
    return found;
  }
  return absl::NotFoundError(StrCat("package '", name, "' is not installed (looked in ",
                                    absl::StrJoin(node_modules_dirs, ", "), ")"));
}

absl::StatusOr<NodeImport> ResolveNodeImport(std::string_view specifier, std::string_view referrer,
                                             const std::vector<std::string>& fallback_dirs) {
  if (IsRuntimeBuiltinModule(specifier)) {
    return absl::FailedPreconditionError(StrCat(
        "'", specifier, "' is a built-in module of Node.js or Bun: plugline runs plugins in V8 "
                        "without them (path and url excepted)"));
  }
  std::string referrer_path(referrer);
  if (specifier.starts_with("#")) {
    std::optional<Package> package = EnclosingPackage(referrer_path);
    const Value* imports = package.has_value() ? package->json.Find("imports") : nullptr;
    if (imports == nullptr || !imports->is_object()) {
      return absl::NotFoundError(StrCat("'", specifier, "': no package.json \"imports\" above ",
                                        referrer));
    }
    absl::StatusOr<std::optional<Target>> found =
        ResolveMap(*package, *imports, specifier, "imports", fallback_dirs);
    if (!found.ok()) return found.status();
    if (!found->has_value()) {
      return absl::NotFoundError(
          StrCat("'", specifier, "' is not in the \"imports\" of ", package->json_path));
    }
    Target target = **found;
    if (Inside(target.path, package->root)) {
      if (absl::Status esm = CheckEsm(target, *package, specifier); !esm.ok()) return esm;
      return NodeImport{target.path, package->root};
    }
    // Mapped to another package: its own root confines it.
    std::optional<Package> other = EnclosingPackage(target.path);
    return NodeImport{target.path, other.has_value() ? other->root : ParentDir(target.path)};
  }
  absl::StatusOr<std::pair<std::string, std::string>> split = SplitSpecifier(specifier);
  if (!split.ok()) return split.status();
  const auto& [name, subpath] = *split;
  std::string root;
  for (std::string dir = ParentDir(referrer_path);; dir = ParentDir(dir)) {
    if (!dir.ends_with("/node_modules")) {
      std::string candidate = JoinPath(JoinPath(dir, "node_modules"), name);
      if (IsDirectory(candidate)) {
        root = candidate;
        break;
      }
    }
    if (dir == "/" || dir == ".") break;
  }
  for (size_t i = 0; root.empty() && i < fallback_dirs.size(); ++i) {
    std::string candidate = JoinPath(fallback_dirs[i], name);
    if (IsDirectory(candidate)) root = candidate;
  }
  if (root.empty()) {
    std::string where = fallback_dirs.empty()
                            ? std::string()
                            : StrCat(", nor in ", absl::StrJoin(fallback_dirs, ", "));
    return absl::NotFoundError(StrCat("package '", name,
                                      "' is not installed: no node_modules folder above ",
                                      ParentDir(referrer_path), " holds it", where));
  }
  absl::StatusOr<Package> package = ReadPackage(root);
  if (!package.ok()) return package.status();
  absl::StatusOr<Target> target = ResolveInPackage(*package, subpath, name, specifier);
  if (!target.ok()) return target.status();
  return NodeImport{target->path, package->root};
}

}  // namespace plugline::core
