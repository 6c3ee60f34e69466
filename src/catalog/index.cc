#include "catalog/index.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <span>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "core/plugin_id.h"
#include "core/strings.h"

namespace plugline::catalog {
namespace {

constexpr std::string_view kFormats[] = {"js", "mjs", "ts", "mts", "tar.gz", "tgz", "tar", "zip"};
constexpr std::string_view kKinds[] = {"js-shaper", "exec-hook", "opencode"};
constexpr std::string_view kTiers[] = {"built-in", "community", "premium"};

bool OneOf(std::string_view value, std::span<const std::string_view> options) {
  return std::find(options.begin(), options.end(), value) != options.end();
}

bool IsHex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string Lower(std::string_view s) { return absl::AsciiStrToLower(ToAbsl(s)); }

bool HasScheme(std::string_view url) {
  const std::string lower = Lower(url.substr(0, 8));
  return lower.starts_with("http://") || lower.starts_with("https://") ||
         lower.starts_with("file://");
}

// A string member; "" when absent; an error when present and not a string.
absl::Status Text(const core::Value& entry, std::string_view key, std::string* out) {
  const core::Value* v = entry.Find(key);
  if (v == nullptr || v->is_null()) return absl::OkStatus();
  if (!v->is_string()) return absl::InvalidArgumentError(StrCat("`", key, "` must be a string"));
  *out = v->as_string();
  return absl::OkStatus();
}

absl::StatusOr<CatalogEntry> ReadEntry(const core::Value& v, std::string_view base_url) {
  if (!v.is_object()) return absl::InvalidArgumentError("not an object");
  CatalogEntry e;
  for (auto [key, field] : {std::pair<std::string_view, std::string*>{"id", &e.id},
                            {"name", &e.name}, {"version", &e.version}, {"tier", &e.tier},
                            {"kind", &e.kind}, {"description", &e.description},
                            {"author", &e.author}, {"homepage", &e.homepage}, {"url", &e.url},
                            {"sha256", &e.sha256}, {"format", &e.format},
                            {"isolation", &e.isolation}}) {
    if (absl::Status s = Text(v, key, field); !s.ok()) return s;
  }
  if (e.name.empty()) e.name = e.id;
  if (e.tier.empty()) e.tier = "community";
  const core::Value* size = v.Find("size");
  if (size == nullptr) return absl::InvalidArgumentError("`size` is missing");
  std::optional<int64_t> bytes = size->is_number() ? size->as_integer() : std::nullopt;
  if (!bytes.has_value() || *bytes < 0) {
    return absl::InvalidArgumentError("`size` must be a whole number of bytes");
  }
  e.size = static_cast<uint64_t>(*bytes);
  if (const core::Value* requires_ = v.Find("requires"); requires_ != nullptr) {
    const core::Value* packages = requires_->is_object() ? requires_->Find("packages") : nullptr;
    if (!requires_->is_object() || (packages != nullptr && !packages->is_array())) {
      return absl::InvalidArgumentError("`requires` must be {\"packages\": [\"name@version\"]}");
    }
    if (packages != nullptr) {
      for (const core::Value& p : packages->as_array()) {
        if (!p.is_string()) return absl::InvalidArgumentError("`requires.packages` holds strings");
        e.requires_packages.push_back(p.as_string());
      }
    }
  }
  if (e.url.empty()) return absl::InvalidArgumentError("`url` is missing");
  if (e.format.empty()) e.format = FormatOfUrl(e.url);
  absl::StatusOr<std::string> url = ResolveUrl(base_url, e.url);
  if (!url.ok()) return url.status();
  e.url = *url;
  e.sha256 = Lower(e.sha256);
  if (absl::Status s = ValidateEntry(e); !s.ok()) return s;
  return e;
}

// "1.10.0-rc.1" → release parts {1, 10, 0} and pre-release parts {rc, 1}.
struct VersionParts {
  std::vector<std::string> release, pre;
};
VersionParts Split(std::string_view v) {
  VersionParts parts;
  v = v.substr(0, v.find('+'));  // build metadata does not order
  const size_t dash = v.find('-');
  for (absl::string_view p : absl::StrSplit(ToAbsl(v.substr(0, dash)), '.')) {
    parts.release.emplace_back(p);
  }
  if (dash != std::string_view::npos) {
    for (absl::string_view p : absl::StrSplit(ToAbsl(v.substr(dash + 1)), '.')) {
      parts.pre.emplace_back(p);
    }
  }
  return parts;
}

int ComparePart(const std::string& a, const std::string& b) {
  uint64_t x = 0, y = 0;
  const bool na = absl::SimpleAtoi(a, &x), nb = absl::SimpleAtoi(b, &y);
  if (na && nb) return x < y ? -1 : x > y ? 1 : 0;
  if (na != nb) return na ? -1 : 1;  // numbers before words
  return a < b ? -1 : a > b ? 1 : 0;
}

int CompareParts(const std::vector<std::string>& a, const std::vector<std::string>& b,
                 bool pad_with_zero) {
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (!pad_with_zero && (i >= a.size() || i >= b.size())) return i >= a.size() ? -1 : 1;
    const std::string x = i < a.size() ? a[i] : "0", y = i < b.size() ? b[i] : "0";
    if (int c = ComparePart(x, y); c != 0) return c;
  }
  return 0;
}

}  // namespace

bool CatalogEntry::IsArchive() const {
  return format == "tar.gz" || format == "tgz" || format == "tar" || format == "zip";
}

bool IsValidVersion(std::string_view version) {
  if (version.empty() || version.size() > 64 || !std::isalnum(static_cast<unsigned char>(version[0]))) {
    return false;
  }
  if (version.find("..") != std::string_view::npos) return false;
  return std::all_of(version.begin(), version.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
  });
}

int CompareVersions(std::string_view a, std::string_view b) {
  VersionParts x = Split(a), y = Split(b);
  if (int c = CompareParts(x.release, y.release, /*pad_with_zero=*/true); c != 0) return c;
  if (x.pre.empty() != y.pre.empty()) return x.pre.empty() ? 1 : -1;  // a release wins
  return CompareParts(x.pre, y.pre, /*pad_with_zero=*/false);
}

std::string FormatOfUrl(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const std::string name = Lower(url.substr(url.rfind('/') == std::string_view::npos ? 0 : url.rfind('/') + 1));
  for (std::string_view format : {"tar.gz", "tgz", "tar", "zip", "mjs", "mts", "js", "ts"}) {
    if (name.ends_with(StrCat(".", format))) return std::string(format);
  }
  return "";
}

absl::StatusOr<std::string> ResolveUrl(std::string_view base, std::string_view ref) {
  if (ref.empty()) return absl::InvalidArgumentError("an empty URL");
  for (char c : ref) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError("a URL with a space or control character");
    }
  }
  if (HasScheme(ref)) return std::string(ref);
  if (ref.find("://") != std::string_view::npos) {
    return absl::InvalidArgumentError(
        StrCat("unsupported URL '", core::EscapeControl(ref), "' (use http://, https:// or file://)"));
  }
  for (absl::string_view segment : absl::StrSplit(ToAbsl(ref.substr(0, ref.find_first_of("?#"))), '/')) {
    if (segment == "..") {
      return absl::InvalidArgumentError(
          StrCat("the URL '", core::EscapeControl(ref), "' climbs out of the catalog with '..'"));
    }
  }
  if (!HasScheme(base)) {
    return absl::InvalidArgumentError(
        StrCat("'", core::EscapeControl(ref), "' is relative, and the catalog has no base URL"));
  }
  const size_t authority = base.find("://") + 3;
  if (ref.starts_with("/")) {
    const size_t path = base.find('/', authority);
    return StrCat(base.substr(0, path == std::string_view::npos ? base.size() : path), ref);
  }
  std::string_view dir = base.substr(0, base.find_first_of("?#"));
  const size_t slash = dir.rfind('/');
  dir = slash == std::string_view::npos || slash < authority ? dir : dir.substr(0, slash);
  return StrCat(dir, "/", ref);
}

absl::Status ValidateEntry(const CatalogEntry& e) {
  if (!core::IsValidPluginId(e.id)) {
    return absl::InvalidArgumentError(core::InvalidPluginIdMessage("`id`", e.id));
  }
  if (e.id.starts_with("builtin-")) {
    return absl::InvalidArgumentError("`id` may not start with builtin- (reserved for built-ins)");
  }
  if (!IsValidVersion(e.version)) {
    return absl::InvalidArgumentError(
        StrCat("`version` \"", core::EscapeControl(e.version),
               "\" is not a version (1-64 letters, digits, '.', '-' or '+', no '..')"));
  }
  if (!OneOf(e.tier, kTiers)) {
    return absl::InvalidArgumentError(
        StrCat("`tier` \"", core::EscapeControl(e.tier), "\" is not built-in, community or premium"));
  }
  if (!OneOf(e.kind, kKinds)) {
    return absl::InvalidArgumentError(StrCat("`kind` \"", core::EscapeControl(e.kind),
                                             "\" is not js-shaper, exec-hook or opencode"));
  }
  if (!OneOf(e.format, kFormats)) {
    return absl::InvalidArgumentError(
        StrCat("`format` \"", core::EscapeControl(e.format),
               "\" is not js, mjs, ts, mts, tar.gz, tgz, tar or zip (and the URL does not say)"));
  }
  if (e.kind == "exec-hook" && !e.IsArchive()) {
    return absl::InvalidArgumentError("an exec-hook plugin is a folder: its `format` must be an archive");
  }
  if (!IsHex64(e.sha256)) {
    return absl::InvalidArgumentError("`sha256` must be 64 hexadecimal digits");
  }
  if (!e.isolation.empty() && e.isolation != "process" && e.isolation != "in-process") {
    return absl::InvalidArgumentError(StrCat("`isolation` \"", core::EscapeControl(e.isolation),
                                             "\" is not process or in-process"));
  }
  if (!e.homepage.empty() && !HasScheme(e.homepage)) {
    return absl::InvalidArgumentError("`homepage` must be an http(s) URL");
  }
  return absl::OkStatus();
}

absl::StatusOr<CatalogIndex> ParseIndex(std::string_view json, std::string_view source,
                                        std::string_view base_url) {
  absl::StatusOr<core::Value> doc = core::ParseJson(json, source);
  if (!doc.ok()) return doc.status();
  if (!doc->is_object()) {
    return absl::InvalidArgumentError(StrCat(source, ": a catalog index is a JSON object"));
  }
  if (const core::Value* format = doc->Find("catalog"); format != nullptr) {
    std::optional<int64_t> n = format->is_number() ? format->as_integer() : std::nullopt;
    if (!n.has_value() || *n < 1) {
      return absl::InvalidArgumentError(StrCat(source, ": `catalog` must be a format number"));
    }
    if (*n > kIndexFormat) {
      return absl::FailedPreconditionError(
          StrCat(source, ": the index is in catalog format ", *n, "; this plugline reads format ",
                 kIndexFormat, " (a newer plugline is needed)"));
    }
  }
  const core::Value* plugins = doc->Find("plugins");
  if (plugins == nullptr || !plugins->is_array()) {
    return absl::InvalidArgumentError(StrCat(source, ": a catalog index has a `plugins` array"));
  }
  CatalogIndex index;
  if (absl::Status s = Text(*doc, "name", &index.name); !s.ok()) {
    return absl::InvalidArgumentError(StrCat(source, ": ", s.message()));
  }
  (void)Text(*doc, "generated_at", &index.generated_at);
  std::set<std::pair<std::string, std::string>> seen;
  const auto& entries = plugins->as_array();
  for (size_t i = 0; i < entries.size(); ++i) {
    absl::StatusOr<CatalogEntry> entry = ReadEntry(entries[i], base_url);
    const core::Value* id = entries[i].Find("id");
    const std::string name = id != nullptr && id->is_string()
                                 ? StrCat(" (", core::EscapeControl(id->as_string()), ")")
                                 : "";
    if (!entry.ok()) {
      index.skipped.push_back(
          StrCat(source, ": plugins[", i, "]", name, " is skipped: ", entry.status().message()));
      continue;
    }
    if (!seen.emplace(entry->id, entry->version).second) {
      index.skipped.push_back(StrCat(source, ": plugins[", i, "]", name, " is skipped: version ",
                                     entry->version, " is listed twice"));
      continue;
    }
    index.plugins.push_back(*std::move(entry));
  }
  return index;
}

std::string WriteIndex(const CatalogIndex& index) {
  std::string out = "{\n  \"catalog\": 1,\n";
  auto string = [](std::string_view s) {
    std::string quoted;
    core::AppendJsonString(quoted, s);
    return quoted;
  };
  if (!index.name.empty()) StrAppend(&out, "  \"name\": ", string(index.name), ",\n");
  if (!index.generated_at.empty()) {
    StrAppend(&out, "  \"generated_at\": ", string(index.generated_at), ",\n");
  }
  out += "  \"plugins\": [";
  for (size_t i = 0; i < index.plugins.size(); ++i) {
    const CatalogEntry& e = index.plugins[i];
    core::JsonWriter w;
    w.BeginObject();
    w.Key("id").String(e.id);
    w.Key("name").String(e.name);
    w.Key("version").String(e.version);
    w.Key("tier").String(e.tier);
    w.Key("kind").String(e.kind);
    for (auto [key, value] : {std::pair<std::string_view, const std::string*>{"description", &e.description},
                              {"author", &e.author}, {"homepage", &e.homepage}}) {
      if (!value->empty()) w.Key(key).String(*value);
    }
    w.Key("url").String(e.url);
    w.Key("format").String(e.format);
    w.Key("sha256").String(e.sha256);
    w.Key("size").Int(static_cast<int64_t>(e.size));
    if (!e.isolation.empty()) w.Key("isolation").String(e.isolation);
    if (!e.requires_packages.empty()) {
      w.Key("requires").BeginObject().Key("packages").BeginArray();
      for (const std::string& p : e.requires_packages) w.String(p);
      w.EndArray().EndObject();
    }
    w.EndObject();
    StrAppend(&out, i == 0 ? "\n    " : ",\n    ", w.str());
  }
  out += index.plugins.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace plugline::catalog
