// A plugin catalog's index (docs/catalog.md, schema: docs/catalog.schema.json): what a catalog
// offers, read from its index.json, and written for a folder of plugins by `plugline catalog
// build`.
//
//   {"catalog": 1, "name": "example", "generated_at": "2026-12-03T12:00:00Z",
//    "plugins": [{"id": "terraform-plan", "name": "Terraform plan", "version": "1.2.0",
//                 "tier": "community", "kind": "js-shaper", "description": "...",
//                 "author": "...", "homepage": "https://...",
//                 "url": "terraform-plan-1.2.0.js", "sha256": "<64 hex>", "size": 1234}]}
//
// An entry's url is absolute (http, https, file) or relative to the index's own URL. What a
// plugin becomes once installed follows from its format: a single module file (js, mjs, ts,
// mts) is <plugins>/<id>.<format>; an archive (tar.gz, tgz, tar, zip) is the folder
// <plugins>/<id>/.
#ifndef PLUGLINE_CATALOG_INDEX_H_
#define PLUGLINE_CATALOG_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/json.h"

namespace plugline::catalog {

inline constexpr int64_t kIndexFormat = 1;

struct CatalogEntry {
  std::string id;           // a plugin id (core/plugin_id.h)
  std::string name;         // for people; the id when the entry has none
  std::string version;      // 1-64 of [0-9A-Za-z.+-], starting with a letter or digit
  std::string tier;         // built-in | community | premium
  std::string kind;         // js-shaper | exec-hook | opencode
  std::string description, author, homepage;
  std::string url;          // resolved: absolute
  std::string sha256;       // 64 lower-case hex digits
  uint64_t size = 0;        // bytes of the download
  std::string format;       // js | mjs | ts | mts | tar.gz | tgz | tar | zip
  // How it runs once installed: "process" (a worker process), "in-process", or "" (the
  // default for catalog plugins: docs/managing-plugins.md).
  std::string isolation;
  // For OpenCode plugins: the npm packages it needs beside it (informational).
  std::vector<std::string> requires_packages;

  bool IsArchive() const;
};

struct CatalogIndex {
  std::string name;
  std::string generated_at;
  std::vector<CatalogEntry> plugins;
  // Entries left out, one message each naming the entry and the problem.
  std::vector<std::string> skipped;
};

bool IsValidVersion(std::string_view version);

// Orders versions: dot-separated parts compared numerically when both are numbers, else as
// text; a pre-release ("1.0.0-rc.1") comes before its release. <0, 0, >0.
int CompareVersions(std::string_view a, std::string_view b);

// Reads an index. `source` names it in messages (its URL); `base_url` is what relative entry
// URLs are resolved against. A document that is not an index (not JSON, no "plugins" array, a
// newer "catalog" format) is an error naming `source`; a malformed entry is skipped, and said
// so in `skipped`. Two entries with the same id and version: the first is kept.
absl::StatusOr<CatalogIndex> ParseIndex(std::string_view json, std::string_view source,
                                        std::string_view base_url);

// The URL `ref` names relative to `base` (an absolute http, https or file URL): `ref` itself
// when it has a scheme, else joined to base's directory (or its root, for "/x"). A ref that
// climbs out with ".." segments is refused.
absl::StatusOr<std::string> ResolveUrl(std::string_view base, std::string_view ref);

// The format a URL's file name implies ("" when none does).
std::string FormatOfUrl(std::string_view url);

// The index JSON of `index` (entries in order; generated_at as given), pretty enough to read.
std::string WriteIndex(const CatalogIndex& index);

// Checks one entry's fields (what ParseIndex checks); InvalidArgument naming the field.
absl::Status ValidateEntry(const CatalogEntry& entry);

}  // namespace plugline::catalog

#endif  // PLUGLINE_CATALOG_INDEX_H_
